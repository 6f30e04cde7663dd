import type { Logger } from "../logger.js";
import { type RedisClient, subscriberOf } from "../redis/connect.js";
import { retryUntilDone } from "../util/timers.js";

/**
 * Telegram's "wait": a 429 answer carries `retry_after`, and until then sends into that chat (or,
 * for a flood across chats, any send) only earn more 429s. Every process learns of a hold at once
 * through Redis pub/sub and keeps it in memory, so checking one before a send costs nothing and
 * replies to customers are never queued behind a Redis round trip.
 *
 * A 429 on a send into one chat holds that chat; a 429 on a chat-less call, or 429s in several
 * chats within a second (Telegram's overall limit), hold every send.
 */

/** Bot API methods that put a message into a chat. */
export const CHAT_SEND_METHODS: ReadonlySet<string> = new Set([
  "sendMessage",
  "sendInvoice",
  "editMessageText",
  "editMessageReplyMarkup",
  "copyMessage",
  "sendPhoto",
  "sendDocument",
]);

/** Distinct chats with a 429 within a second that make it an overall hold. */
const FLOOD_CHATS = 3;

type Chat = number | string;

export class TelegramHolds {
  private globalUntil = 0;
  private readonly chatUntil = new Map<string, number>();
  private readonly recent: { chat: string; at: number }[] = [];
  private subscriber: RedisClient | undefined;
  private stopSubscribing: (() => void) | undefined;
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClient | undefined,
    prefix: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.channel = `${prefix}tg-holds`;
  }

  /** Listens for holds other processes saw (subscribes in the background; Redis may be away). */
  start(): void {
    if (!this.redis || this.subscriber) return;
    const sub = subscriberOf(this.redis, "shopbot-holds", this.logger);
    sub.on("message", (_channel: string, raw: string) => {
      try {
        const { chat, until } = JSON.parse(raw) as { chat: string | null; until: number };
        this.apply(chat, until);
      } catch {
        // Not ours to understand.
      }
    });
    this.subscriber = sub;
    // Once subscribed, the client subscribes again by itself after a reconnect; a SUBSCRIBE that
    // failed (Redis away at start-up) is not remembered by it, so it is tried until it works.
    this.stopSubscribing = retryUntilDone(() => sub.subscribe(this.channel), this.logger, {
      failed: "could not listen for Telegram holds; trying again",
      done: "listening for Telegram holds",
    });
  }

  async stop(): Promise<void> {
    const sub = this.subscriber;
    this.subscriber = undefined;
    this.stopSubscribing?.();
    this.stopSubscribing = undefined;
    await sub?.quit().catch(() => sub.disconnect());
  }

  /** Whether any hold may still stand (a cheap check before looking at a request's chat). */
  get any(): boolean {
    return this.globalUntil > this.now() || this.chatUntil.size > 0;
  }

  /** When sends into `chat` (or, without a chat, any send) may go again: 0 when now. */
  until(chat: Chat | undefined): number {
    const chatHold = chat === undefined ? 0 : (this.chatUntil.get(String(chat)) ?? 0);
    return Math.max(this.globalUntil, chatHold);
  }

  /** Resolves once no hold stands for `chat`. */
  async wait(chat: Chat | undefined): Promise<void> {
    for (;;) {
      const left = this.until(chat) - this.now();
      if (left <= 0) return;
      await new Promise((r) => setTimeout(r, left));
    }
  }

  /** Telegram answered 429 with `retry_after` seconds for a call into `chat`. */
  note(chat: Chat | undefined, retryAfterSeconds: number): void {
    const now = this.now();
    const until = now + Math.max(1, retryAfterSeconds) * 1000;
    let key: string | null = chat === undefined ? null : String(chat);
    if (key !== null) {
      this.recent.push({ chat: key, at: now });
      while (this.recent.length > 0 && now - this.recent[0]!.at > 1000) this.recent.shift();
      if (new Set(this.recent.map((r) => r.chat)).size >= FLOOD_CHATS) key = null;
    }
    this.apply(key, until);
    this.logger.warn({ chat: key ?? "all", retryAfterSeconds }, "Telegram asked to wait");
    this.redis
      ?.publish(this.channel, JSON.stringify({ chat: key, until }))
      .catch((err) => this.logger.warn({ err }, "could not share a Telegram hold"));
  }

  private apply(chat: string | null, until: number): void {
    if (chat === null) {
      this.globalUntil = Math.max(this.globalUntil, until);
      return;
    }
    const now = this.now();
    if (this.chatUntil.size > 10_000) {
      for (const [k, v] of this.chatUntil) if (v <= now) this.chatUntil.delete(k);
    }
    this.chatUntil.set(chat, Math.max(this.chatUntil.get(chat) ?? 0, until));
  }
}
