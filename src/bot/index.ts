import { autoRetry } from "@grammyjs/auto-retry";
import { conversations, createConversation } from "@grammyjs/conversations";
import { limit } from "@grammyjs/ratelimiter";
import { run, sequentialize } from "@grammyjs/runner";
import { RedisAdapter } from "@grammyjs/storage-redis";
import { type Api, Bot, type BotError, Composer, type Context, session } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { OrderStore } from "../orders/store.js";
import { registerCommands } from "./commands.js";
import type { BotContext, BotDeps, FlowContext, SessionData } from "./context.js";
import { createGameFlow, GAME_FLOW } from "./conversations/game.js";
import { createGiftFlow, GIFT_FLOW } from "./conversations/gift.js";
import { FLOWS_VERSION, type FlowDeps } from "./conversations/kit.js";
import { createNeuralFlow, NEURAL_FLOW } from "./conversations/neural.js";
import { createPremiumFlow, PREMIUM_FLOW } from "./conversations/premium.js";
import { createStarsFlow, STARS_FLOW } from "./conversations/stars.js";
import { createSteamFlow, STEAM_FLOW } from "./conversations/steam.js";
import { cancelFeature } from "./features/cancel.js";
import { helpFeature } from "./features/help.js";
import { languageFeature } from "./features/language.js";
import { myOrdersFeature } from "./features/my-orders.js";
import { createOperatorFeature } from "./features/operator.js";
import { paymentsFeature, recordPayments } from "./features/payments.js";
import { startFeature } from "./features/start.js";
import { unhandledFeature } from "./features/unhandled.js";
import { createI18n, supportedLocale, translator } from "./i18n.js";
import { createLanguageMenu } from "./menus/language.js";
import {
  createOutgoingLimiter,
  isLimitedFetch,
  limitedFetch,
  type OutgoingLimits,
  outgoingLimiterTransformer,
} from "./outgoing-limiter.js";

export type { BotContext, BotDeps } from "./context.js";
export { createNotifier } from "./notifier.js";

/** Updates the bot asks Telegram for. */
export const ALLOWED_UPDATES = ["message", "callback_query", "pre_checkout_query"] as const;

/** Incoming updates one user may send per window before the rest are dropped. */
export const INCOMING_LIMIT = { updates: 12, windowMs: 4_000 };

/** An abandoned flow is left when the customer comes back after this long. */
export const FLOW_IDLE_MS = 6 * 3600 * 1000;

const SESSION_TTL_SECONDS = 90 * 24 * 3600;
const CONVERSATION_TTL_SECONDS = 7 * 24 * 3600;

const AUTO_RETRY = { maxRetryAttempts: 5, maxDelaySeconds: 120 };

/**
 * Installs @grammyjs/auto-retry (429 `retry_after`, 5xx, network errors) and the Redis-backed
 * outgoing limiter on an Api. Used for `bot.api` and the notifier's Api. An Api whose client
 * already limits at the HTTP level (the bot's own, see `limitedFetch`) only gets auto-retry.
 */
export function configureApi(
  api: Api,
  deps: { redis: Redis; config: Config; logger: Logger; metrics?: Metrics; limits?: Partial<OutgoingLimits> },
): void {
  if (!isLimitedFetch(api.options?.fetch)) {
    const limiter = createOutgoingLimiter({
      redis: deps.redis,
      prefix: deps.config.redisPrefix,
      logger: deps.logger,
      limits: deps.limits,
    });
    api.config.use(outgoingLimiterTransformer(limiter));
  }
  const metrics = deps.metrics;
  if (metrics) {
    api.config.use(async (prev, method, payload, signal) => {
      const res = await prev(method, payload, signal);
      if (!res.ok && res.error_code === 429) metrics.telegram429.inc({ method });
      return res;
    });
  }
  // Installed last, so it is outermost: every retry waits for the limiter again.
  api.config.use(autoRetry(AUTO_RETRY));
}

/** Per-chat key for sequential processing; chat-less updates (pre-checkout) are never held up. */
function sequentialKey(ctx: Context): string | undefined {
  if (ctx.preCheckoutQuery) return undefined;
  return ctx.chat?.id.toString();
}

