/**
 * Money on the Crypto Pay rail. Invoices are priced in fiat RUB and Crypto Pay takes the amount as
 * a decimal string ("123.45"); the bot keeps kopecks as integers. Both directions are exact string
 * arithmetic on integers — never a float.
 */

/** The largest amount we format: 10¹³ kopecks is far beyond any invoice and well inside safe integers. */
const MAX_KOPECKS = 10_000_000_000_000;

/** Formats an integer number of kopecks as Crypto Pay's amount: 1 → "0.01", 10 → "0.10", 12345 → "123.45". */
export function kopecksToAmount(kopecks: number): string {
  if (!Number.isSafeInteger(kopecks) || kopecks <= 0 || kopecks > MAX_KOPECKS) {
    throw new RangeError(`amount must be a positive whole number of kopecks, got ${String(kopecks)}`);
  }
  const rub = Math.floor(kopecks / 100);
  const kop = kopecks % 100;
  return `${rub}.${String(kop).padStart(2, "0")}`;
}

/**
 * Reads a decimal amount ("123.45", "123.4", "123", "123.450000") as kopecks; null when it is not
 * a plain non-negative decimal or has a non-zero digit past the kopecks.
 */
export function amountToKopecks(amount: string | number): number | null {
  const text = typeof amount === "number" ? (Number.isFinite(amount) ? String(amount) : "") : amount.trim();
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const frac = m[2] ?? "";
  if (/[1-9]/.test(frac.slice(2))) return null;
  const kop = Number(frac.slice(0, 2).padEnd(2, "0"));
  return Number(m[1]) * 100 + kop;
}
