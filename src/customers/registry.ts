import type { Locale } from "../config.js";
import type { RedisClient } from "../redis/connect.js";
import { customerKeys as shopCustomerKeys } from "./keys.js";

/**
 * Who has talked to the bot, for broadcasts' audiences (layout under the prefix P):
 *
 *   P cust:<chat>        hash  locale, first (ms), last (ms); the username index (usernames.ts)
 *                              keeps the customer's username and name in the same hash
 *   P cust:all           zset  last seen (ms) → chat
 *   P cust:lang:<locale> zset  last seen (ms) → chat, in the customer's current language only
 *   P cust:blocked       set   chats that blocked the bot (a broadcast got 403, or Telegram said so)
 *
 * Recording is cheap: this process remembers the day and language it last wrote for each chat, so
 * a customer costs at most two Redis round trips per day, or when the language changes — not one
 * per update (after a restart the first update of each customer writes again, once); a new
 * customer's first costs four commands.
 */
export interface CustomerKeys {
  record(chatId: number): string;
  all: string;
  lang(locale: string): string;
  blocked: string;
}

export function customerKeys(prefix: string): CustomerKeys {
  return {
    record: (chatId) => `${prefix}cust:${chatId}`,
    all: `${prefix}cust:all`,
    lang: (locale) => `${prefix}cust:lang:${locale}`,
    blocked: `${prefix}cust:blocked`,
  };
}

const DAY_MS = 24 * 3600 * 1000;
/** Chats remembered by this process before the memory starts over (a write each, then quiet again). */
const REMEMBERED = 100_000;

export class CustomerRegistry {
  readonly keys: CustomerKeys;
  /** The ban list's hash (bans.ts). */
  private readonly bansKey: string;
  private readonly written = new Map<number, string>();

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly locales: readonly Locale[],
    private readonly now: () => number = Date.now,
  ) {
    this.keys = customerKeys(prefix);
    this.bansKey = shopCustomerKeys(prefix).bans;
  }

  /**
   * Records that `chatId` used the bot in `locale` now. Writes only when this process has not
   * written this chat today or its language changed; returns whether it wrote.
   */
  async touch(chatId: number, locale: Locale): Promise<boolean> {
    const now = this.now();
    const mark = `${Math.floor(now / DAY_MS)}:${locale}`;
    if (this.written.get(chatId) === mark) return false;
    if (this.written.size >= REMEMBERED) this.written.clear();
    this.written.set(chatId, mark);
    const key = this.keys.record(chatId);
    try {
      // A customer seen for the first time is in no other language's audience and has not
      // blocked the bot yet (a block before any message is undone by the unblock's update).
      const isNew = (await this.redis.hsetnx(key, "first", now)) === 1;
      // A pipeline, not a transaction: each write stands alone, and a repeat sets the same values.
      const m = this.redis
        .pipeline()
        .hset(key, "locale", locale, "last", now)
        .zadd(this.keys.all, now, chatId)
        .zadd(this.keys.lang(locale), now, chatId);
      if (!isNew) {
        // Writing to the bot again means it is no longer blocked.
        m.srem(this.keys.blocked, chatId);
        for (const other of this.locales) if (other !== locale) m.zrem(this.keys.lang(other), chatId);
      }
      for (const [err] of (await m.exec()) ?? []) if (err) throw err;
    } catch (err) {
      this.written.delete(chatId);
      throw err;
    }
    return true;
  }

  /** The customer blocked the bot (or unblocked it): broadcasts skip blocked chats. */
  async setBlocked(chatId: number, blocked: boolean): Promise<void> {
    if (blocked) await this.redis.sadd(this.keys.blocked, chatId);
    else await this.redis.srem(this.keys.blocked, chatId);
  }

  async isBlocked(chatId: number): Promise<boolean> {
    return (await this.redis.sismember(this.keys.blocked, chatId)) === 1;
  }

  async blocked(): Promise<Set<number>> {
    return new Set((await this.redis.smembers(this.keys.blocked)).map(Number));
  }

  /** Customers an operator banned (the ban list's hash, bans.ts). */
  async banned(): Promise<Set<number>> {
    return new Set((await this.redis.hkeys(this.bansKey)).map(Number));
  }

  /** Every recorded chat, or those whose language is `locale`, oldest first. */
  async chats(locale?: Locale): Promise<number[]> {
    const key = locale ? this.keys.lang(locale) : this.keys.all;
    return (await this.redis.zrange(key, 0, -1)).map(Number);
  }

  async get(
    chatId: number,
  ): Promise<{ locale?: string; firstSeen?: number; lastSeen?: number; blocked: boolean } | null> {
    const [h, blocked] = await Promise.all([
      this.redis.hgetall(this.keys.record(chatId)),
      this.isBlocked(chatId),
    ]);
    if (!h || Object.keys(h).length === 0) return null;
    return {
      locale: h.locale,
      firstSeen: h.first ? Number(h.first) : undefined,
      lastSeen: h.last ? Number(h.last) : undefined,
      blocked,
    };
  }
}
