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
import { envReader, runSandboxCli } from "../kit/cli.js";
import { type CryptoPaySandboxOptions, startCryptoPaySandbox } from "./server.js";

export function parseEnv(env: NodeJS.ProcessEnv): { opts: CryptoPaySandboxOptions } | { errors: string[] } {
  const { errors, val, port, url } = envReader(env);
  const opts = {
    port: port("CRYPTOPAY_SANDBOX_PORT", 8083),
    host: val("CRYPTOPAY_SANDBOX_HOST") ?? "127.0.0.1",
    token: val("CRYPTOPAY_TOKEN") ?? "sandbox-cryptopay-token",
    webhookUrl: url("CRYPTOPAY_WEBHOOK_URL"),
    publicUrl: url("CRYPTOPAY_SANDBOX_PUBLIC_URL"),
  };
  return errors.length > 0 ? { errors } : { opts };
}

// Run only as a program, so tests can import parseEnv.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void runSandboxCli({
    name: "Crypto Pay sandbox",
    parseEnv,
    start: ({ opts }) => startCryptoPaySandbox(opts),
    describe: (sandbox, { opts }) => [
      `  CRYPTOPAY_API_URL=${sandbox.apiUrl}`,
      `  token: ${process.env.CRYPTOPAY_TOKEN?.trim() ? "from CRYPTOPAY_TOKEN" : 'the default "sandbox-cryptopay-token"'}`,
      `  updates: ${opts.webhookUrl ? `POSTed to ${opts.webhookUrl}` : "off (CRYPTOPAY_WEBHOOK_URL unset)"}`,
    ],
  });
