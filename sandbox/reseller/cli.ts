/**
 * `npm run sandbox`: runs the reseller API sandbox until SIGINT/SIGTERM.
 *
 * Environment (a .env file in the working directory is read when present; real variables win):
 *   SANDBOX_PORT               port to listen on (default 8081; 0 = a free port)
 *   SANDBOX_HOST               address to bind (default 127.0.0.1)
 *   RESELLER_API_KEY           Bearer key clients must send (default "sandbox-key")
 *   RESELLER_WEBHOOK_SECRET    signs delivery webhooks; unset = no webhooks
 *   SANDBOX_BALANCE_RUB        starting deposit in roubles (default 100000)
 *   SANDBOX_DELIVERY_DELAY_MS  time from pay to the final status (default 3000)
 *   SANDBOX_WEBHOOK_REWRITE    comma-separated `https://public.base=http://local.base` prefix rewrites
 *                              applied to callback_url before the webhook is POSTed
 *
 * Orders whose recipient username starts with "fail" end as failed, so the failure path can be
 * tried by hand; every other order is delivered.
 */
import { envReader, runSandboxCli } from "../kit/cli.js";
import { defaultPayload, type SandboxOptions, startResellerSandbox } from "./server.js";

function parseEnv(
  env: NodeJS.ProcessEnv,
): { opts: SandboxOptions; defaultKey: boolean } | { errors: string[] } {
  const { errors, val, num, port: portOf } = envReader(env);
  const port = portOf("SANDBOX_PORT", 8081);
  const balanceRub = num("SANDBOX_BALANCE_RUB", 100_000, 0, 1e12, false);
  const deliveryDelayMs = num("SANDBOX_DELIVERY_DELAY_MS", 3000, 0, 86_400_000, true);
  const webhookRewrite: { from: string; to: string }[] = [];
  for (const pair of (val("SANDBOX_WEBHOOK_REWRITE") ?? "").split(",").filter((p) => p.trim() !== "")) {
    const i = pair.indexOf("=");
    const from = pair.slice(0, i).trim();
    const to = pair.slice(i + 1).trim();
    if (i < 0 || !URL.canParse(from) || !URL.canParse(to))
      errors.push(
        `SANDBOX_WEBHOOK_REWRITE entries must look like https://public.base=http://local.base, got "${pair}"`,
      );
    else webhookRewrite.push({ from, to });
  }
  if (errors.length > 0) return { errors };
  const apiKey = val("RESELLER_API_KEY");
  return {
    defaultKey: apiKey === undefined,
    opts: {
      port,
      host: val("SANDBOX_HOST") ?? "127.0.0.1",
      apiKey: apiKey ?? "sandbox-key",
      webhookSecret: val("RESELLER_WEBHOOK_SECRET"),
      balanceRub,
      deliveryDelayMs,
      webhookRewrite,
    },
  };
}

void runSandboxCli({
  name: "Reseller sandbox",
  parseEnv,
  async start({ opts }) {
    const sandbox = await startResellerSandbox(opts);
    sandbox.setOutcome((order) => {
      const recipient = order.request.recipient_username;
      if (typeof recipient === "string" && /^@?fail/i.test(recipient))
        return {
          status: "failed",
          errorMessage: 'Recipient not found (sandbox: usernames starting with "fail" fail)',
        };
      return { status: "delivered", payload: defaultPayload(order) };
    });
    return sandbox;
  },
  describe: (sandbox, { opts, defaultKey }) => [
    `  RESELLER_API_URL=${sandbox.url}`,
    `  API key: ${defaultKey ? 'the default "sandbox-key"' : "from RESELLER_API_KEY"}`,
    `  deposit: ${opts.balanceRub} RUB, delivery after ${opts.deliveryDelayMs} ms`,
    `  webhooks: ${opts.webhookSecret ? "signed with RESELLER_WEBHOOK_SECRET" : "off (RESELLER_WEBHOOK_SECRET unset)"}`,
    ...(opts.webhookRewrite ?? []).map((r) => `  webhook rewrite: ${r.from} -> ${r.to}`),
  ],
});
