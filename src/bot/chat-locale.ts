import type { Config, Locale } from "../config.js";
import { customerKeys } from "../customers/registry.js";
import type { RedisClient } from "../redis/connect.js";
import type { SessionData } from "./context.js";
import { isLocale } from "./i18n.js";
import { sessionKey } from "./redis-keys.js";

/**
 * The language a chat is written to when the bot writes first (an alert, a support message to an
 * operator, a referral bonus): the one chosen there with /language, else the one its last update
 * was answered in (the customer registry keeps it: the user's Telegram language when supported),
 * else DEFAULT_LOCALE. Redis out of reach gives DEFAULT_LOCALE.
 */
export async function chatLocale(
  redis: RedisClient,
  config: Pick<Config, "redisChatPrefix" | "redisPrefix" | "defaultLocale">,
  chatId: number,
): Promise<Locale> {
  try {
    const [raw, seen] = await Promise.all([
      redis.get(sessionKey(config.redisChatPrefix, chatId)),
      redis.hget(customerKeys(config.redisPrefix).record(chatId), "locale"),
    ]);
    const session = raw ? (JSON.parse(raw) as SessionData) : undefined;
    if (isLocale(session?.__language_code)) return session.__language_code;
    return isLocale(seen) ? seen : config.defaultLocale;
  } catch {
    return config.defaultLocale;
  }
}