/** Extra options of {@link createBot} for tests and tools. */
export interface CreateBotOptions {
  /** Skip getMe (tests that call `bot.handleUpdate` directly). */
  botInfo?: UserFromGetMe;
  limits?: Partial<OutgoingLimits>;
  /** Incoming updates per user per window (default {@link INCOMING_LIMIT}). */
  incoming?: { updates: number; windowMs: number };
}

/** Builds the bot with every middleware installed; it is not started (see {@link startBot}). */
export function createBot(deps: BotDeps, opts: CreateBotOptions = {}): Bot<BotContext> {
  const { config, logger, redis } = deps;
  const limiter = createOutgoingLimiter({ redis, prefix: config.redisPrefix, logger, limits: opts.limits });
  const bot = new Bot<BotContext>(config.botToken, {
    botInfo: opts.botInfo,
    client: { apiRoot: config.telegramApiRoot, fetch: limitedFetch(limiter) },
  });
  configureApi(bot.api, { redis, config, logger, metrics: deps.metrics, limits: opts.limits });
  // Payments are recorded as soon as a batch of updates arrives, before it can be confirmed.
  bot.api.config.use(async (prev, method, payload, signal) => {
    const res = await prev(method, payload, signal);
    if (method === "getUpdates" && res.ok) {
      await recordPayments(deps.orders, res.result as Update[]);
    }
    return res;
  });

  const i18n = createI18n(config);
  const flowDeps: FlowDeps = { config, logger, orders: deps.orders, catalog: deps.catalog, i18n };

  // Every update in progress, so stopping waits for them (the runner's stop does not).
  const active = new Set<Promise<void>>();
  inFlight.set(bot, active);
  bot.use(async (_ctx, next) => {
    const p = next();
    active.add(p);
    try {
      await p;
    } finally {
      active.delete(p);
    }
  });
  bot.use((ctx, next) => {
    ctx.deps = deps;
    ctx.logger = logger.child({ update_id: ctx.update.update_id });
    return next();
  });

  const guarded = bot.errorBoundary(async (err) => {
    await onError(err, i18n, config);
  });

  guarded.use(
    limit<BotContext, Redis>({
      timeFrame: (opts.incoming ?? INCOMING_LIMIT).windowMs,
      limit: (opts.incoming ?? INCOMING_LIMIT).updates,
      storageClient: redis,
      keyPrefix: `${config.redisPrefix}ratelimit:`,
      // Payments are never dropped.
      keyGenerator: (ctx) =>
        ctx.preCheckoutQuery || ctx.message?.successful_payment ? undefined : ctx.from?.id.toString(),
      onLimitExceeded: async (ctx) => {
        const t = translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
        if (ctx.callbackQuery)
          await ctx.answerCallbackQuery({ text: t("rate-limited") }).catch(() => undefined);
        else if (ctx.chat) await ctx.reply(t("rate-limited")).catch(() => undefined);
      },
    }),
  );
  guarded.use(sequentialize(sequentialKey));
  guarded.use(
    session<SessionData, BotContext>({
      initial: () => ({}),
      getSessionKey: (ctx) => ctx.chat?.id.toString(),
      prefix: `${config.redisPrefix}session:`,
      storage: new RedisAdapter<SessionData>({ instance: redis, ttl: SESSION_TTL_SECONDS }),
    }),
  );
  guarded.use(i18n.middleware());
  guarded.use(
    conversations<BotContext, FlowContext>({
      storage: {
        type: "key",
        version: FLOWS_VERSION,
        getStorageKey: (ctx) =>
          ctx.chatId === undefined ? undefined : `${config.redisPrefix}conv:${ctx.chatId}`,
        adapter: new RedisAdapter({ instance: redis, ttl: CONVERSATION_TTL_SECONDS }),
      },
      // Api objects inside conversations are built from the client options (limited fetch)
      // without bot.api's transformers: retries are installed here.
      plugins: [
        async (ctx, next) => {
          ctx.api.config.use(autoRetry(AUTO_RETRY));
          await next();
        },
      ],
    }),
  );

  // Commands always work, even in the middle of a flow: they leave it first.
  const leaveFlows = new Composer<BotContext>();
  leaveFlows.command(["start", "cancel", "orders", "language", "help", "paysupport"], async (ctx, next) => {
    if (Object.keys(ctx.conversation.active()).length > 0) await ctx.conversation.exitAll();
    await next();
  });
  guarded.use(leaveFlows);
  guarded.use(
    createOperatorFeature({
      config,
      logger,
      orders: deps.orders,
      reseller: deps.reseller,
      store: new OrderStore(redis, config.redisPrefix),
    }),
  );

  const flows = [
    [STARS_FLOW, createStarsFlow(flowDeps)],
    [PREMIUM_FLOW, createPremiumFlow(flowDeps)],
    [GIFT_FLOW, createGiftFlow(flowDeps)],
    [STEAM_FLOW, createSteamFlow(flowDeps)],
    [NEURAL_FLOW, createNeuralFlow(flowDeps)],
    [GAME_FLOW, createGameFlow(flowDeps)],
  ] as const;
  for (const [id, builder] of flows) {
    guarded.use(
      createConversation<BotContext, FlowContext>(builder, { id, maxMillisecondsToWait: FLOW_IDLE_MS }),
    );
  }

  const languageMenu = createLanguageMenu();
  guarded.use(languageMenu);

  guarded.use(startFeature());
  guarded.use(paymentsFeature(i18n));
  guarded.use(myOrdersFeature());
  guarded.use(languageFeature(languageMenu));
  guarded.use(helpFeature());
  guarded.use(cancelFeature());
  guarded.use(unhandledFeature());

  bot.catch((err) => onError(err, i18n, config));
  return bot;
}

