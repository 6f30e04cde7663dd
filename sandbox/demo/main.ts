/**
 * `npm run demo`: the whole shop on one machine, offline, with a Telegram-like chat in the browser.
 *
 * Starts, in order: a private Redis (or uses REDIS_URL), the reseller sandbox (sample catalogs, a deposit,
 * delivery after a few seconds, signed webhooks), the YooKassa and Crypto Pay emulators (payment pages with
 * Pay and Cancel buttons, notifications to the bot), the Telegram Bot API emulator with its web chat page,
 * and the bot itself — `src/main.ts` in a child process configured through its environment only, exactly as
 * in production — pointed at the emulators, offering YooKassa, Crypto Pay, the wallet and Telegram Stars on
 * every order card. The operators' group is a forum supergroup of the emulator ("Shop operators", with the
 * demo operator as a member) given to the bot as OPERATOR_CHAT_ID; the web chat shows it as a third
 * conversation. Ctrl-C (SIGINT), SIGTERM or SIGHUP stop every part.
 *
 * Environment of the launcher:
 *   DEMO_PORT   port of the web page and the Bot API emulator (default 8088; 0 = any free port)
 *   DEMO_HOST   address to bind the page to (default 127.0.0.1; the page can act as any user, keep it local)
 *   REDIS_URL   use this Redis instead of starting redis-server (keys under a per-run prefix, deleted on stop)
 *   LOG_LEVEL, PRODUCTS, PRICE_MARKUP_PERCENT, STAR_PRICE_RUB, DEFAULT_LOCALE, LOW_BALANCE_RUB, SUPPORT_CONTACT
 *               passed to the bot when set (LOG_LEVEL defaults to warn); every other bot variable is set by the
 *               demo, and a .env file does not apply.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ENV_VARIABLES } from "../../src/config.js";
import { type CryptoPaySandbox, startCryptoPaySandbox } from "../cryptopay/server.js";
import { defaultPayload, type ResellerSandbox, startResellerSandbox } from "../reseller/server.js";
import { startTelegramEmulator, type TelegramEmulator } from "../telegram/index.js";
import { WEB_CHAT_IDENTITIES } from "../telegram/web/api.js";
import { startYooKassaSandbox, type YooKassaSandbox } from "../yookassa/server.js";
import { type BotProcess, startBotProcess } from "./bot-process.js";
import { type DemoRedis, startDemoRedis } from "./redis.js";
import { DemoError, freePort } from "./util.js";

/** The only token the demo's Bot API emulator accepts; it is not a real bot's token. */
export const DEMO_BOT_TOKEN = "7700000001:DEMO-offline-token-not-a-real-bot";
export const DEMO_BOT_USERNAME = "demo_shop_bot";
/** PUBLIC_BASE_URL the bot puts into callback_url; the sandbox rewrites it to the bot's local listener. */
export const DEMO_PUBLIC_BASE_URL = "https://demo.shop.invalid";
export const DEFAULT_DEMO_PORT = 8088;
/** The operators' forum supergroup of the demo (OPERATOR_CHAT_ID): alerts and the support line, one topic each. */
export const DEMO_OPERATORS_GROUP = { id: -1001000000001, title: "Shop operators" } as const;
/** The rails every order card of the demo offers, in this order. */
export const DEMO_CHECKOUT = "yookassa,cryptopay,wallet,stars";

/** Bot variables a person may set for the demo; everything else is fixed by the demo. */
export const DEMO_PASSTHROUGH_VARIABLES = [
  "LOG_LEVEL",
  "PRODUCTS",
  "PRICE_MARKUP_PERCENT",
  "STAR_PRICE_RUB",
  "DEFAULT_LOCALE",
  "LOW_BALANCE_RUB",
  "SUPPORT_CONTACT",
] as const;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BOT_START_TIMEOUT_MS = 90_000;
/** Signals this soon after the first one are copies of it, not a second request to stop. */
const DUPLICATE_SIGNAL_MS = 1500;

export interface DemoOptions {
  /** Port of the page and the Bot API emulator (0 = a free one). Default 8088. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Use this Redis instead of a private redis-server. */
  redisUrl?: string;
  /** Reseller sandbox: time from pay to delivery. Default 3000. */
  deliveryDelayMs?: number;
  /** Reseller sandbox: starting deposit. Default 100000. */
  balanceRub?: number;
  /** Extra bot variables (e.g. LOG_LEVEL); applied after the demo's own. */
  botEnv?: Record<string, string>;
  /** Environment the bot process inherits (PATH, HOME…); default process.env. Bot variables in it are cleared. */
  baseEnv?: Record<string, string | undefined>;
  /** Where status lines go. Default console.log. */
  print?: (line: string) => void;
  /** Aborting it during start-up stops what was started and rejects. */
  signal?: AbortSignal;
}

