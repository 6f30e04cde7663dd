import type { Logger } from "../logger.js";
import type { RedisClient } from "../redis/connect.js";
import { type CustomerKeys, customerKeys } from "./keys.js";

/** How long a process trusts its copy of the ban list. */
export const BAN_CACHE_MS = 5_000;

export interface BanRecord {
  by: number;
  at: number;
}

/**
 * Banned customers (the hash `P bans`). Every update asks {@link BanList.isBanned}, which answers
 * from this process's copy of the whole list: the copy is re-read (one HKEYS) at most every
 * {@link BAN_CACHE_MS}, however many updates arrive, so the hot path costs no Redis round trip. A
 * ban or unban made here applies here at once, on other processes within that time.
 */
export class BanList {
  readonly keys: CustomerKeys;
  private banned = new Set<number>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  /** Banned customers this process has told already (spares a Redis write per ignored update). */
  private told = new Set<number>();

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly opts: { logger?: Logger; now?: () => number; cacheMs?: number } = {},
  ) {
    this.keys = customerKeys(prefix);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  async isBanned(userId: number): Promise<boolean> {
    if (this.now() - this.loadedAt >= (this.opts.cacheMs ?? BAN_CACHE_MS)) {
      this.loading ??= this.load().finally(() => {
        this.loading = undefined;
      });
      await this.loading;
    }
    return this.banned.has(userId);
  }

  private async load(): Promise<void> {
    try {
      const ids = await this.redis.hkeys(this.keys.bans);
      this.banned = new Set(ids.map(Number));
      for (const id of this.told) if (!this.banned.has(id)) this.told.delete(id);
      this.loadedAt = this.now();
    } catch (err) {
      // Redis away: the last list stands until it answers again.
      this.opts.logger?.warn({ err }, "ban list not refreshed");
    }
  }

  /** Bans a customer; `false` when they were banned already. */
  async ban(userId: number, by: number): Promise<boolean> {
    const record: BanRecord = { by, at: this.now() };
    const res = await this.redis
      .multi()
      .hsetnx(this.keys.bans, String(userId), JSON.stringify(record))
      .hdel(this.keys.told, String(userId))
      .exec();
    this.banned.add(userId);
    this.told.delete(userId);
    return res?.[0]?.[1] === 1;
  }

  /** Lifts a ban; `false` when there was none. */
  async unban(userId: number): Promise<boolean> {
    const res = await this.redis
      .multi()
      .hdel(this.keys.bans, String(userId))
      .hdel(this.keys.told, String(userId))
      .exec();
    this.banned.delete(userId);
    this.told.delete(userId);
    return res?.[0]?.[1] === 1;
  }

  /** Who banned the customer and when, or null. */
  async record(userId: number): Promise<BanRecord | null> {
    const raw = await this.redis.hget(this.keys.bans, String(userId));
    return raw === null ? null : (JSON.parse(raw) as BanRecord);
  }

  /** True once per ban (across processes): the one time the banned customer is to be told. */
  async tellOnce(userId: number): Promise<boolean> {
    if (this.told.has(userId)) return false;
    const first = await this.redis.hsetnx(this.keys.told, String(userId), String(this.now()));
    this.told.add(userId);
    return first === 1;
  }
}
