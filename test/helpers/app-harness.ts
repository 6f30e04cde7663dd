import { Writable } from "node:stream";
import { type CryptoPaySandbox, startCryptoPaySandbox } from "../../sandbox/cryptopay/server.js";
import {
  type ResellerSandbox,
  type SandboxOptions,
  startResellerSandbox,
} from "../../sandbox/reseller/server.js";
import {
  type ChatMessage,
  type ChatUser,
  startTelegramEmulator,
  type TelegramEmulator,
} from "../../sandbox/telegram/index.js";
import { startYooKassaSandbox, type YooKassaSandbox } from "../../sandbox/yookassa/server.js";
import { type App, type AppOptions, startApp } from "../../src/main.js";
import { freePort } from "./private-redis.js";
import { testRedisUrl, uniquePrefix } from "./redis.js";

/** A token in Telegram's shape; the emulator accepts only this one. */
export const APP_BOT_TOKEN = "123456789:AAAppHarnessToken_0123456789abcdefgh";
export const APP_API_KEY = "app-harness-api-key-5c1e77";
export const APP_WEBHOOK_SECRET = "app-harness-webhook-secret-9b7d21";
export const APP_OPERATOR_ID = 7_000_001;
export const APP_YOOKASSA_SHOP_ID = "506751";
export const APP_YOOKASSA_SECRET = "test_app-harness-yookassa-secret-4f2a";
export const APP_CRYPTOPAY_TOKEN = "12345:AAapp-harness-cryptopay-token-8d1c";
/** The public https address the sandbox's webhooks are addressed to; it rewrites them to the app's listener. */
export const APP_PUBLIC_BASE = "https://shop.example.test";

/** The reseller sandbox and the Telegram emulator, plus the environment that points an app at them. */
export interface AppBackends {
  sandbox: ResellerSandbox;
  telegram: TelegramEmulator;
  /** YooKassa and Crypto Pay emulators, notifying the app's listener (used when CHECKOUT offers them). */
  yookassa: YooKassaSandbox;
  cryptopay: CryptoPaySandbox;
  /** Environment for `startApp` or for `src/main.ts` in a child process. */
  env: Record<string, string>;
  /** http://127.0.0.1:<HTTP_PORT>: where the app's listener will be. */
  listenerUrl: string;
  /** Every secret value in `env`, for log scans. */
  secrets: string[];
  close(): Promise<void>;
}

export interface BackendOptions {
  sandbox?: Partial<Omit<SandboxOptions, "apiKey" | "webhookSecret" | "webhookRewrite">>;
  /** Webhook intake timings of the app (startAppHarness only). */
  webhook?: AppOptions["webhook"];
  /** Engine tuning of the app (startAppHarness only). */
  engine?: AppOptions["engine"];
  /** Broadcast tuning of the app (startAppHarness only). */
  broadcasts?: AppOptions["broadcasts"];
}

/**
 * Starts the reseller sandbox (signed webhooks to PUBLIC_BASE_URL, rewritten to the app's port) and
 * the Telegram emulator, and builds the environment of an app using them on the private test Redis
 * under a fresh prefix.
 */
