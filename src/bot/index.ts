import { limit } from "@grammyjs/ratelimiter";
import { sequentialize } from "@grammyjs/runner";
import { RedisAdapter } from "@grammyjs/storage-redis";
import { Bot, type Context, session } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import type { Redis } from "ioredis";
import { LOCALES } from "../config.js";
import { BanList } from "../customers/bans.js";
import { CustomerNotes } from "../customers/notes.js";
import { CustomerRegistry } from "../customers/registry.js";
import { Usernames } from "../customers/usernames.js";
import { Referrals } from "../referrals/referrals.js";
import { configureApi } from "./api.js";
import { CUSTOMER_COMMANDS, FLOW_KEEPING_COMMANDS } from "./commands.js";
import type { BotContext, BotDeps, CustomerRecords, SessionData } from "./context.js";
import { onError } from "./error-boundary.js";
import { broadcastFeature } from "./features/broadcast.js";
import { cancelFeature, cancelWaits } from "./features/cancel.js";
import { banGate, privateOnly, recordCustomer } from "./features/customer-gate.js";
import { customerOperatorFeature, forgetCustomerNote } from "./features/customer-operator.js";
import { customersFeature } from "./features/customers.js";
import { helpFeature } from "./features/help.js";
import { languageFeature } from "./features/language.js";
import { myOrdersFeature } from "./features/my-orders.js";
import { createOperatorFeature } from "./features/operator.js";
import { operatorExportFeature } from "./features/operator-export.js";
import { operatorPricesFeature } from "./features/operator-prices.js";
import { operatorPromoFeature } from "./features/operator-promo.js";
import { paymentsBeforeSession, paymentsFeature } from "./features/payments.js";
import { promoFeature } from "./features/promo.js";
import { referralsFeature } from "./features/referrals.js";
import { startFeature } from "./features/start.js";
import { supportFeature } from "./features/support.js";
import { topUpsFeature } from "./features/topups.js";
import { unhandledFeature } from "./features/unhandled.js";
import { forgetWalletInput, walletFeature } from "./features/wallet.js";
import { walletOperatorFeature } from "./features/wallet-operator.js";
import { FlatComposer } from "./flat-composer.js";
import { productFlows } from "./flows/dispatch.js";
import { createGameFlow } from "./flows/game.js";
import { createGiftFlow } from "./flows/gift.js";
import type { FlowDeps } from "./flows/kit.js";
import { createNeuralFlow } from "./flows/neural.js";
import { createPremiumFlow } from "./flows/premium.js";
import { createStarsFlow } from "./flows/stars.js";
import { createSteamFlow } from "./flows/steam.js";
import { createI18n, supportedLocale, translator } from "./i18n.js";
import { recordPolledPayments, trackUpdates } from "./lifecycle.js";
import { createLanguageMenu } from "./menus/language.js";
import { OperatorChat } from "./operator-chat.js";
import { sessionKey } from "./redis-keys.js";
import { WriteWhenChanged } from "./storage.js";
import { SupportRelay } from "./support-relay.js";
import { SupportStore } from "./support-store.js";
import { TelegramHolds } from "./telegram-holds.js";
import { createTelegramTransport, type TelegramTransport } from "./telegram-transport.js";

/** Incoming updates one user may send per window before the rest are dropped. */
export const INCOMING_LIMIT = { updates: 12, windowMs: 4_000 };

const SESSION_TTL_SECONDS = 90 * 24 * 3600;

/** Per-chat key for sequential processing; chat-less updates (pre-checkout) are never held up. */
function sequentialKey(ctx: Context): string | undefined {
  if (ctx.preCheckoutQuery) return undefined;
  return ctx.chat?.id.toString();
}

/** Extra options of {@link createBot} for tests and tools. */
export interface CreateBotOptions {
  /** Skip getMe (tests that call `bot.handleUpdate` directly). */
  botInfo?: UserFromGetMe;
  /** The Bot API client (with Telegram's 429 holds), shared with the application's other Api; one is made here otherwise. */
  transport?: TelegramTransport;
  /** Incoming updates per user per window (default {@link INCOMING_LIMIT}). */
  incoming?: { updates: number; windowMs: number };
}

