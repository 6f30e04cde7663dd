/**
 * Runs the Crypto Pay sandbox until SIGINT/SIGTERM: `npx tsx sandbox/cryptopay/cli.ts`.
 *
 * Environment (a .env file in the working directory is read when present; real variables win):
 *   CRYPTOPAY_SANDBOX_PORT        port to listen on (default 8083; 0 = a free port)
 *   CRYPTOPAY_SANDBOX_HOST        address to bind (default 127.0.0.1)
 *   CRYPTOPAY_TOKEN               the app token clients must send (default "sandbox-cryptopay-token")
 *   CRYPTOPAY_WEBHOOK_URL         where invoice_paid updates are POSTed, e.g. the bot's
 *                                 http://127.0.0.1:8080/webhooks/cryptopay; unset = no updates
 *   CRYPTOPAY_SANDBOX_PUBLIC_URL  base of the invoice URLs shown to customers (default the sandbox's URL)
 *
 * Point the bot at it with CRYPTOPAY_API_URL=<printed url>/api and the same CRYPTOPAY_TOKEN; a
 * customer pays on the sandbox's page at the invoice's URL.
 */
import { pathToFileURL } from "node:url";
import { type CryptoPaySandboxOptions, startCryptoPaySandbox } from "./server.js";

export function parseEnv(env: NodeJS.ProcessEnv): { opts: CryptoPaySandboxOptions } | { errors: string[] } {
  const errors: string[] = [];
  const val = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const portText = val("CRYPTOPAY_SANDBOX_PORT");
  const port = portText === undefined ? 8083 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    errors.push(`CRYPTOPAY_SANDBOX_PORT must be a whole number from 0 to 65535, got "${portText}"`);
  }
  const url = (name: string) => {
    const v = val(name);
    if (v !== undefined && !/^https?:\/\//.test(v)) errors.push(`${name} must be an http(s) URL, got "${v}"`);
    else if (v !== undefined && !URL.canParse(v)) errors.push(`${name} is not a valid URL`);
    return v;
  };
  const webhookUrl = url("CRYPTOPAY_WEBHOOK_URL");
  const publicUrl = url("CRYPTOPAY_SANDBOX_PUBLIC_URL");
  if (errors.length > 0) return { errors };
  return {
    opts: {
      port,
      host: val("CRYPTOPAY_SANDBOX_HOST") ?? "127.0.0.1",
      token: val("CRYPTOPAY_TOKEN") ?? "sandbox-cryptopay-token",
      webhookUrl,
      publicUrl,
    },
  };
}

async function main() {
  try {
    process.loadEnvFile();
  } catch {
    // No .env file: the environment alone configures the sandbox.
  }
  const parsed = parseEnv(process.env);
  if ("errors" in parsed) {
    console.error(`Crypto Pay sandbox: bad configuration:\n  ${parsed.errors.join("\n  ")}`);
    process.exit(1);
  }
  const { opts } = parsed;
  let sandbox: Awaited<ReturnType<typeof startCryptoPaySandbox>>;
  try {
    sandbox = await startCryptoPaySandbox(opts);
  } catch (error) {
    console.error(
      `Crypto Pay sandbox: cannot listen on ${opts.host}:${opts.port}: ${(error as Error).message}`,
    );
    process.exit(1);
  }
  console.log(`Crypto Pay sandbox listening on ${sandbox.url}`);
  console.log(`  CRYPTOPAY_API_URL=${sandbox.apiUrl}`);
  console.log(
    `  token: ${process.env.CRYPTOPAY_TOKEN?.trim() ? "from CRYPTOPAY_TOKEN" : 'the default "sandbox-cryptopay-token"'}`,
  );
  console.log(
    `  updates: ${opts.webhookUrl ? `POSTed to ${opts.webhookUrl}` : "off (CRYPTOPAY_WEBHOOK_URL unset)"}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`Crypto Pay sandbox: ${signal}, stopping`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`Crypto Pay sandbox: error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

// Run only as a program, so tests can import parseEnv.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
