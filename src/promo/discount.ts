import type { ProductKind } from "../config.js";
import type { PromoCode, PromoRefusal } from "./types.js";

/**
 * The discount a code gives on a price, as pure arithmetic in kopecks: a percent is taken from the
 * price and rounded down to whole kopecks; a fixed amount is taken as is; the result never goes
 * below the wholesale price (the discount is cut and `clamped` says so).
 */
export function discountOn(
  code: Pick<PromoCode, "type" | "value">,
  priceKopecks: number,
  wholesaleKopecks: number,
): { priceKopecks: number; discountKopecks: number; clamped: boolean } {
  const wanted =
    code.type === "percent"
      ? Number((BigInt(priceKopecks) * BigInt(Math.round(code.value * 100))) / 10_000n)
      : code.value;
  const floor = Math.min(priceKopecks, wholesaleKopecks);
  const price = Math.max(floor, priceKopecks - wanted);
  return {
    priceKopecks: price,
    discountKopecks: priceKopecks - price,
    clamped: price > priceKopecks - wanted,
  };
}

/** Whether a code may be used on an order of `kind` priced `priceKopecks` at `now` (limits are counted in Redis). */
export function promoRefusal(
  code: PromoCode,
  kind: ProductKind,
  priceKopecks: number,
  now: number,
): PromoRefusal | undefined {
  if (code.validFrom !== undefined && now < code.validFrom) return "not_started";
  if (code.validTo !== undefined && now >= code.validTo) return "ended";
  if (code.products.length > 0 && !code.products.includes(kind)) return "product";
  if (priceKopecks < code.minOrderKopecks) return "min_order";
  return undefined;
}

/** A code as typed by a customer or an operator, in its stored form; undefined when it cannot be one. */
export function normalizeCode(input: string): string | undefined {
  const s = input.trim().toUpperCase();
  return /^[A-Z0-9_-]{4,32}$/.test(s) ? s : undefined;
}

/** Characters of generated codes: no 0/O, 1/I/L, 2/Z, 5/S, 8/B. */
export const CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679";
