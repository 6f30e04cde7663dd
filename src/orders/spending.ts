import type { RedisClient } from "../redis/connect.js";
import type { EngineContext } from "./context.js";
import type { Order } from "./types.js";

/**
 * What the deposit paid out lately: one counter per UTC day (keys.ts, `spend:<day>`), added to
 * when `pay` is accepted (steps.ts) with the charge the reseller reported (the wholesale price
 * when it reported none). Reading the last 7 days is 7 GETs, whatever the number of orders.
 *
 * Counted once per order: only the process whose transition to `pending` won adds it. A process
 * gathers its charges for up to {@link SPENDING_FLUSH_MS} and adds them in one command, so a rush
 * of orders costs a few commands, not one per order; its own reads count what it has not written
 * yet, and stopping writes it. A crash loses what was gathered: the forecast is a little
 * optimistic then, never a charge counted twice.
 */

/** Days the pace is measured over: today (so far) and the 6 days before it. */
export const SPENDING_WINDOW_DAYS = 7;
const DAY_MS = 24 * 3600_000;
/** A day's counter outlives the window a little, then Redis drops it. */
const COUNTER_TTL_SECONDS = (SPENDING_WINDOW_DAYS + 3) * 24 * 3600;
/** How long a process gathers charges before adding them to the day's counter. */
export const SPENDING_FLUSH_MS = 2000;

export interface RecentSpending {
  /** Deposit spent in the window, kopecks. */
  spentKopecks: number;
  /** The window's length: 6 whole days plus today so far, ms. */
  windowMs: number;
}

/** The per-day counters in Redis. */
export class DailySpending {
  /** The counter this process made sure of (it exists with its lifetime). */
  private dayMade: string | undefined;
  /** Kopecks gathered per day and not written yet, with the counter's lifetime. */
  private readonly gathered = new Map<string, { kopecks: number; ttlSeconds: number }>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keyOf: (day: string) => string,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /**
   * Adds `kopecks` to the deposit spent on `day` (UTC, `YYYY-MM-DD`), written within
   * {@link SPENDING_FLUSH_MS} together with the other charges of that time; the counter expires
   * after `ttlSeconds`.
   */
  add(day: string, kopecks: number, ttlSeconds: number): void {
    const before = this.gathered.get(day)?.kopecks ?? 0;
    this.gathered.set(day, { kopecks: before + kopecks, ttlSeconds });
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SPENDING_FLUSH_MS);
    this.timer.unref();
  }

  /** Writes what was gathered now (the engine's stop; tests). A failed write is kept for the next one. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = [...this.gathered];
    this.gathered.clear();
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: [string, { kopecks: number; ttlSeconds: number }][]): Promise<void> {
    for (const [day, { kopecks, ttlSeconds }] of batch) {
      const key = this.keyOf(day);
      try {
        if (this.dayMade === key) {
          await this.redis.incrby(key, kopecks);
        } else {
          // The day's first charge in this process makes sure the counter has its lifetime: the
          // day's first charge of all makes the counter with it (SET NX EX, one command); one made
          // by another process already is only added to.
          const made = await this.redis.set(key, kopecks, "EX", ttlSeconds, "NX");
          if (made !== "OK") await this.redis.incrby(key, kopecks);
          this.dayMade = key;
        }
      } catch (err) {
        this.onError(err);
        // Gathered again and written with the next batch: a write that failed added nothing.
        this.add(day, kopecks, ttlSeconds);
      }
    }
  }

  /**
   * The deposit spent on each of `days` (UTC, `YYYY-MM-DD`), kopecks, with what this process
   * gathered and has not written yet; 0 for a day without a counter.
   */
  async of(days: readonly string[]): Promise<number[]> {
    // A batch being written is in neither place until its write is answered.
    await this.writing;
    const pipe = this.redis.pipeline();
    for (const day of days) pipe.get(this.keyOf(day));
    const rows = (await pipe.exec()) ?? [];
    return days.map((day, i) => {
      const [err, value] = rows[i] ?? [null, null];
      if (err) throw err;
      const n = Number(value ?? 0);
      return (Number.isSafeInteger(n) && n > 0 ? n : 0) + (this.gathered.get(day)?.kopecks ?? 0);
    });
  }
}

/** `YYYY-MM-DD` (UTC) of a time in ms. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Counts the deposit charge of an order that `pay` just moved to `pending` (this process won the move). */
export function noteSpending(
  ctx: Pick<EngineContext, "store" | "now">,
  moved: { won: boolean; order: Order | null },
): void {
  if (!moved.won || !moved.order) return;
  const kopecks = moved.order.chargedKopecks ?? moved.order.wholesaleKopecks ?? 0;
  if (!Number.isSafeInteger(kopecks) || kopecks <= 0) return;
  ctx.store.spending.add(utcDay(ctx.now()), kopecks, COUNTER_TTL_SECONDS);
}

/** The deposit spent today and in the 6 days before (UTC), and the time that covers. */
export async function recentSpending(
  spending: Pick<DailySpending, "of">,
  now: number,
): Promise<RecentSpending> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days = Array.from({ length: SPENDING_WINDOW_DAYS }, (_, i) => utcDay(today - i * DAY_MS));
  const amounts = await spending.of(days);
  return {
    spentKopecks: amounts.reduce((sum, n) => sum + n, 0),
    windowMs: (SPENDING_WINDOW_DAYS - 1) * DAY_MS + (now - today),
  };
}
