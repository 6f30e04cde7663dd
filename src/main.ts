import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Api } from "grammy";
import { configureApi } from "./bot/api.js";
import { recordPayments } from "./bot/features/payments.js";
import { renderProgress } from "./bot/format/broadcast.js";
import { createI18n, translator } from "./bot/i18n.js";
import { createBot } from "./bot/index.js";
import { startBot } from "./bot/lifecycle.js";
import { createNotifier } from "./bot/notifier.js";
import { TelegramHolds } from "./bot/telegram-holds.js";
import { createTelegramTransport } from "./bot/telegram-transport.js";
import { type IntakeTimings, WebhookIntake } from "./bot/webhook-intake.js";
import { Broadcasts, type BroadcastsOptions } from "./broadcast/broadcasts.js";
import { createCatalogService } from "./catalog/service.js";
import { type Config, ConfigError, createConfig, LOCALES, secretsOf } from "./config.js";
import { CustomerRegistry } from "./customers/registry.js";
import { cryptopayWebhookHandler, yookassaWebhookHandler } from "./http/payment-webhooks.js";
import { resellerWebhookHandler } from "./http/reseller-webhook.js";
import { type Handler, type HttpServer, startHttpServer } from "./http/server.js";
import { telegramWebhookHandler } from "./http/telegram-webhook.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics } from "./metrics.js";
import { createOrdersEngine, type OrdersEngine } from "./orders/engine.js";
import type { ProviderRail } from "./orders/types.js";
import { GROUP_CHAT_INTERVAL_MS, type OutgoingPace } from "./outgoing/queue.js";
import { createPaymentRails } from "./payments/setup.js";
import { connectRedis, isReplicated, type RedisClient } from "./redis/connect.js";
import { ReplicaWait } from "./redis/replica-wait.js";
import { createResellerClient } from "./reseller/client.js";

export interface App {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  orders: OrdersEngine;
  /** Operators' broadcasts (their loop runs in every process). */
  broadcasts: Broadcasts;
  customers: CustomerRegistry;
  http: HttpServer;
  /** Stops intake, lets in-flight work finish (up to `timeoutMs`), closes the listener and Redis. */
  stop(timeoutMs?: number): Promise<void>;
  /**
   * Resolves (with the error, already logged) when the bot cannot go on taking updates: polling
   * ended for good, as when Telegram refuses the token. `npm start` then stops and exits 1.
   */
  failure: Promise<unknown>;
}

export interface AppOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: import("pino").DestinationStream;
  /** Pace of the outgoing queue (benchmarks lift it to measure the bot's own cost). */
  outgoingPace?: Partial<OutgoingPace>;
  /** Engine tuning for tests and drills. */
  engine?: {
    leaseMs?: number;
    idleDelayMs?: number;
    concurrency?: number;
    balanceCheckIntervalMs?: number;
    unreachableHoldMs?: number;
  };
  /** Webhook intake timings for tests and drills. */
  webhook?: Partial<IntakeTimings>;
  /** Broadcast tuning for tests and drills (window, loop and progress pauses). */
  broadcasts?: Pick<BroadcastsOptions, "window" | "tickMs" | "progressEveryMs" | "staleMs">;
}

