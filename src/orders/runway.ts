/**
 * How long the reseller deposit lasts at the recent pace of spending: pure arithmetic on integer
 * kopecks, no I/O. The spending comes from spending.ts; /balance and the low-balance alert say it.
 */

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** Beyond this many days the forecast only says "more than a year". */
export const RUNWAY_MAX_DAYS = 365;

export type Runway =
  /** Nothing was spent in the window: no pace to forecast from. */
  | { kind: "no_spending" }
  /** The deposit is at or below zero. */
  | { kind: "empty" }
  /** Less than a day left: whole hours, at least 1. */
  | { kind: "hours"; hours: number }
  /** Whole days, 1 to RUNWAY_MAX_DAYS. */
  | { kind: "days"; days: number }
  | { kind: "over_year" };

/**
 * The deposit's runway: `balanceKopecks` ÷ (`spentKopecks` per `windowMs`). Days are rounded to
 * the nearest whole day (1.4 → 1, 2.6 → 3); under a day the answer is in whole hours (at least 1;
 * 23.6 hours round up to 1 day).
 */
export function forecastRunway(balanceKopecks: number, spentKopecks: number, windowMs: number): Runway {
  if (!(spentKopecks > 0) || !(windowMs > 0)) return { kind: "no_spending" };
  if (!(balanceKopecks > 0)) return { kind: "empty" };
  const days = (balanceKopecks / spentKopecks) * (windowMs / DAY_MS);
  if (!Number.isFinite(days) || days > RUNWAY_MAX_DAYS) return { kind: "over_year" };
  const hours = Math.round(days * 24);
  if (hours < 24) return { kind: "hours", hours: Math.max(1, hours) };
  return { kind: "days", days: Math.max(1, Math.round(days)) };
}
