import { randomBytes } from "node:crypto";
import type { RedisClient } from "../redis/connect.js";
import type { EngineContext } from "./context.js";
import type { Order } from "./types.js";

/**
 * What the deposit paid out lately, per UTC day, added to when `pay` is accepted (steps.ts) with
 * the charge the reseller reported (the wholesale price when it reported none). Counted once per
 * order: only the process whose transition to `pending` won adds it.
 *
 * Each process keeps its own running total per day and writes it, as an absolute value, into a
 * field of the deposit's hash (keys.ts `deposit`, field `spent:<day>:<process>`): with the deposit
 * read that every charge pulls forward (deposit-pull.ts, alerts.ts `noteDeposit`), in the same
 * HSET, so a charge's spending costs no command of its own; on its own when no such read carried
 * it within {@link SPENDING_FLUSH_MS} (the read failed), and when the engine stops. A reader sums
 * the fields of the days it asks for, this process's own from memory (it may not be written yet).
 * A crash loses what was not written: the forecast is a little optimistic then, never a charge
 * counted twice. The per-day counters of earlier versions (`spend:<day>`, expiring) are still
 * added in until they are gone.
 */

/** Days the pace is measured over: today (so far) and the 6 days before it. */
export const SPENDING_WINDOW_DAYS = 7;
const DAY_MS = 24 * 3600_000;
/** The longest a charge's spending waits for a deposit read to carry it before it is written alone. */
export const SPENDING_FLUSH_MS = 10_000;
/** Fields of days older than this are deleted when a reader meets them. */
const KEEP_DAYS = SPENDING_WINDOW_DAYS + 3;
const FIELD = /^spent:(\d{4}-\d{2}-\d{2}):(.+)$/;

export interface RecentSpending {
  /** Deposit spent in the window, kopecks. */
  spentKopecks: number;
  /** The window's length: 6 whole days plus today so far, ms. */
  windowMs: number;
}

/** Hash fields to write (field, value, …), and the days they carry. */
export interface SpendingFields {
  fields: string[];
  days: string[];
}

/** The day totals in the deposit's hash. */
export class DailySpending {
  /** This process's fields: `spent:<day>:<this>`. */
  private readonly me = randomBytes(6).toString("hex");
  /** This process's spending per day (kopecks), and the days whose total is not written yet. */
  private readonly totals = new Map<string, number>();
  private readonly unwritten = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: {
      /** The deposit's hash (deposit-guard.ts), which the day totals are fields of. */
      deposit: string;
      /** The per-day counter of earlier versions. */
      legacyDay: (day: string) => string;
    },
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /**
   * Adds `kopecks` to this process's spending on `day` (UTC, `YYYY-MM-DD`), written with the next
   * deposit read ({@link take}) or within {@link SPENDING_FLUSH_MS}.
   */
  add(day: string, kopecks: number): void {
    this.totals.set(day, (this.totals.get(day) ?? 0) + kopecks);
    this.unwritten.add(day);
    this.arm();
  }

  /** The backstop: what no deposit read carried is written on its own. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SPENDING_FLUSH_MS);
    this.timer.unref();
  }

  /**
   * The fields of the totals not written yet, for a write of the deposit's hash to carry; they
   * count as written from now on. A write that failed gives them back ({@link giveBack}).
   */
  take(): SpendingFields {
    const days = [...this.unwritten];
    this.unwritten.clear();
    const fields = days.flatMap((day) => [this.field(day), String(this.totals.get(day) ?? 0)]);
    return { fields, days };
  }

  /** The write that carried these fields failed: they are written with the next one. */
  giveBack(taken: SpendingFields): void {
    if (taken.days.length === 0) return;
    for (const day of taken.days) this.unwritten.add(day);
    this.arm();
  }

  /** Writes what is not written yet now (the engine's stop; tests). A failed write is kept for the next one. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const taken = this.take();
    if (taken.days.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      try {
        await this.redis.hset(this.keys.deposit, ...taken.fields);
      } catch (err) {
        this.onError(err);
        this.giveBack(taken);
      }
    });
    return this.writing;
  }

  /**
   * The deposit spent on each of `days` (UTC, `YYYY-MM-DD`) by every process, kopecks: one
   * HGETALL (and the earlier versions' counters in the same round trip); this process's own total
   * from memory. Fields of days long past are deleted on the way.
   */
  async of(days: readonly string[]): Promise<number[]> {
    const pipe = this.redis.pipeline().hgetall(this.keys.deposit);
    for (const day of days) pipe.get(this.keys.legacyDay(day));
    const rows = (await pipe.exec()) ?? [];
    for (const [err] of rows) if (err) throw err;
    const hash = (rows[0]?.[1] ?? {}) as Record<string, string>;
    const byDay = new Map<string, number>();
    const stale: string[] = [];
    const oldest = Math.min(...days.map((d) => Date.parse(d))) - (KEEP_DAYS - SPENDING_WINDOW_DAYS) * DAY_MS;
    for (const [field, value] of Object.entries(hash)) {
      const m = FIELD.exec(field);
      if (!m) continue;
      const [, day, who] = m as unknown as [string, string, string];
      if (Date.parse(day) < oldest) stale.push(field);
      if (who === this.me) continue;
      const n = Number(value);
      if (Number.isSafeInteger(n) && n > 0) byDay.set(day, (byDay.get(day) ?? 0) + n);
    }
    if (stale.length > 0) await this.redis.hdel(this.keys.deposit, ...stale).catch(() => 0);
    for (const day of this.totals.keys()) {
      if (Date.parse(day) >= oldest) continue;
      this.totals.delete(day);
      this.unwritten.delete(day);
    }
    return days.map((day, i) => {
      const legacy = Number(rows[i + 1]?.[1] ?? 0);
      return (
        (byDay.get(day) ?? 0) +
        (Number.isSafeInteger(legacy) && legacy > 0 ? legacy : 0) +
        (this.totals.get(day) ?? 0)
      );
    });
  }

  private field(day: string): string {
    return `spent:${day}:${this.me}`;
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
  ctx.store.spending.add(utcDay(ctx.now()), kopecks);
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
