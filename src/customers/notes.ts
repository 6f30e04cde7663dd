import type { RedisClient } from "../redis/connect.js";
import { type CustomerKeys, customerKeys } from "./keys.js";

/** An operator's note about a customer. */
export interface CustomerNote {
  by: number;
  at: number;
  text: string;
}

/** A note's longest text. */
export const NOTE_MAX_CHARS = 500;
/** Notes kept per customer (the oldest go). */
const NOTES_KEPT = 100;

/** Operators' notes about customers, newest first. */
export class CustomerNotes {
  readonly keys: CustomerKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = customerKeys(prefix);
  }

  async add(userId: number, note: CustomerNote): Promise<void> {
    const key = this.keys.notes(userId);
    await this.redis
      .multi()
      .lpush(key, JSON.stringify(note))
      .ltrim(key, 0, NOTES_KEPT - 1)
      .exec();
  }

  /** The latest `max` notes and how many there are. */
  async latest(userId: number, max: number): Promise<{ notes: CustomerNote[]; total: number }> {
    const key = this.keys.notes(userId);
    const res = await this.redis
      .multi()
      .lrange(key, 0, max - 1)
      .llen(key)
      .exec();
    const items = (res?.[0]?.[1] ?? []) as string[];
    return { notes: items.map((s) => JSON.parse(s) as CustomerNote), total: Number(res?.[1]?.[1] ?? 0) };
  }
}
