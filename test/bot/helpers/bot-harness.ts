import type { Update } from "grammy/types";
import { Redis } from "ioredis";
import { createBot } from "../../../src/bot/index.js";
import type { CatalogService } from "../../../src/catalog/service.js";
import { type Config, createConfig } from "../../../src/config.js";
import { createLogger } from "../../../src/logger.js";
import type { PaymentCurrency } from "../../../src/orders/types.js";
import { WalletLedger } from "../../../src/wallet/ledger.js";
import { testRedisUrl, uniquePrefix } from "../../helpers/redis.js";
import { FakeOrders, fakeCatalog, fakeReseller } from "./fakes.js";
import { BOT_INFO, TelegramRecorder } from "./telegram-recorder.js";

export interface BotHarness {
  config: Config;
  tg: TelegramRecorder;
  orders: FakeOrders;
  catalog: CatalogService & { reads: string[] };
  redis: Redis;
  /** The wallet ledger given to the bot (`{ wallet: true }`), on the same Redis and prefix. */
  wallet?: WalletLedger;
  send(update: Update): Promise<void>;
  /** A second bot on the same Redis and prefix, as after a restart. */
  restart(): void;
  close(): Promise<void>;
}

/** A bot built by createBot on the private test Redis, talking to a recording Bot API. */
export async function startBotHarness(
  env: Record<string, string> = {},
  incoming = { updates: 1000, windowMs: 1000 },
  opts: { wallet?: boolean } = {},
): Promise<BotHarness> {
  const tg = await new TelegramRecorder().start();
  const prefix = uniquePrefix("bot");
  const config = createConfig({
    BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_API_ROOT: tg.url,
    RESELLER_API_URL: "http://127.0.0.1:9",
    RESELLER_API_KEY: "key",
    OPERATOR_IDS: "7001",
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: prefix,
    DEFAULT_LOCALE: "ru",
    SUPPORT_CONTACT: "@shop_support",
    ...env,
  });
  const redis = new Redis(config.redisUrl);
  const currency: PaymentCurrency =
    config.checkout[0] === "stars" ? "XTR" : config.checkout[0] === "invoice" ? "RUB" : "NONE";
  const orders = new FakeOrders(currency);
  const catalog = fakeCatalog();
  const logger = createLogger({ level: "silent" });
  const wallet = opts.wallet ? new WalletLedger(redis, prefix) : undefined;
  const make = () =>
    createBot(
      { config, logger, redis, orders, catalog, reseller: fakeReseller, wallet },
      {
        botInfo: BOT_INFO,
        incoming,
      },
    );
  let bot = make();
  return {
    config,
    tg,
    orders,
    catalog,
    redis,
    wallet,
    send: (u) => bot.handleUpdate(u),
    restart() {
      bot = make();
    },
    async close() {
      await tg.stop();
      await redis.quit();
    },
  };
}