export async function startAppBackends(
  envOverrides: Record<string, string> = {},
  opts: BackendOptions = {},
): Promise<AppBackends> {
  const port = envOverrides.HTTP_PORT ? Number(envOverrides.HTTP_PORT) : await freePort();
  const listenerUrl = `http://127.0.0.1:${port}`;
  const sandbox = await startResellerSandbox({
    balanceRub: 1_000_000,
    deliveryDelayMs: 50,
    webhookRetryDelayMs: 100,
    ...opts.sandbox,
    apiKey: APP_API_KEY,
    webhookSecret: APP_WEBHOOK_SECRET,
    webhookRewrite: [{ from: APP_PUBLIC_BASE, to: listenerUrl }],
  });
  const telegram = await startTelegramEmulator({ token: APP_BOT_TOKEN });
  const yookassa = await startYooKassaSandbox({
    shopId: APP_YOOKASSA_SHOP_ID,
    secretKey: APP_YOOKASSA_SECRET,
    notificationUrl: `${listenerUrl}/webhooks/yookassa`,
    notificationRetryDelayMs: 100,
  });
  const cryptopay = await startCryptoPaySandbox({
    token: APP_CRYPTOPAY_TOKEN,
    webhookUrl: `${listenerUrl}/webhooks/cryptopay`,
    webhookRetryDelayMs: 100,
  });
  const env: Record<string, string> = {
    BOT_TOKEN: APP_BOT_TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    RESELLER_API_URL: sandbox.url,
    RESELLER_API_KEY: APP_API_KEY,
    RESELLER_WEBHOOK_SECRET: APP_WEBHOOK_SECRET,
    PUBLIC_BASE_URL: APP_PUBLIC_BASE,
    OPERATOR_IDS: String(APP_OPERATOR_ID),
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: uniquePrefix("app"),
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: String(port),
    POLL_INTERVAL_SECONDS: "0.2",
    DEFAULT_LOCALE: "en",
    LOG_LEVEL: "silent",
    YOOKASSA_SHOP_ID: APP_YOOKASSA_SHOP_ID,
    YOOKASSA_SECRET_KEY: APP_YOOKASSA_SECRET,
    YOOKASSA_API_URL: yookassa.apiUrl,
    CRYPTOPAY_TOKEN: APP_CRYPTOPAY_TOKEN,
    CRYPTOPAY_API_URL: cryptopay.apiUrl,
    ...envOverrides,
  };
  const secrets = [
    env.BOT_TOKEN,
    env.RESELLER_API_KEY,
    env.RESELLER_WEBHOOK_SECRET,
    env.BOT_WEBHOOK_SECRET,
    env.YOOKASSA_SECRET_KEY,
    env.CRYPTOPAY_TOKEN,
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
  return {
    sandbox,
    telegram,
    yookassa,
    cryptopay,
    env,
    listenerUrl,
    secrets,
    async close() {
      await telegram.close();
      await sandbox.close();
      await yookassa.close();
      await cryptopay.close();
    },
  };
}

/** The whole shop in this process: backends plus the app as `src/main.ts` composes it. */
export interface AppHarness extends AppBackends {
  app: App;
  /** Log lines the app wrote (at LOG_LEVEL, "silent" unless overridden). */
  logLines: string[];
}

export async function startAppHarness(
  envOverrides: Record<string, string> = {},
  opts: BackendOptions = {},
): Promise<AppHarness> {
  const backends = await startAppBackends(envOverrides, opts);
  const logLines: string[] = [];
  let app: App;
  try {
    app = await startApp(backends.env, {
      logDestination: new Writable({
        write(chunk, _enc, cb) {
          logLines.push(String(chunk));
          cb();
        },
      }),
      engine: { leaseMs: 5_000, idleDelayMs: 20, ...opts.engine },
      ...(opts.webhook ? { webhook: opts.webhook } : {}),
      ...(opts.broadcasts ? { broadcasts: opts.broadcasts } : {}),
    });
  } catch (err) {
    await backends.close();
    throw err;
  }
  return {
    ...backends,
    app,
    logLines,
    async close() {
      await app.stop(2_000);
      await backends.close();
    },
  };
}

let nextCustomerId = 610_000_000;

/** A new simulated customer (English, with a username, so "To myself" is offered). */
export function newAppCustomer(telegram: TelegramEmulator): ChatUser {
  nextCustomerId += 1;
  return telegram.user({ id: nextCustomerId, username: `buyer_${nextCustomerId}`, languageCode: "en" });
}

/** The final "delivered" message of an order (English texts). */
export const DELIVERED = /Order #\S+ delivered/;

/**
 * Walks a customer through the Stars flow up to the order card: /start → Telegram Stars → `stars` ⭐
 * (a preset button) → to myself. Resolves with the card: the quote is made, nothing is paid.
 */
export async function starsCard(customer: ChatUser, stars = 50): Promise<ChatMessage> {
  await customer.sendText("/start");
  await customer.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
  await customer.pressButton(`${stars} ⭐`, { timeoutMs: 10_000 });
  await customer.pressButton(/^🙋 To myself/, { timeoutMs: 10_000 });
  return customer.waitForBotMessage(/Order #/, 10_000);
}

/**
 * Walks a customer through the Stars flow: the card for 50 Stars (`starsCard`), then Pay. Resolves
 * once the invoice is shown (the customer has not paid yet).
 */
export async function quoteStars(customer: ChatUser): Promise<ChatMessage> {
  await starsCard(customer);
  await customer.pressButton(/^💳 Pay/, { timeoutMs: 10_000 });
  const [invoice] = await customer.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), 10_000);
  return customer.messages().find((m) => m.invoice !== undefined) ?? invoice!;
}

/** Quotes 50 Stars, pays the invoice and waits for the final "delivered" message. */
export async function buyStars(customer: ChatUser): Promise<ChatMessage> {
  await quoteStars(customer);
  const paid = await customer.payInvoice({ timeoutMs: 10_000 });
  if (!paid.ok) throw new Error(`the invoice was not accepted: ${paid.error}`);
  return customer.waitForBotMessage(DELIVERED, 20_000);
}

/** The invoice payload names the order: its custom_id. */
export function orderIdOf(invoice: ChatMessage): string {
  const id = invoice.invoice?.payload;
  if (!id) throw new Error("the message is not an invoice");
  return id;
}
