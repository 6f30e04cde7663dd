import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { type ResellerSandbox, startResellerSandbox } from "../../sandbox/reseller/server.js";
import type { Config } from "../../src/config.js";
import { resellerWebhookHandler, type WebhookOutcome } from "../../src/http/reseller-webhook.js";
import { type HttpServer, startHttpServer } from "../../src/http/server.js";
import { createLogger, type Logger } from "../../src/logger.js";
import {
  createOrdersEngine,
  type EngineConfig,
  type OrdersEngine,
  type OrdersEngineOptions,
} from "../../src/orders/engine.js";
import type { Customer, Notifier, Order, OrderItem } from "../../src/orders/types.js";
import { outgoingKeys } from "../../src/outgoing/queue.js";
import type { PaymentGateways } from "../../src/payments/gateway.js";
import type { RedisClient } from "../../src/redis/connect.js";
import type { ReplicaWait } from "../../src/redis/replica-wait.js";
import { createResellerClient } from "../../src/reseller/client.js";
import type { ResellerClient } from "../../src/reseller/types.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import { RecordingNotifier } from "./recording-notifier.js";
import { testRedis, uniquePrefix } from "./redis.js";

export const API_KEY = "test-api-key-7f3a9c";
export const WEBHOOK_SECRET = "test-webhook-secret-41d2";
const PUBLIC_BASE = "https://shop.example.test";

export interface EngineHarness {
  redis: RedisClient;
  prefix: string;
  sandbox: ResellerSandbox;
  client: ResellerClient;
  http: HttpServer;
  notifier: RecordingNotifier;
  logger: Logger;
  logLines: string[];
  webhookOutcomes: WebhookOutcome[];
  /** The customers' wallets on this harness's Redis and prefix, given to every engine (with `wallet: true`). */
  wallet?: WalletLedger;
  engines: OrdersEngine[];
  /** The engine the webhook listener talks to (the first one). */
  engine: OrdersEngine;
  /** Starts another engine instance on the same Redis (another process, or a restart after a crash). */
  addEngine(overrides?: Partial<EngineConfig>): OrdersEngine;
  /**
   * Builds an engine on this harness's prefix, configuration and logger without starting or tracking
   * it; any of its connections may be swapped (a Redis connection or a client that fails on cue).
   */
  buildEngine(opts?: EngineParts): OrdersEngine;
  /** Messages about an order still waiting in the outgoing queue or being sent. */
  outgoingFor(orderId: string): Promise<number>;
  /** Stops an engine without any cleanup, as a killed process would. */
  crash(engine: OrdersEngine): void;
  close(): Promise<void>;
}

/** What `buildEngine` may take instead of the harness's own. */
export interface EngineParts {
  redis?: RedisClient;
  reseller?: ResellerClient;
  notifier?: Notifier;
  config?: Partial<EngineConfig>;
  leaseMs?: number;
  /** Jobs run at once, and delivery hints re-read at once, by the engine. */
  concurrency?: number;
  /** ORDER_RETENTION_DAYS and ARCHIVE_DIR: the engine's reads include the archive. */
  retention?: OrdersEngineOptions["retention"];
}

export interface HarnessOptions {
  webhooks?: boolean;
  checkout?: Config["checkout"];
  leaseMs?: number;
  config?: Partial<EngineConfig>;
  sandbox?: { balanceRub?: number; deliveryDelayMs?: number };
  /** Another Redis (a Sentinel set, a Cluster) and the key prefix to use on it; the harness quits it on close. */
  redis?: RedisClient;
  prefix?: string;
  replicaWait?: ReplicaWait;
  /** Give every engine the customers' wallets (put `wallet` in `checkout` to offer it). */
  wallet?: boolean;
  /** Payment gateways given to every engine (put their rails in `checkout` to offer them). */
  gateways?: PaymentGateways;
  /** The engines' clock (default Date.now). */
  now?: () => number;
  /** Jobs run at once, and delivery hints re-read at once, by each engine. */
  concurrency?: number;
}

