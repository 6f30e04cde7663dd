/**
 * Runs the YooKassa sandbox until SIGINT/SIGTERM: `npx tsx sandbox/yookassa/cli.ts`.
 *
 * Environment (a .env file in the working directory is read when present; real variables win):
 *   YOOKASSA_SANDBOX_PORT        port to listen on (default 8082; 0 = a free port)
 *   SANDBOX_HOST                 address to bind (default 127.0.0.1)
 *   YOOKASSA_SHOP_ID             shop id clients must send (default "sandbox-shop")
 *   YOOKASSA_SECRET_KEY          secret key clients must send (default "sandbox-secret")
 *   YOOKASSA_NOTIFICATION_URL    where notifications are POSTed, e.g.
 *                                http://127.0.0.1:8080/webhooks/yookassa; unset = none
 *   YOOKASSA_SANDBOX_PUBLIC_URL  base of confirmation_url as a browser reaches the sandbox
 *                                (default: the address it listens on)
 *
 * Point the bot at it with YOOKASSA_API_URL=<printed url>/v3 and the same shop id and key; a
 * payment's confirmation_url opens the sandbox's page with Pay and Cancel buttons.
 */
import { envReader, runSandboxCli } from "../kit/cli.js";
import { startYooKassaSandbox, type YooKassaSandboxOptions } from "./server.js";

function parseEnv(env: NodeJS.ProcessEnv): { opts: YooKassaSandboxOptions } | { errors: string[] } {
  const { errors, val, port, url } = envReader(env);
  const opts = {
    port: port("YOOKASSA_SANDBOX_PORT", 8082),
    host: val("SANDBOX_HOST") ?? "127.0.0.1",
    shopId: val("YOOKASSA_SHOP_ID") ?? "sandbox-shop",
    secretKey: val("YOOKASSA_SECRET_KEY") ?? "sandbox-secret",
    notificationUrl: url("YOOKASSA_NOTIFICATION_URL"),
    publicUrl: url("YOOKASSA_SANDBOX_PUBLIC_URL"),
  };
  return errors.length > 0 ? { errors } : { opts };
}

void runSandboxCli({
  name: "YooKassa sandbox",
  parseEnv,
  start: ({ opts }) => startYooKassaSandbox(opts),
  describe: (sandbox, { opts }) => [
    `  YOOKASSA_API_URL=${sandbox.apiUrl}`,
    `  YOOKASSA_SHOP_ID=${opts.shopId} (secret key: ${process.env.YOOKASSA_SECRET_KEY ? "from YOOKASSA_SECRET_KEY" : 'the default "sandbox-secret"'})`,
    `  notifications: ${opts.notificationUrl ?? "off (YOOKASSA_NOTIFICATION_URL unset)"}`,
  ],
});
