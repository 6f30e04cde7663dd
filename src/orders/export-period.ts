/**
 * The period of an operator's export: whole UTC days, both ends included, named by a preset
 * button or typed as dates. Pure: the clock is passed in.
 */

const DAY_MS = 24 * 3600_000;

/** The longest period one export may cover, in days. */
export const EXPORT_MAX_DAYS = 366;

export const EXPORT_PRESETS = ["today", "7d", "30d", "this-month", "last-month"] as const;
export type ExportPreset = (typeof EXPORT_PRESETS)[number];

export interface ExportPeriod {
  /** First and last day, `YYYY-MM-DD` (UTC). */
  from: string;
  to: string;
  /** 00:00:00.000 UTC of `from` and 23:59:59.999 UTC of `to`, ms. */
  fromMs: number;
  toMs: number;
}

export type PeriodError =
  /** `value` is not a date of the form YYYY-MM-DD (or not a real day). */
  | { error: "bad_date"; value: string }
  /** More than two words after the command. */
  | { error: "too_many" }
  /** The first date is after the second. */
  | { error: "reversed" }
  /** Longer than EXPORT_MAX_DAYS. */
  | { error: "too_long"; days: number };

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function period(fromMs: number, toDayMs: number): ExportPeriod {
  return { from: day(fromMs), to: day(toDayMs), fromMs, toMs: toDayMs + DAY_MS - 1 };
}

/** A preset's period as of `now`: today, the last 7 or 30 days (today included), this month so far, last month. */
export function presetPeriod(preset: ExportPreset, now: number): ExportPeriod {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const d = new Date(today);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (preset) {
    case "today":
      return period(today, today);
    case "7d":
      return period(today - 6 * DAY_MS, today);
    case "30d":
      return period(today - 29 * DAY_MS, today);
    case "this-month":
      return period(Date.UTC(y, m, 1), today);
    case "last-month":
      return period(Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1) - DAY_MS);
  }
}

/** 00:00 UTC of a `YYYY-MM-DD` day, or null when it is not one (2026-02-30 is not). */
export function parseDay(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(ms) && day(ms) === text ? ms : null;
}

/**
 * What an operator typed after `/export`: one day (`2026-11-05`) or two, from and to inclusive
 * (`2026-11-01 2026-11-23`). An empty text is not handled here (the buttons are shown instead).
 */
export function parsePeriod(text: string): ExportPeriod | PeriodError {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length > 2) return { error: "too_many" };
  const [first = "", second = first] = words;
  const fromMs = parseDay(first);
  if (fromMs === null) return { error: "bad_date", value: first };
  const toMs = parseDay(second);
  if (toMs === null) return { error: "bad_date", value: second };
  if (toMs < fromMs) return { error: "reversed" };
  const days = Math.round((toMs - fromMs) / DAY_MS) + 1;
  if (days > EXPORT_MAX_DAYS) return { error: "too_long", days };
  return period(fromMs, toMs);
}

/** The export's file name: `orders-<from>-<to>.csv`. */
export function exportFileName(p: ExportPeriod): string {
  return `orders-${p.from}-${p.to}.csv`;
}