/** The composition root: config → logger → redis → reseller → catalog → notifier → orders → bot → http. */
export async function startApp(env: Record<string, string | undefined>, opts: AppOptions = {}): Promise<App> {
  const config = createConfig(env);
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) }, opts.logDestination);
  const redis = connectRedis(config, logger);

  let orders: OrdersEngine | undefined;
  const metrics = createMetrics({
    queueDepth: () => orders?.queueDepth() ?? Promise.resolve(0),
    outgoingDepth: () => orders?.outgoingDepth() ?? Promise.resolve(0),
  });
  const reseller = createResellerClient({
    baseUrl: config.resellerApiUrl,
    apiKey: config.resellerApiKey,
    logger,
    onRequest: ({ endpoint, status, durationMs, error }) => {
      metrics.resellerLatency.observe({ endpoint, status: String(status ?? 0) }, durationMs / 1000);
      if (error || (status ?? 0) >= 400) metrics.resellerErrors.inc({ endpoint });
    },
  });
  const catalog = createCatalogService({ client: reseller, ttlSeconds: config.catalogTtlSeconds, logger });

  const holds = new TelegramHolds(redis, config.redisPrefix, logger);
  holds.start();
  const transport = createTelegramTransport(holds, logger);
  const notifierApi = new Api(config.botToken, { apiRoot: config.telegramApiRoot, fetch: transport.fetch });
  configureApi(notifierApi, { metrics, transport });
  const notifier = createNotifier({ api: notifierApi, config, logger, redis });

  const customers = new CustomerRegistry(redis, config.redisPrefix, LOCALES);
  const i18n = createI18n(config);
  const broadcasts = new Broadcasts({
    redis,
    prefix: config.redisPrefix,
    api: notifierApi,
    customers,
    log: logger.child({ component: "broadcast" }),
    renderProgress: (view) => renderProgress(view, translator(i18n, view.record.progress.locale)),
    kick: () => orders?.kickOutgoing(),
    ...opts.broadcasts,
  });

  const replicaWait = isReplicated(config) ? new ReplicaWait(redis, logger) : undefined;
  // The customer comes back to the bot's chat after paying on a provider's page.
  let botLink = "https://t.me";
  const rails = createPaymentRails(config, { redis, logger, replicaWait, returnUrl: () => botLink });
  orders = createOrdersEngine({
    redis,
    prefix: config.redisPrefix,
    replicaWait,
    reseller,
    notifier,
    gateways: rails.gateways,
    wallet: rails.wallet,
    logger,
    config,
    ...opts.engine,
    // Alerts into one operators' group go at a group's pace.
    pace: config.operatorChatId
      ? { operatorsIntervalMs: GROUP_CHAT_INTERVAL_MS, ...opts.outgoingPace }
      : opts.outgoingPace,
    retention: { days: config.orderRetentionDays, dir: config.archiveDir },
    broadcasts,
    hooks: {
      onTransition: (order) =>
        metrics.orderTransitions.inc({ state: order.state, product: order.item.product }),
      onJob: (type, outcome) => metrics.jobs.inc({ type, outcome }),
    },
  });
  const ordersService = orders;

  const bot = createBot(
    {
      config,
      logger,
      redis,
      orders: ordersService,
      reseller,
      catalog,
      metrics,
      wallet: rails.wallet,
      registry: customers,
      broadcasts,
    },
    { transport },
  );
  const intake =
    config.botMode === "webhook"
      ? new WebhookIntake({ redis, prefix: config.redisPrefix, receiver: bot, logger, timings: opts.webhook })
      : undefined;
  const http = await startHttpServer({
    host: config.httpHost,
    port: config.httpPort,
    logger,
    resellerWebhook: resellerWebhookHandler({
      secret: config.resellerWebhookSecret,
      logger,
      onDeliveryHint: (id) => ordersService.onDeliveryHint(id),
      onOutcome: (outcome) => metrics.webhookRequests.inc({ outcome }),
    }),
    ...paymentWebhooks(config, logger, async (rail, id) => {
      const status = await ordersService.onPaymentHint(rail, id);
      // A top-up's payment comes back unapplied: the wallet's top-ups take it.
      if (status?.subject?.kind === "topup") await ordersService.topups?.applyStatus(status);
      return status;
    }),
    telegramWebhook: intake
      ? telegramWebhookHandler(intake, config, (updates) => recordPayments(ordersService, updates))
      : undefined,
    // A Redis that is reconnecting is not ready; one that does not answer at once is not either
    // (the listener bounds the wait).
    ready: async () => redis.status === "ready" && (await redis.ping()) === "PONG",
    metrics: () => metrics.render(),
  });

  ordersService.start();
  broadcasts.start();
  let onFailure: (err: unknown) => void = () => {};
  const failure = new Promise<unknown>((resolve) => {
    onFailure = resolve;
  });
  const botHandle = await startBot(bot, { config, logger, intake, onFailure });
  if (bot.isInited()) botLink = `https://t.me/${bot.botInfo.username}`;
  logger.info(
    { mode: config.botMode, checkout: config.checkout, http: http.url, products: config.products },
    "shop bot started",
  );

  let stopping: Promise<void> | undefined;
  return {
    config,
    logger,
    redis,
    orders: ordersService,
    broadcasts,
    customers,
    http,
    failure,
    stop(timeoutMs = 10_000) {
      stopping ??= (async () => {
        logger.info("shutting down");
        await botHandle.stop().catch((err) => logger.warn({ err }, "bot stop failed"));
        await broadcasts.stop();
        await ordersService.stop(timeoutMs);
        await http.close();
        // Jobs had their time above and unfinished ones were handed back: a reseller call still
        // hanging (a retry started late in the grace period) is not waited for.
        await Promise.race([
          reseller.close().catch(() => {}),
          new Promise<void>((resolve) => setTimeout(resolve, 500).unref()),
        ]);
        await rails.close();
        await holds.stop();
        await transport.close();
        await redis.quit().catch(() => redis.disconnect());
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}

/** The provider notification routes of the rails CHECKOUT offers. */
function paymentWebhooks(
  config: Config,
  logger: Logger,
  onHint: (rail: ProviderRail, paymentId: string) => Promise<unknown>,
): { yookassaWebhook?: Handler; cryptopayWebhook?: Handler } {
  return {
    yookassaWebhook: config.checkout.includes("yookassa")
      ? yookassaWebhookHandler({ logger, onHint })
      : undefined,
    cryptopayWebhook: config.checkout.includes("cryptopay")
      ? cryptopayWebhookHandler({ logger, onHint, token: config.cryptopayToken })
      : undefined,
  };
}

/** `npm start`: environment (plus .env when present) → running bot; SIGTERM/SIGINT stop it cleanly. */
/**
 * V8 lets the heap grow to a multiple of what survived the last full collection before it
 * collects again; in a rush that multiple (up to 4×) let short-lived objects pile up in old space
 * and doubled the process's memory. 1.5× keeps the heap near what is live, for a few percent of
 * CPU (BENCHMARKS.md). `node --heap-growing-percent=…` on the command line still wins.
 */
const HEAP_GROWING_PERCENT = 50;

async function runFromCommandLine(): Promise<void> {
  if (!process.execArgv.some((a) => a.startsWith("--heap-growing-percent"))) {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
  try {
    process.loadEnvFile?.(".env");
  } catch {
    // No .env file: the environment alone configures the bot.
  }
  let app: App;
  try {
    app = await startApp(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      app.logger.warn({ signal }, "second signal: exiting at once");
      process.exit(1);
    }
    app.logger.info({ signal }, "signal received");
    app.stop(10_000).then(
      () => process.exit(0),
      (err) => {
        app.logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  void app.failure.then(() => app.stop(10_000).finally(() => process.exit(1)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void runFromCommandLine();
}
