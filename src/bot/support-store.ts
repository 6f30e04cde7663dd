import type { Locale } from "../config.js";
import type { RedisClient } from "../redis/connect.js";
import { isLocale } from "./i18n.js";

/** The customer an operator's answer goes to, and the language to tell them in. */
export interface SupportCustomer {
  userId: number;
  locale: Locale;
}

/** How long an operator can still answer a customer's support message. */
const MAPPING_TTL_SECONDS = 90 * 24 * 3600;

/**
 * Which customer a message in the operators' chats is about (layout under the prefix P):
 *
 *   P support:msg:<chat>:<message>  → "<userId>:<locale>"  a header or a customer's message copied
 *                                      into the group or an operator's private chat
 *   P support:thread:<thread id>    → "<userId>:<locale>"  a customer's forum topic in the group
 *
 * An operator's reply to such a message, or any message in such a topic, is the customer's.
 */
export class SupportStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private messageKey(chatId: number, messageId: number): string {
    return `${this.prefix}support:msg:${chatId}:${messageId}`;
  }

  private threadKey(threadId: number): string {
    return `${this.prefix}support:thread:${threadId}`;
  }

  async rememberMessage(chatId: number, messageId: number, who: SupportCustomer): Promise<void> {
    await this.redis.set(this.messageKey(chatId, messageId), encode(who), "EX", MAPPING_TTL_SECONDS);
  }

  async rememberThread(threadId: number, who: SupportCustomer): Promise<void> {
    await this.redis.set(this.threadKey(threadId), encode(who), "EX", MAPPING_TTL_SECONDS);
  }

  async byMessage(chatId: number, messageId: number): Promise<SupportCustomer | null> {
    return decode(await this.redis.get(this.messageKey(chatId, messageId)));
  }

  async byThread(threadId: number): Promise<SupportCustomer | null> {
    return decode(await this.redis.get(this.threadKey(threadId)));
  }
}

function encode(who: SupportCustomer): string {
  return `${who.userId}:${who.locale}`;
}

function decode(raw: string | null): SupportCustomer | null {
  const m = raw ? /^(\d{1,20}):([a-z]{2})$/.exec(raw) : null;
  if (!m) return null;
  const userId = Number(m[1]);
  return Number.isSafeInteger(userId) && isLocale(m[2]) ? { userId, locale: m[2] } : null;
}
