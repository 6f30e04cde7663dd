import type { RateLimits } from "./types.js";

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets standing in for Telegram's flood limits: one for all chats, one per chat. A send is
 * allowed only when both have a token; otherwise the caller learns how many whole seconds to wait.
 */
export class SendRateLimiter {
  private global: Bucket;
  private readonly perChat = new Map<number, Bucket>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.global = { tokens: this.globalCapacity, updatedAt: this.now() };
  }

  private get globalCapacity(): number {
    return Math.max(1, this.limits.globalPerSecond);
  }

  private get chatCapacity(): number {
    return Math.max(1, this.limits.burst ?? Math.ceil(this.limits.perChatPerSecond));
  }

  private refill(bucket: Bucket, perSecond: number, capacity: number, at: number): void {
    bucket.tokens = Math.min(capacity, bucket.tokens + ((at - bucket.updatedAt) / 1000) * perSecond);
    bucket.updatedAt = at;
  }

  /** Takes a token for this chat, or returns the retry_after (seconds, at least 1) without taking any. */
  take(chatId: number): { ok: true } | { ok: false; retryAfter: number } {
    const at = this.now();
    let chat = this.perChat.get(chatId);
    if (!chat) {
      chat = { tokens: this.chatCapacity, updatedAt: at };
      this.perChat.set(chatId, chat);
    }
    this.refill(this.global, this.limits.globalPerSecond, this.globalCapacity, at);
    this.refill(chat, this.limits.perChatPerSecond, this.chatCapacity, at);
    if (this.global.tokens >= 1 && chat.tokens >= 1) {
      this.global.tokens -= 1;
      chat.tokens -= 1;
      return { ok: true };
    }
    const wait = (tokens: number, perSecond: number) => (tokens >= 1 ? 0 : (1 - tokens) / perSecond);
    const seconds = Math.max(
      wait(this.global.tokens, this.limits.globalPerSecond),
      wait(chat.tokens, this.limits.perChatPerSecond),
    );
    return { ok: false, retryAfter: Math.max(1, Math.ceil(seconds)) };
  }
}