export interface Demo {
  /** The web chat page, e.g. http://127.0.0.1:8088/ */
  url: string;
  emulator: TelegramEmulator;
  sandbox: ResellerSandbox;
  /** The payment providers' emulators; their pages are where a customer pays by card or in crypto. */
  yookassa: YooKassaSandbox;
  cryptopay: CryptoPaySandbox;
  redisUrl: string;
  botPid: number;
  /** Resolves when the bot process exits, for whatever reason. */
  botExited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the bot (SIGTERM), closes the emulators, stops Redis and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const line = (label: string, text: string) => `  ${label.padEnd(9)} ${text}`;

async function waitForBot(
  bot: BotProcess,
  httpUrl: string,
  emulator: TelegramEmulator,
  signal: AbortSignal | undefined,
): Promise<void> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void bot.exited.then((e) => {
    exit = e;
  });
  const until = Date.now() + BOT_START_TIMEOUT_MS;
  for (;;) {
    if (signal?.aborted) throw new DemoError("stopped during start-up");
    if (exit) {
      throw new DemoError(
        `the bot exited during start-up (${exit.signal ?? `exit code ${exit.code}`}); its output is above`,
      );
    }
    const ready = await fetch(`${httpUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready && emulator.calls("getUpdates").length > 0) return;
    if (Date.now() > until) {
      throw new DemoError(
        `the bot did not start within ${BOT_START_TIMEOUT_MS / 1000} s; its output is above`,
      );
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Starts every part of the demo; on failure, stops what was started and rejects (DemoError = fixable by the user). */
export async function startDemo(opts: DemoOptions = {}): Promise<Demo> {
  const print = opts.print ?? ((text: string) => console.log(text));
  const host = opts.host ?? "127.0.0.1";
  const runId = randomBytes(4).toString("hex");
  const apiKey = `demo-${randomBytes(16).toString("hex")}`;
  const webhookSecret = randomBytes(24).toString("hex");
  const yookassaShopId = String(100_000 + (randomBytes(2).readUInt16BE() % 900_000));
  const yookassaSecret = `test_${randomBytes(16).toString("hex")}`;
  const cryptopayToken = `${randomBytes(2).readUInt16BE()}:demo-${randomBytes(16).toString("hex")}`;
  const deliveryDelayMs = opts.deliveryDelayMs ?? 3000;
  const balanceRub = opts.balanceRub ?? 100_000;
  const operator = WEB_CHAT_IDENTITIES.find((i) => i.role === "operator")!;

  const cleanups: (() => Promise<void>)[] = [];
  const kills: (() => void)[] = [];
  // Should the launcher exit without stop() (an uncaught error), child processes must not outlive it.
  const killAll = () => {
    for (const kill of kills) kill();
  };
  process.once("exit", killAll);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      process.removeListener("exit", killAll);
    })();
    return stopping;
  };
  const checkAborted = () => {
    if (opts.signal?.aborted) throw new DemoError("stopped during start-up");
  };

  try {
    print("Shop bot — offline demo");

    const redis: DemoRedis = await startDemoRedis({
      ...(opts.redisUrl ? { url: opts.redisUrl } : {}),
      prefix: `shopbot-demo:${runId}:`,
    });
    cleanups.push(() => redis.stop());
    kills.push(() => redis.kill());
    print(line("redis", redis.description));
    checkAborted();

    const httpPort = await freePort();
    const httpUrl = `http://127.0.0.1:${httpPort}`;
    const sandbox = await startResellerSandbox({
      port: 0,
      host: "127.0.0.1",
      apiKey,
      webhookSecret,
      balanceRub,
      deliveryDelayMs,
      webhookRewrite: [{ from: DEMO_PUBLIC_BASE_URL, to: httpUrl }],
    });
    cleanups.push(() => sandbox.close());
    sandbox.setOutcome((order) => {
      const recipient = order.request.recipient_username;
      if (typeof recipient === "string" && /^@?fail/i.test(recipient)) {
        return {
          status: "failed",
          errorMessage: 'Recipient not found (demo: usernames starting with "fail" fail)',
        };
      }
      return { status: "delivered", payload: defaultPayload(order) };
    });
    print(
      line(
        "reseller",
        `sandbox at ${sandbox.url}: sample catalogs, deposit ${balanceRub} RUB, delivery after ${deliveryDelayMs / 1000} s, signed webhooks`,
      ),
    );
    checkAborted();

    // The payment pages open in the customer's browser, like the web chat: same address, any free port.
    const pageHost =
      host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
    const yookassaPort = await freePort(host);
    const yookassa = await startYooKassaSandbox({
      port: yookassaPort,
      host,
      shopId: yookassaShopId,
      secretKey: yookassaSecret,
      notificationUrl: `${httpUrl}/webhooks/yookassa`,
      publicUrl: `http://${pageHost}:${yookassaPort}`,
    });
    cleanups.push(() => yookassa.close());
    print(
      line(
        "yookassa",
        `sandbox at ${yookassa.url}: payment pages at http://${pageHost}:${yookassaPort}/pay/<id>, notifications to the bot`,
      ),
    );
    const cryptopayPort = await freePort(host);
    const cryptopay = await startCryptoPaySandbox({
      port: cryptopayPort,
      host,
      token: cryptopayToken,
      webhookUrl: `${httpUrl}/webhooks/cryptopay`,
      publicUrl: `http://${pageHost}:${cryptopayPort}`,
    });
    cleanups.push(() => cryptopay.close());
    print(
      line(
        "cryptopay",
        `sandbox at ${cryptopay.url}: invoice pages at http://${pageHost}:${cryptopayPort}/invoice/<hash>, updates to the bot`,
      ),
    );
    checkAborted();

    const port = opts.port ?? DEFAULT_DEMO_PORT;
    let emulator: TelegramEmulator;
    try {
      emulator = await startTelegramEmulator({
        port,
        host,
        token: DEMO_BOT_TOKEN,
        botUsername: DEMO_BOT_USERNAME,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE") {
        throw new DemoError(
          `port ${port} is already in use: set DEMO_PORT to another port (0 = any free port)`,
        );
      }
      throw new DemoError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    }
    cleanups.push(() => emulator.close());
    const url = `http://${pageHost}:${new URL(emulator.apiRoot).port}/`;
    print(line("telegram", `Bot API emulator and web chat at ${emulator.apiRoot} for @${DEMO_BOT_USERNAME}`));
    emulator
      .group({ ...DEMO_OPERATORS_GROUP, forum: true })
      .member({ id: operator.id, username: operator.username, firstName: operator.firstName });
    print(
      line(
        "group",
        `forum supergroup "${DEMO_OPERATORS_GROUP.title}" (id ${DEMO_OPERATORS_GROUP.id}) with @${operator.username}: the operators' alerts and support`,
      ),
    );
    checkAborted();

    let tsxLoader: string;
    try {
      tsxLoader = import.meta.resolve("tsx");
    } catch {
      throw new DemoError("tsx is not installed: run `npm ci` first");
    }
    const blank = Object.fromEntries(ENV_VARIABLES.map((name) => [name, ""]));
    const bot = startBotProcess({
      command: process.execPath,
      args: ["--import", tsxLoader, join(ROOT, "src", "main.ts")],
      cwd: ROOT,
      env: {
        ...(opts.baseEnv ?? process.env),
        // Every bot variable is set here, so neither the caller's environment nor a .env file changes the demo.
        ...blank,
        BOT_TOKEN: DEMO_BOT_TOKEN,
        TELEGRAM_API_ROOT: emulator.apiRoot,
        BOT_MODE: "polling",
        RESELLER_API_URL: sandbox.url,
        RESELLER_API_KEY: apiKey,
        RESELLER_WEBHOOK_SECRET: webhookSecret,
        PUBLIC_BASE_URL: DEMO_PUBLIC_BASE_URL,
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: String(httpPort),
        REDIS_URL: redis.url,
        REDIS_PREFIX: `shopbot-demo:${runId}:`,
        OPERATOR_IDS: String(operator.id),
        OPERATOR_CHAT_ID: String(DEMO_OPERATORS_GROUP.id),
        CHECKOUT: DEMO_CHECKOUT,
        YOOKASSA_SHOP_ID: yookassaShopId,
        YOOKASSA_SECRET_KEY: yookassaSecret,
        YOOKASSA_API_URL: yookassa.apiUrl,
        CRYPTOPAY_TOKEN: cryptopayToken,
        CRYPTOPAY_API_URL: cryptopay.apiUrl,
        LOG_LEVEL: "warn",
        ...opts.botEnv,
      },
      print,
    });
    cleanups.push(() => bot.stop());
    kills.push(() => bot.kill());
    print(
      line(
        "bot",
        `node --import tsx src/main.ts (pid ${bot.pid}): polling, checkout ${DEMO_CHECKOUT}, operator @${operator.username} (id ${operator.id}), webhooks at ${httpUrl}`,
      ),
    );
    await waitForBot(bot, httpUrl, emulator, opts.signal);
    print("");
    print(`Open ${url} — buy as the customer, then switch to the operator for /orders and /balance.`);
    print(
      `"Operators' group" shows ${DEMO_OPERATORS_GROUP.title} (it speaks DEFAULT_LOCALE, Russian unless set), one topic per kind of alert and per customer: buy for a recipient whose username starts with "fail" (e.g. @fail_test) and the alert lands in the failed deliveries topic with its buttons (Open order…); send /support and a message as the customer, then write in that customer's topic (or Reply to their message) and the customer gets "Support: …".`,
    );
    print(
      "Card or SBP and Crypto open the emulators' payment pages (Pay / Cancel); Stars are paid in the chat; the wallet pays once it holds money (/wallet → Top up on any of those rails, or an operator adds some: /wallet <customer id>, Adjust).",
    );
    print("Ctrl-C stops everything.");

    return {
      url,
      emulator,
      sandbox,
      yookassa,
      cryptopay,
      redisUrl: redis.url,
      botPid: bot.pid,
      botExited: bot.exited,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Reads the launcher's environment; returns the options or the problems found. */
export function demoOptionsFromEnv(
  env: Record<string, string | undefined>,
): DemoOptions | { errors: string[] } {
  const errors: string[] = [];
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  let port = DEFAULT_DEMO_PORT;
  const rawPort = value("DEMO_PORT");
  if (rawPort !== undefined) {
    port = Number(rawPort);
    if (!/^\d{1,5}$/.test(rawPort) || port > 65535)
      errors.push(`DEMO_PORT must be a port from 0 to 65535, got "${rawPort}"`);
  }
  const redisUrl = value("REDIS_URL");
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    errors.push("REDIS_URL must start with redis:// or rediss://");
  }
  if (errors.length > 0) return { errors };
  const botEnv: Record<string, string> = {};
  for (const name of DEMO_PASSTHROUGH_VARIABLES) {
    const v = value(name);
    if (v !== undefined) botEnv[name] = v;
  }
  return {
    port,
    host: value("DEMO_HOST") ?? "127.0.0.1",
    ...(redisUrl ? { redisUrl } : {}),
    botEnv,
  };
}

async function runFromCommandLine(): Promise<void> {
  const parsed = demoOptionsFromEnv(process.env);
  if ("errors" in parsed) {
    console.error(`Demo: bad configuration:\n  ${parsed.errors.join("\n  ")}`);
    process.exit(1);
  }
  const abort = new AbortController();
  let demo: Demo | undefined;
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt > 0) {
      // npm and tsx each pass a terminal's Ctrl-C on, so one press can arrive two or three times at once.
      if (Date.now() - firstSignalAt < DUPLICATE_SIGNAL_MS) return;
      console.error(`Demo: ${signal} again, exiting at once`);
      process.exit(1); // the "exit" hook kills the children
    }
    firstSignalAt = Date.now();
    abort.abort();
    if (!demo) return; // start-up notices the abort and cleans up
    console.log(`\nStopping the demo (${signal})…`);
    demo.stop().then(
      () => {
        console.log(
          "Demo stopped: the bot, the emulators and Redis are down and the temporary data is removed.",
        );
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`Demo: error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);

  try {
    demo = await startDemo({ ...parsed, signal: abort.signal });
  } catch (error) {
    if (abort.signal.aborted) {
      console.log("Demo stopped during start-up.");
      process.exit(0);
    }
    const message = error instanceof DemoError ? error.message : `${(error as Error).stack ?? String(error)}`;
    console.error(`Demo could not start: ${message}`);
    process.exit(1);
  }
  const running = demo;
  void running.botExited.then(({ code, signal }) => {
    if (abort.signal.aborted) return;
    console.error(`Demo: the bot exited unexpectedly (${signal ?? `exit code ${code}`}); stopping the demo.`);
    void running.stop().finally(() => process.exit(1));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void runFromCommandLine();
}
