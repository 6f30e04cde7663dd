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
import { startYooKassaSandbox, type YooKassaSandboxOptions } from "./server.js";

function parseEnv(env: NodeJS.ProcessEnv): { opts: YooKassaSandboxOptions } | { errors: string[] } {
  const errors: string[] = [];
  const val = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const portText = val("YOOKASSA_SANDBOX_PORT");
  const port = portText === undefined ? 8082 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    errors.push(`YOOKASSA_SANDBOX_PORT must be a whole number from 0 to 65535, got "${portText}"`);
  const url = (name: string) => {
    const v = val(name);
    if (v !== undefined && !/^https?:\/\//i.test(v))
      errors.push(`${name} must be an http(s) URL, got "${v}"`);
    return v;
  };
  const notificationUrl = url("YOOKASSA_NOTIFICATION_URL");
  const publicUrl = url("YOOKASSA_SANDBOX_PUBLIC_URL");
  if (errors.length > 0) return { errors };
  return {
    opts: {
      port,
      host: val("SANDBOX_HOST") ?? "127.0.0.1",
      shopId: val("YOOKASSA_SHOP_ID") ?? "sandbox-shop",
      secretKey: val("YOOKASSA_SECRET_KEY") ?? "sandbox-secret",
      notificationUrl,
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
    console.error(`YooKassa sandbox: bad configuration:\n  ${parsed.errors.join("\n  ")}`);
    process.exit(1);
  }
  const { opts } = parsed;
  let sandbox: Awaited<ReturnType<typeof startYooKassaSandbox>>;
  try {
    sandbox = await startYooKassaSandbox(opts);
  } catch (error) {
    console.error(
      `YooKassa sandbox: cannot listen on ${opts.host}:${opts.port}: ${(error as Error).message}`,
    );
    process.exit(1);
  }
  console.log(`YooKassa sandbox listening on ${sandbox.url}`);
  console.log(`  YOOKASSA_API_URL=${sandbox.apiUrl}`);
  console.log(
    `  YOOKASSA_SHOP_ID=${opts.shopId} (secret key: ${process.env.YOOKASSA_SECRET_KEY ? "from YOOKASSA_SECRET_KEY" : 'the default "sandbox-secret"'})`,
  );
  console.log(`  notifications: ${opts.notificationUrl ?? "off (YOOKASSA_NOTIFICATION_URL unset)"}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`YooKassa sandbox: ${signal}, stopping`);
    sandbox.close().then(
      () => {
        console.log("YooKassa sandbox stopped");
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`YooKassa sandbox: error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

void main();
