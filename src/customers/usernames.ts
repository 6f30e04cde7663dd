import type { RedisClient } from "../redis/connect.js";
import { type CustomerKeys, customerKeys } from "./keys.js";

/** Remembered per process before the memo starts over (a few MB at most). */
const MEMO_MAX = 100_000;

/**
 * The username → user id index behind an operator's `/customer @name`. Customers' names are
 * written as they write to the bot, but only when they changed: a per-process memo of the last
 * name and first name written for each user keeps the hot path free of Redis (one write per user
 * per process, then one per rename).
 */
export class Usernames {
  readonly keys: CustomerKeys;
  private readonly memo = new Map<number, string>();

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = customerKeys(prefix);
  }

  /** Records who wrote, when it differs from what this process wrote last for them. */
  async seen(user: { id: number; username?: string; first_name?: string }): Promise<void> {
    const username = user.username ?? "";
    const first = (user.first_name ?? "").slice(0, 64);
    const stamp = `${username}\n${first}`;
    if (this.memo.get(user.id) === stamp) return;
    // `name`, not `first`: the same hash holds the broadcast registry's `first` (first seen, ms).
    // A pipeline: both writes stand alone (a lookup checks the profile's name against the index).
    const pipe = this.redis.pipeline().hset(this.keys.profile(user.id), "username", username, "name", first);
    if (username) pipe.set(this.keys.username(username), String(user.id));
    for (const [err] of (await pipe.exec()) ?? []) if (err) throw err;
    if (this.memo.size >= MEMO_MAX) this.memo.clear();
    this.memo.set(user.id, stamp);
  }

  /**
   * The user id behind `@name` (any case), or undefined: nobody wrote with it, or the one who did
   * has renamed since (their profile names another username).
   */
  async resolve(name: string): Promise<number | undefined> {
    const raw = await this.redis.get(this.keys.username(name));
    if (raw === null) return undefined;
    const userId = Number(raw);
    const current = await this.redis.hget(this.keys.profile(userId), "username");
    return current?.toLowerCase() === name.toLowerCase() ? userId : undefined;
  }

  /** The names last seen for a user. */
  async profile(userId: number): Promise<{ username?: string; firstName?: string }> {
    const [username, first] = await this.redis.hmget(this.keys.profile(userId), "username", "name");
    return { username: username || undefined, firstName: first || undefined };
  }
}
