/**
 * Amounts as YooKassa writes them: a decimal string of roubles with two places ("123.45"),
 * converted to and from whole kopecks by string arithmetic only, never through a float.
 */

/** 12345 → "123.45", 1 → "0.01", 100 → "1.00". Throws on anything but a non-negative safe integer. */
export function formatKopecks(kopecks: number): string {
  if (!Number.isSafeInteger(kopecks) || kopecks < 0) {
    throw new RangeError(`an amount must be a whole, non-negative number of kopecks, got ${kopecks}`);
  }
  const digits = String(kopecks).padStart(3, "0");
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

const AMOUNT_RE = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** "123.45" → 12345, "5" → 500, "5.5" → 550; null for anything else (signs, exponents, 3+ decimals). */
export function parseKopecks(value: string): number | null {
  const m = AMOUNT_RE.exec(value.trim());
  if (!m) return null;
  const kopecks = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  return Number.isSafeInteger(kopecks) ? kopecks : null;
}
