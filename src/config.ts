import { z } from "zod";
import {
  baseUrl,
  ConfigError,
  enumOf,
  type HostPort,
  host,
  hostPortList,
  idList,
  number,
  optionalBaseUrl,
  optionalString,
  optionalUrl,
  requiredString,
  urlCredentials,
} from "./config-fields.js";
import { hashTagged } from "./redis/prefix.js";

export { ConfigError, type HostPort };

/** Product kinds a shop can enable through PRODUCTS. */
export const PRODUCT_KINDS = ["stars", "premium", "gift", "steam", "neural", "game"] as const;
export type ProductKind = (typeof PRODUCT_KINDS)[number];

/**
 * The ways a customer may pay (CHECKOUT lists those a shop offers, in the order of the card's
 * buttons): a Telegram Stars invoice, a Telegram payment-provider invoice in roubles, a YooKassa
 * payment link, a Crypto Pay invoice, the wallet in the bot, or no payment at all (`direct`).
 */
export const RAILS = ["stars", "invoice", "yookassa", "cryptopay", "wallet", "direct"] as const;
export type Rail = (typeof RAILS)[number];
/** @deprecated the one rail of a single-rail CHECKOUT; use {@link Rail}. */
export type CheckoutMode = Rail;

export const LOCALES = ["ru", "en"] as const;
export type Locale = (typeof LOCALES)[number];

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const envSchema = z
  .object({
    BOT_TOKEN: requiredString,
    TELEGRAM_API_ROOT: optionalBaseUrl(["http:", "https:"]).transform((v) =>
      (v ?? "https://api.telegram.org").replace(/\/+$/, ""),
    ),
    BOT_MODE: enumOf(["polling", "webhook"] as const, "polling"),
    BOT_WEBHOOK_URL: optionalUrl(["https:"]),
    BOT_WEBHOOK_SECRET: optionalString.pipe(
      z.union([
        z.undefined(),
        z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, {
          error: "must be 1-256 characters of A-Z, a-z, 0-9, _ and -",
        }),
      ]),
    ),
    RESELLER_API_URL: requiredString
      .pipe(baseUrl(["http:", "https:"]))
      .transform((v) => v.replace(/\/+$/, "")),
    RESELLER_API_KEY: requiredString,
    RESELLER_WEBHOOK_SECRET: optionalString,
    PUBLIC_BASE_URL: optionalBaseUrl(["https:"]).transform((v) => v?.replace(/\/+$/, "")),
    HTTP_HOST: host("0.0.0.0"),
    HTTP_PORT: number(8080, { int: true, min: 0, max: 65535 }),
    REDIS_URL: optionalUrl(["redis:", "rediss:"]).transform((v) => v ?? "redis://127.0.0.1:6379"),
    REDIS_PREFIX: optionalString.transform((v) => v ?? "shopbot:"),
    OPERATOR_IDS: idList("operator ids").refine((ids) => ids.length > 0, {
      error: "is required (comma-separated Telegram user ids)",
    }),
    OPERATOR_CHAT_ID: optionalString.transform((v, ctx) => {
      if (v === undefined) return undefined;
      // Group and supergroup ids are negative (supergroups: -100…); a user's private chat is not a group.
      if (!/^-\d{1,20}$/.test(v) || !Number.isSafeInteger(Number(v))) {
        ctx.addIssue({
          code: "custom",
          message: `must be a group chat id (a negative integer such as -1001234567890), got "${v}"`,
        });
        return z.NEVER;
      }
      return Number(v);
    }),
    CHECKOUT: optionalString.transform((v, ctx) => {
      if (v === undefined) return ["stars"] as Rail[];
      const parts = v
        .split(",")
        .map((p) => p.trim().toLowerCase())
        .filter(Boolean);
      const bad = parts.filter((p) => !(RAILS as readonly string[]).includes(p));
      const repeated = parts.filter((p, i) => parts.indexOf(p) !== i);
      const problems: string[] = [];
      if (parts.length === 0) problems.push(`must name at least one of ${RAILS.join(", ")}`);
      if (bad.length > 0)
        problems.push(`unknown rail ${bad.map((b) => `"${b}"`).join(", ")} (one of ${RAILS.join(", ")})`);
      if (repeated.length > 0) problems.push(`lists ${[...new Set(repeated)].join(", ")} more than once`);
      if (parts.includes("direct") && parts.length > 1)
        problems.push("direct (no payment) cannot be combined with other rails");
      if (problems.length > 0) {
        ctx.addIssue({ code: "custom", message: problems.join("; ") });
        return z.NEVER;
      }
      return parts as Rail[];
    }),
    PAYMENT_PROVIDER_TOKEN: optionalString,
    STAR_PRICE_RUB: number(1.5, { min: 0.01 }),
    ALLOWED_USER_IDS: idList("user ids"),
    PRICE_MARKUP_PERCENT: number(10, { min: 0, max: 1000 }),
    PRODUCTS: optionalString.transform((v, ctx) => {
      if (v === undefined) return [...PRODUCT_KINDS];
      const parts = [
        ...new Set(
          v
            .split(",")
            .map((p) => p.trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      const bad = parts.filter((p) => !(PRODUCT_KINDS as readonly string[]).includes(p));
      if (bad.length > 0 || parts.length === 0) {
        ctx.addIssue({
          code: "custom",
          message: `must be a comma-separated subset of ${PRODUCT_KINDS.join(",")}${bad.length ? `; unknown: ${bad.join(", ")}` : ""}`,
        });
        return z.NEVER;
      }
      return parts as ProductKind[];
    }),
    QUOTE_TTL_SECONDS: number(900, { int: true, min: 10 }),
    MAX_OPEN_QUOTES: number(3, { int: true, min: 1 }),
    POLL_INTERVAL_SECONDS: number(3, { min: 0.05, max: 3600 }),
    TRACKING_TIMEOUT_HOURS: number(24, { min: 0.001 }),
    CATALOG_TTL_SECONDS: number(30, { min: 0, max: 86400 }),
    LOW_BALANCE_RUB: number(1000, { min: 0 }),
    DEFAULT_LOCALE: enumOf(LOCALES, "ru"),
    SUPPORT_CONTACT: optionalString,
    LOG_LEVEL: enumOf(LOG_LEVELS, "info"),
    ORDER_RETENTION_DAYS: number(90, { int: true, min: 1, max: 36500 }),
    ARCHIVE_DIR: optionalString.transform((v, ctx) => {
      if (v === undefined) return "archive";
      if (v.includes("\0")) {
        ctx.addIssue({ code: "custom", message: "must be a directory path (no NUL characters)" });
        return z.NEVER;
      }
      return v;
    }),
    REDIS_SENTINELS: hostPortList,
    REDIS_SENTINEL_NAME: optionalString.transform((v) => v ?? "mymaster"),
    REDIS_CLUSTER_NODES: hostPortList,
    REDIS_PASSWORD: optionalString,
    YOOKASSA_SHOP_ID: optionalString,
    YOOKASSA_SECRET_KEY: optionalString,
    YOOKASSA_API_URL: optionalBaseUrl(["http:", "https:"]).transform((v) =>
      (v ?? "https://api.yookassa.ru/v3").replace(/\/+$/, ""),
    ),
    CRYPTOPAY_TOKEN: optionalString,
    CRYPTOPAY_API_URL: optionalBaseUrl(["http:", "https:"]).transform((v) =>
      (v ?? "https://pay.crypt.bot/api").replace(/\/+$/, ""),
    ),
    REFERRAL_PERCENT: number(0, { int: true, min: 0, max: 50 }),
  })
  .superRefine(
    (env, ctx) => {
      if (env.BOT_MODE === "webhook") {
        if (!env.BOT_WEBHOOK_URL)
          ctx.addIssue({
            code: "custom",
            path: ["BOT_WEBHOOK_URL"],
            message: "is required when BOT_MODE=webhook",
          });
        if (!env.BOT_WEBHOOK_SECRET)
          ctx.addIssue({
            code: "custom",
            path: ["BOT_WEBHOOK_SECRET"],
            message: "is required when BOT_MODE=webhook",
          });
      }
      // Every missing credential of every offered rail, named in the one message.
      const rails: readonly string[] = Array.isArray(env.CHECKOUT) ? env.CHECKOUT : [];
      const needs: [rail: Rail, variable: keyof typeof env][] = [
        ["invoice", "PAYMENT_PROVIDER_TOKEN"],
        ["yookassa", "YOOKASSA_SHOP_ID"],
        ["yookassa", "YOOKASSA_SECRET_KEY"],
        ["cryptopay", "CRYPTOPAY_TOKEN"],
      ];
      for (const [rail, variable] of needs) {
        if (rails.includes(rail) && !env[variable]) {
          ctx.addIssue({
            code: "custom",
            path: [variable],
            message: `is required when CHECKOUT contains ${rail}`,
          });
        }
      }
      if (env.REDIS_SENTINELS?.length && env.REDIS_CLUSTER_NODES?.length) {
        ctx.addIssue({
          code: "custom",
          path: ["REDIS_CLUSTER_NODES"],
          message: "cannot be set together with REDIS_SENTINELS (choose Sentinel or Cluster)",
        });
      }
      if (typeof env.REFERRAL_PERCENT === "number" && env.REFERRAL_PERCENT > 0 && !rails.includes("wallet")) {
        ctx.addIssue({
          code: "custom",
          path: ["REFERRAL_PERCENT"],
          message: "needs CHECKOUT to contain wallet (referral bonuses are credited to the wallet)",
        });
      }
      // `when`: these rules run even when single variables are bad, so one message names every problem.
    },
    { when: () => true },
  );

export interface Config {
  botToken: string;
  telegramApiRoot: string;
  botMode: "polling" | "webhook";
  botWebhookUrl: string | undefined;
  botWebhookSecret: string | undefined;
  resellerApiUrl: string;
  resellerApiKey: string;
  resellerWebhookSecret: string | undefined;
  publicBaseUrl: string | undefined;
  /** PUBLIC_BASE_URL + /webhooks/reseller when webhooks can be verified, else undefined (polling only). */
  resellerCallbackUrl: string | undefined;
  httpHost: string;
  httpPort: number;
  redisUrl: string;
  /**
   * Prefix of every key the orders engine, the outgoing queue and the Telegram holds use. In
   * cluster mode it carries a hash tag (`shopbot:` becomes `{shopbot}:`), so the keys the Lua
   * scripts touch together (an order, its indexes, the job schedule, the outgoing queue) all
   * hash to one slot; see src/redis/connect.ts.
   */
  redisPrefix: string;
  /**
   * Prefix of per-chat keys that are only ever read or written one at a time (sessions,
   * rate-limit counters): REDIS_PREFIX as given, so in cluster mode they spread over the nodes.
   */
  redisChatPrefix: string;
  operatorIds: number[];
  /** The operators' group: alerts and the support line go there instead of each operator's private chat. */
  operatorChatId: number | undefined;
  /** The rails offered on every order card, in order (never empty; `direct` only alone). */
  checkout: Rail[];
  paymentProviderToken: string | undefined;
  yookassaShopId: string | undefined;
  yookassaSecretKey: string | undefined;
  yookassaApiUrl: string;
  cryptopayToken: string | undefined;
  cryptopayApiUrl: string;
  starPriceRub: number;
  allowedUserIds: number[];
  priceMarkupPercent: number;
  products: ProductKind[];
  quoteTtlSeconds: number;
  /** Unpaid quotes (each a `create` at the reseller) one customer may hold at once. */
  maxOpenQuotes: number;
  pollIntervalSeconds: number;
  trackingTimeoutHours: number;
  catalogTtlSeconds: number;
  lowBalanceRub: number;
  defaultLocale: Locale;
  supportContact: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Orders final for longer than this many days go to the archive and leave Redis. */
  orderRetentionDays: number;
  /** Where the archive's month files (orders-YYYY-MM.jsonl) are written, relative to the working directory unless absolute. */
  archiveDir: string;
  /** Sentinels to ask for the primary (empty: not in Sentinel mode). */
  redisSentinels: HostPort[];
  redisSentinelName: string;
  /** Seed nodes of a Redis Cluster (empty: not in cluster mode). */
  redisClusterNodes: HostPort[];
  redisPassword: string | undefined;
  /** Share (whole percent, 0–50) of a referred customer's delivered order credited to the referrer's wallet; 0: referrals off. */
  referralPercent: number;
}

/** Every environment variable the bot reads, in the order of DESIGN.md. */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

/** Builds the typed configuration from an environment. Pure: reads only `env`. Throws ConfigError naming every bad variable. */
export function createConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues, env);
  const e = parsed.data;
  return {
    botToken: e.BOT_TOKEN,
    telegramApiRoot: e.TELEGRAM_API_ROOT,
    botMode: e.BOT_MODE,
    botWebhookUrl: e.BOT_WEBHOOK_URL,
    botWebhookSecret: e.BOT_WEBHOOK_SECRET,
    resellerApiUrl: e.RESELLER_API_URL,
    resellerApiKey: e.RESELLER_API_KEY,
    resellerWebhookSecret: e.RESELLER_WEBHOOK_SECRET,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    resellerCallbackUrl:
      e.PUBLIC_BASE_URL && e.RESELLER_WEBHOOK_SECRET ? `${e.PUBLIC_BASE_URL}/webhooks/reseller` : undefined,
    httpHost: e.HTTP_HOST,
    httpPort: e.HTTP_PORT,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_CLUSTER_NODES.length > 0 ? hashTagged(e.REDIS_PREFIX) : e.REDIS_PREFIX,
    redisChatPrefix: e.REDIS_PREFIX,
    operatorIds: e.OPERATOR_IDS,
    operatorChatId: e.OPERATOR_CHAT_ID,
    checkout: e.CHECKOUT,
    paymentProviderToken: e.PAYMENT_PROVIDER_TOKEN,
    yookassaShopId: e.YOOKASSA_SHOP_ID,
    yookassaSecretKey: e.YOOKASSA_SECRET_KEY,
    yookassaApiUrl: e.YOOKASSA_API_URL,
    cryptopayToken: e.CRYPTOPAY_TOKEN,
    cryptopayApiUrl: e.CRYPTOPAY_API_URL,
    starPriceRub: e.STAR_PRICE_RUB,
    allowedUserIds: e.ALLOWED_USER_IDS,
    priceMarkupPercent: e.PRICE_MARKUP_PERCENT,
    products: e.PRODUCTS,
    quoteTtlSeconds: e.QUOTE_TTL_SECONDS,
    maxOpenQuotes: e.MAX_OPEN_QUOTES,
    pollIntervalSeconds: e.POLL_INTERVAL_SECONDS,
    trackingTimeoutHours: e.TRACKING_TIMEOUT_HOURS,
    catalogTtlSeconds: e.CATALOG_TTL_SECONDS,
    lowBalanceRub: e.LOW_BALANCE_RUB,
    defaultLocale: e.DEFAULT_LOCALE,
    supportContact: e.SUPPORT_CONTACT,
    logLevel: e.LOG_LEVEL,
    orderRetentionDays: e.ORDER_RETENTION_DAYS,
    archiveDir: e.ARCHIVE_DIR,
    redisSentinels: e.REDIS_SENTINELS,
    redisSentinelName: e.REDIS_SENTINEL_NAME,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    redisPassword: e.REDIS_PASSWORD,
    referralPercent: e.REFERRAL_PERCENT,
  };
}

/** The values that must never reach a log line, for redaction and log scans. */
export function secretsOf(config: Config): string[] {
  return [
    ...urlCredentials(config.redisUrl),
    config.botToken,
    config.resellerApiKey,
    config.resellerWebhookSecret,
    config.botWebhookSecret,
    config.paymentProviderToken,
    config.redisPassword,
    config.yookassaSecretKey,
    config.cryptopayToken,
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
}