export async function startEngineHarness(opts: HarnessOptions = {}): Promise<EngineHarness> {
  const redis = opts.redis ?? testRedis();
  const prefix = opts.prefix ?? uniquePrefix("engine");
  const logLines: string[] = [];
  const logger = createLogger(
    { level: "debug", secrets: [API_KEY, WEBHOOK_SECRET] },
    new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    }),
  );
  const notifier = new RecordingNotifier();
  const webhookOutcomes: WebhookOutcome[] = [];
  const engines: OrdersEngine[] = [];
  const http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    resellerWebhook: resellerWebhookHandler({
      secret: WEBHOOK_SECRET,
      logger,
      onDeliveryHint: (id) => engines[0]!.onDeliveryHint(id),
      onOutcome: (o) => webhookOutcomes.push(o),
    }),
    ready: async () => (await redis.ping()) === "PONG",
  });
  const sandbox = await startResellerSandbox({
    apiKey: API_KEY,
    webhookSecret: WEBHOOK_SECRET,
    balanceRub: opts.sandbox?.balanceRub ?? 1_000_000,
    deliveryDelayMs: opts.sandbox?.deliveryDelayMs ?? 30,
    webhookRetryDelayMs: 50,
    webhookRewrite: [{ from: PUBLIC_BASE, to: http.url }],
  });
  const client = createResellerClient({
    baseUrl: sandbox.url,
    apiKey: API_KEY,
    logger,
    retryBaseDelayMs: 10,
  });
  const engineConfig: EngineConfig = {
    checkout: opts.checkout ?? ["stars"],
    priceMarkupPercent: 10,
    starPriceRub: 1.5,
    quoteTtlSeconds: 900,
    pollIntervalSeconds: 0.1,
    trackingTimeoutHours: 24,
    lowBalanceRub: 1000,
    resellerCallbackUrl: opts.webhooks === false ? undefined : `${PUBLIC_BASE}/webhooks/reseller`,
    ...opts.config,
  };
  const wallet = opts.wallet ? new WalletLedger(redis, prefix, { replicaWait: opts.replicaWait }) : undefined;
  const crashed = new Set<OrdersEngine>();
  const buildEngine = (parts: EngineParts = {}) =>
    createOrdersEngine({
      redis: parts.redis ?? redis,
      prefix,
      reseller: parts.reseller ?? client,
      notifier: parts.notifier ?? notifier,
      wallet,
      gateways: opts.gateways,
      now: opts.now,
      logger,
      config: { ...engineConfig, ...parts.config },
      leaseMs: parts.leaseMs ?? opts.leaseMs ?? 2000,
      concurrency: parts.concurrency ?? opts.concurrency,
      retention: parts.retention,
      replicaWait: opts.replicaWait,
      idleDelayMs: 20,
      // Pacing is the outgoing queue's own tests' subject; here messages go as fast as they are made.
      pace: { globalPerSecond: 1000, chatPerSecond: 100 },
    });
  const addEngine = (overrides: Partial<EngineConfig> = {}) => {
    const engine = buildEngine({ config: overrides });
    engines.push(engine);
    engine.start();
    return engine;
  };
  addEngine();
  return {
    redis,
    prefix,
    sandbox,
    client,
    http,
    notifier,
    logger,
    logLines,
    webhookOutcomes,
    wallet,
    engines,
    get engine() {
      return engines[0]!;
    },
    addEngine,
    buildEngine,
    async outgoingFor(orderId) {
      const keys = outgoingKeys(prefix);
      const [queued, taken] = await Promise.all([
        redis.zrange(keys.queue, 0, -1),
        redis.zrange(keys.leases, 0, -1),
      ]);
      return [...queued, ...taken].filter((m) => m.endsWith(`:${orderId}`)).length;
    },
    crash(engine) {
      // Its loop stops at once; whatever it had claimed stays leased, as after kill -9.
      crashed.add(engine);
      void engine.stop(0);
    },
    async close() {
      await Promise.all(engines.filter((e) => !crashed.has(e)).map((e) => e.stop(2000)));
      await http.close();
      await sandbox.close();
      await client.close();
      await redis.quit();
    },
  };
}

let userSeq = 500_000;
export function newCustomer(locale: "ru" | "en" = "en"): Customer {
  userSeq += 1;
  return { userId: userSeq, chatId: userSeq, username: `buyer${userSeq}`, locale };
}

export function newOrderId(): string {
  return randomUUID();
}

/** One sample item per product kind, valid against the sandbox catalog. */
export function sampleItems(): Record<string, OrderItem> {
  return {
    stars: { kind: "stars", product: "stars", recipient: "durov_fan", quantity: 50 },
    premium: { kind: "premium", product: "premium_3m", recipient: "durov_fan" },
    steam: { kind: "steam", product: "steam", recipient: "gaben_login", quantity: 500 },
    gift: { kind: "gift", product: "gift", giftId: "5170145012310081615", recipient: "durov_fan" },
    neural: { kind: "neural", product: "neural", code: "chatgpt_plus_1m" },
    gameCodes: { kind: "game", product: "game", productRef: "pubg-ru-60", quantity: 2 },
    gameTopup: {
      kind: "game",
      product: "game",
      productRef: "pubg-global-60",
      quantity: 1,
      fields: { player_id: "5123456789" },
    },
  };
}

/**
 * Quotes the sample Stars item for a new customer on `engine` and pays it at once in XTR with
 * `chargeId`, through `payWith` (another engine on the same Redis) when given. Resolves to the quote.
 */
export async function quotePaidStars(
  engine: OrdersEngine,
  chargeId: string,
  payWith: OrdersEngine = engine,
): Promise<Order> {
  const customer = newCustomer();
  const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
  await payWith.markPaid(order.id, {
    userId: customer.userId,
    currency: "XTR",
    totalAmount: order.amount!,
    telegramChargeId: chargeId,
  });
  return order;
}