/** Builds the bot with every middleware installed; it is not started (see `startBot` in lifecycle.ts). */
export function createBot(given: BotDeps, opts: CreateBotOptions = {}): Bot<BotContext> {
  const { config, logger, redis } = given;
  const customers: CustomerRecords = given.customers ?? {
    usernames: new Usernames(redis, config.redisPrefix),
    bans: new BanList(redis, config.redisPrefix, { logger }),
    notes: new CustomerNotes(redis, config.redisPrefix),
  };
  // Referral bonuses are credited to the wallet: without one (or at 0 %) there is no programme.
  const referrals =
    given.referrals ??
    (config.referralPercent > 0 && given.wallet ? new Referrals(redis, config.redisPrefix) : undefined);
  const registry = given.registry ?? new CustomerRegistry(redis, config.redisPrefix, LOCALES);
  const deps: BotDeps = { ...given, customers, referrals, registry };
  const transport =
    opts.transport ?? createTelegramTransport(new TelegramHolds(redis, config.redisPrefix, logger), logger);
  const bot = new Bot<BotContext>(config.botToken, {
    botInfo: opts.botInfo,
    client: { apiRoot: config.telegramApiRoot, fetch: transport.fetch },
  });
  configureApi(bot.api, { metrics: deps.metrics, transport });
  // Payments are recorded as soon as a batch of updates arrives, before it can be confirmed.
  recordPolledPayments(bot.api, deps.orders);

  const i18n = createI18n(config);
  const flowDeps: FlowDeps = { config, logger, orders: deps.orders, catalog: deps.catalog, i18n };

  // Every update in progress, so stopping waits for them (the runner's stop does not).
  bot.use(trackUpdates(bot));
  bot.use((ctx, next) => {
    ctx.deps = deps;
    // grammY works out `msg`, `from` and `chat` from the update at every read, through a chain of
    // getters (a dozen kinds of update); the shop's filters read them some hundred times an
    // update. The update does not change, so each is worked out once here.
    Object.defineProperties(ctx, {
      msg: { value: ctx.msg },
      from: { value: ctx.from },
      chat: { value: ctx.chat },
    });
    // The update's child logger is made when something logs: most updates log nothing, and a
    // child (with its bindings and redaction) per update was a steady share of the garbage.
    let child: typeof logger | undefined;
    Object.defineProperty(ctx, "logger", {
      get: () => {
        child ??= logger.child({ update_id: ctx.update.update_id });
        return child;
      },
      set: (value: typeof logger) => {
        child = value;
      },
      configurable: true,
    });
    return next();
  });

  // Everything below runs as one flat list (see flat-composer.ts), inside the error boundary.
  const guarded = new FlatComposer<BotContext>();
  bot.errorBoundary(async (err) => {
    await onError(err, i18n, config);
  }, guarded);

  // Banned customers stop here (answered from a per-process copy of the ban list, no Redis call
  // per update); the username index behind /customer @name is written only when a name changed.
  guarded.use(banGate(customers, i18n, config));
  guarded.use(recordCustomer(customers));
  guarded.use(
    // Counted in this process's memory: a Redis counter would cost two commands per update, and
    // a customer's updates reach one process (polling) or a few (webhook behind a balancer).
    limit<BotContext, never>({
      storageClient: "MEMORY_STORE",
      timeFrame: (opts.incoming ?? INCOMING_LIMIT).windowMs,
      limit: (opts.incoming ?? INCOMING_LIMIT).updates,
      // Payments are never dropped.
      keyGenerator: (ctx) =>
        ctx.preCheckoutQuery || ctx.message?.successful_payment ? undefined : ctx.from?.id.toString(),
      onLimitExceeded: async (ctx) => {
        const t = translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
        if (ctx.callbackQuery)
          await ctx.answerCallbackQuery({ text: t("rate-limited") }).catch(() => undefined);
        // Not in another group: its members would read it, about messages never meant for the bot.
        else if (ctx.chat?.type === "private" || (ctx.chat && ctx.chat.id === config.operatorChatId))
          await ctx.reply(t("rate-limited")).catch(() => undefined);
      },
    }),
  );
  // Other chats than private ones and the operators' group get no shop (customer-gate.ts).
  guarded.use(privateOnly(i18n, config));
  guarded.use(sequentialize(sequentialKey));
  // A Pay tap and a payment, in the order's language: no session read (see payments.ts).
  guarded.use(paymentsBeforeSession(i18n));
  guarded.use(
    session<SessionData, BotContext>({
      initial: () => ({}),
      getSessionKey: (ctx) =>
        ctx.chat === undefined ? undefined : sessionKey(config.redisChatPrefix, ctx.chat.id),
      storage: new WriteWhenChanged(
        // The adapter only GETs, SETs and DELs one key at a time, which a Cluster does as well.
        new RedisAdapter<SessionData>({ instance: redis as Redis, ttl: SESSION_TTL_SECONDS }),
      ),
    }),
  );
  guarded.use(i18n.middleware());
  guarded.use(customersFeature(registry));
  guarded.use(cancelWaits());
  guarded.use(forgetWalletInput);
  guarded.use(forgetCustomerNote);
  // Flows live in chats: updates without one (pre-checkout queries) skip the flow state entirely.
  const inChat = (ctx: BotContext) => ctx.chatId !== undefined;
  const flows = productFlows(
    [
      createStarsFlow(),
      createPremiumFlow(),
      createGiftFlow(),
      createSteamFlow(),
      createNeuralFlow(),
      createGameFlow(),
    ],
    flowDeps,
  );
  guarded.use(flows.control);

  // Commands always work, even in the middle of a flow: /help, /orders, /language and /paysupport
  // answer beside it, the others leave it first (commands.ts FLOW_KEEPING_COMMANDS).
  const leaveFlows = new FlatComposer<BotContext>();
  leaveFlows.command([...CUSTOMER_COMMANDS], async (ctx, next) => {
    const command = ctx.message?.text?.slice(1).split(/[\s@]/, 1)[0]?.toLowerCase() ?? "";
    if (FLOW_KEEPING_COMMANDS.has(command)) ctx.flows.aside = true;
    else ctx.flows.leave();
    await next();
  });
  guarded.filter(inChat, leaveFlows);
  guarded.use(
    createOperatorFeature({
      config,
      logger,
      orders: deps.orders,
      reseller: deps.reseller,
    }),
  );
  guarded.use(operatorExportFeature({ config, logger, orders: deps.orders }));
  guarded.use(customerOperatorFeature({ config, logger, customers }));
  guarded.use(operatorPricesFeature({ config, logger, orders: deps.orders }));
  guarded.use(operatorPromoFeature({ config, logger, orders: deps.orders }));
  guarded.use(broadcastFeature({ config, logger }));

  guarded.filter(inChat, flows.run);

  const supportStore = new SupportStore(redis, config.redisPrefix);
  const group =
    config.operatorChatId === undefined
      ? undefined
      : new OperatorChat({
          api: bot.api,
          redis,
          chatId: config.operatorChatId,
          prefix: config.redisPrefix,
          logger,
        });
  guarded.use(
    supportFeature({
      config,
      store: supportStore,
      relay: new SupportRelay({
        api: bot.api,
        config,
        logger,
        redis,
        orders: deps.orders,
        i18n,
        store: supportStore,
        ...(group ? { group } : {}),
      }),
    }),
  );

  const languageMenu = createLanguageMenu();
  guarded.use(languageMenu);

  guarded.use(walletOperatorFeature({ config, logger }));
  guarded.use(promoFeature());
  guarded.use(walletFeature());
  guarded.use(startFeature());
  guarded.use(referralsFeature());
  guarded.use(topUpsFeature(i18n));
  guarded.use(paymentsFeature(i18n));
  guarded.use(myOrdersFeature());
  guarded.use(languageFeature(languageMenu));
  guarded.use(helpFeature());
  guarded.use(cancelFeature());
  guarded.use(unhandledFeature());

  bot.catch((err) => onError(err, i18n, config));
  return bot;
}