async function onError(err: BotError<BotContext>, i18n: ReturnType<typeof createI18n>, config: Config) {
  const ctx = err.ctx;
  const log = ctx.logger ?? ctx.deps?.logger;
  log?.error({ err: err.error, update_id: ctx.update.update_id }, "update failed");
  const t =
    typeof ctx.t === "function"
      ? (key: string) => ctx.t(key)
      : translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
  try {
    if (ctx.callbackQuery) {
      // A button already answered (e.g. inside a flow) cannot be answered again: say it in the chat.
      const answered = await ctx.answerCallbackQuery({ text: t("error-generic") }).then(
        () => true,
        () => false,
      );
      if (!answered && ctx.chat) await ctx.reply(t("error-generic"));
    } else if (ctx.chat && ctx.message) await ctx.reply(t("error-generic"));
  } catch {
    // The customer cannot be told; the log has it.
  }
}

/** Updates being handled per bot, awaited (bounded) on stop. */
const inFlight = new WeakMap<object, Set<Promise<unknown>>>();
/** How long stopping waits for updates in progress. */
const STOP_GRACE_MS = 10_000;

async function drain(bot: object): Promise<void> {
  const pending = [...(inFlight.get(bot) ?? [])];
  if (pending.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(pending),
    new Promise((r) => {
      timer = setTimeout(r, STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Starts receiving updates: long polling through @grammyjs/runner, or (BOT_MODE=webhook)
 * registers the webhook; updates then arrive through the HTTP listener (src/http/telegram-webhook.ts).
 * Also registers the command lists.
 */
export async function startBot(
  bot: Bot<BotContext>,
  deps: { config: Config; logger: Logger },
): Promise<{ stop(): Promise<void> }> {
  const { config, logger } = deps;
  await bot.init();
  try {
    await registerCommands(bot.api, createI18n(config), config, logger);
  } catch (err) {
    logger.warn({ err }, "could not register commands");
  }
  if (config.botMode === "webhook") {
    await bot.api.setWebhook(config.botWebhookUrl ?? "", {
      secret_token: config.botWebhookSecret,
      allowed_updates: [...ALLOWED_UPDATES],
    });
    logger.info({ username: bot.botInfo.username }, "bot receiving updates by webhook");
    return {
      stop: () => drain(bot),
    };
  }
  await bot.api.deleteWebhook();
  const handle = run(bot, {
    runner: { fetch: { allowed_updates: [...ALLOWED_UPDATES] } },
  });
  logger.info({ username: bot.botInfo.username }, "bot polling for updates");
  return {
    async stop() {
      if (handle.isRunning()) await handle.stop();
      await handle.task();
      await drain(bot);
    },
  };
}
