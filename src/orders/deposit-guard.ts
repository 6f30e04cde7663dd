import type { ProductKind } from "../config.js";
import type { RedisClient } from "../redis/connect.js";

/**
 * Products paused while the reseller deposit cannot cover them. A quote whose wholesale price is
 * above the last known deposit is refused before the customer can pay (no `pay` that is bound to
 * fail, no refund), and its product kind is paused; the deposit check resumes every paused kind
 * the deposit covers again. Shared by every process through Redis:
 *
 *   P deposit   hash { kopecks, at }            the last deposit read (balance job); the
 *                                               deposit's spending per day too (spending.ts)
 *   P paused    hash kind → wholesale kopecks   what the refused quote needed
 *
 * Reads are cached in process memory for {@link CACHE_MS}, so a quote costs no extra round trip
 * in a rush.
 */

export const CACHE_MS = 2_000;

export interface DepositState {
  /** The deposit at the last check, kopecks (undefined before the first check). */
  depositKopecks?: number;
  paused: ReadonlyMap<ProductKind, number>;
}

export class ProductPausedError extends Error {
  constructor(readonly kind: ProductKind) {
    super(`${kind} is paused until the reseller deposit is topped up`);
    this.name = "ProductPausedError";
  }
}

export class DepositGuard {
  private cached: { at: number; state: DepositState } | undefined;
  /** Kinds paused by this process so far: a deposit check that saw fewer does not become the cached state. */
  private pauses = 0;
  private readonly depositKey: string;
  private readonly pausedKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.depositKey = `${prefix}deposit`;
    this.pausedKey = `${prefix}paused`;
  }

  async state(): Promise<DepositState> {
    const t = this.now();
    if (this.cached && t - this.cached.at < CACHE_MS) return this.cached.state;
    const [deposit, paused] = await Promise.all([
      this.redis.hget(this.depositKey, "kopecks"),
      this.redis.hgetall(this.pausedKey),
    ]);
    const state: DepositState = {
      depositKopecks: deposit === null ? undefined : Number(deposit),
      paused: new Map(Object.entries(paused).map(([k, v]) => [k as ProductKind, Number(v)])),
    };
    this.cached = { at: t, state };
    return state;
  }

  /** Whether a quote of `kind` may be made now: not paused, or paused but covered by the deposit again. */
  async mayQuote(kind: ProductKind): Promise<boolean> {
    const s = await this.state();
    const needed = s.paused.get(kind);
    return needed === undefined || (s.depositKopecks !== undefined && s.depositKopecks >= needed);
  }

  /** Whether the last known deposit covers a wholesale price (unknown deposit: yes, `pay` decides). */
  async covers(wholesaleKopecks: number): Promise<boolean> {
    const { depositKopecks } = await this.state();
    return depositKopecks === undefined || depositKopecks >= wholesaleKopecks;
  }

  /** Pauses a kind; true when it was not paused before (the operators are told then, once). */
  async pause(kind: ProductKind, neededKopecks: number): Promise<boolean> {
    this.cached = undefined;
    this.pauses += 1;
    return (await this.redis.hsetnx(this.pausedKey, kind, String(neededKopecks))) === 1;
  }

  /**
   * Records a deposit read and resumes the kinds it covers; returns them. What it wrote and read
   * is the state from then on (the balance job's own look at it right after, the next quotes): no
   * read of its own for {@link CACHE_MS}, unless a kind was paused here meanwhile.
   *
   * `resume: false` only records the deposit (one HSET): the read that follows a charge, which
   * lowered the deposit, so it cannot cover a kind that the last full check left paused. A top-up
   * since is seen by the periodic check (more often while anything is paused) and by the read a
   * refused quote pulls forward, which both resume.
   */
  async noteDeposit(
    kopecks: number,
    opts: { resume?: boolean; fields?: readonly string[] } = {},
  ): Promise<ProductKind[]> {
    // Other fields of the hash written in the same HSET (field, value, …): the spending per day.
    const write = () =>
      this.redis.hset(
        this.depositKey,
        "kopecks",
        String(kopecks),
        "at",
        String(this.now()),
        ...(opts.fields ?? []),
      );
    if (opts.resume === false) {
      const known = this.cached;
      await write();
      // A copy still within its window keeps its paused kinds and takes the new deposit.
      if (known && this.cached === known && this.now() - known.at < CACHE_MS) {
        this.cached = { at: known.at, state: { ...known.state, depositKopecks: kopecks } };
      }
      return [];
    }
    this.cached = undefined;
    const pausesBefore = this.pauses;
    const [, paused] = await Promise.all([write(), this.redis.hgetall(this.pausedKey)]);
    const resumed = Object.entries(paused)
      .filter(([, needed]) => Number(needed) <= kopecks)
      .map(([kind]) => kind as ProductKind);
    // HDEL answers how many it removed: a kind resumed by another process at once is not told twice.
    const told: ProductKind[] = [];
    for (const kind of resumed) if ((await this.redis.hdel(this.pausedKey, kind)) === 1) told.push(kind);
    if (this.pauses === pausesBefore) {
      const still = Object.entries(paused).filter(([, needed]) => Number(needed) > kopecks);
      this.cached = {
        at: this.now(),
        state: {
          depositKopecks: kopecks,
          paused: new Map(still.map(([k, v]) => [k as ProductKind, Number(v)])),
        },
      };
    }
    return told;
  }

  /** Whether anything is paused (the deposit is then checked more often). */
  async anyPaused(): Promise<boolean> {
    return (await this.state()).paused.size > 0;
  }
}
