/**
 * Every money rule in one place. Money is held as integer kopecks; floats from the API are
 * converted once, at the edge, and never summed.
 */

/** Roubles as the API reports them (a float) → integer kopecks. */
export function rubToKopecks(rub: number): number {
  return Math.round(rub * 100);
}

/** Integer kopecks → roubles, for display only. */
export function kopecksToRub(kopecks: number): number {
  return kopecks / 100;
}

/** How a customer price is rounded up: to whole roubles, to 10 ₽, or not at all (kopecks). */
export const ROUNDINGS = ["rub", "ten", "kopeck"] as const;
export type Rounding = (typeof ROUNDINGS)[number];

const ROUNDING_UNIT: Record<Rounding, bigint> = { rub: 100n, ten: 1000n, kopeck: 1n };

/** What turns a wholesale price into the customer's (see src/orders/price-settings.ts). */
export interface PriceRule {
  markupPercent: number;
  /** The price is at least wholesale + this, before rounding. */
  minMarginKopecks: number;
  rounding: Rounding;
}

/**
 * Customer price = max(wholesale × (1 + markup/100), wholesale + minimum margin), rounded up to
 * the rule's unit, in kopecks. The markup is taken to 1/100 of a percent and everything is
 * computed in integers (kopecks × 10 000).
 */
export function priceKopecks(wholesaleKopecks: number, rule: PriceRule): number {
  const markupBasisPoints = BigInt(Math.round(rule.markupPercent * 100)); // 10% → 1000
  const wholesale = BigInt(wholesaleKopecks);
  const marked = wholesale * (10_000n + markupBasisPoints);
  const floor = (wholesale + BigInt(Math.max(0, Math.round(rule.minMarginKopecks)))) * 10_000n;
  const exact = marked > floor ? marked : floor;
  const unit = ROUNDING_UNIT[rule.rounding] * 10_000n;
  return Number(((exact + unit - 1n) / unit) * ROUNDING_UNIT[rule.rounding]);
}

/** Customer price = wholesale × (1 + markup/100), rounded up to whole roubles, in kopecks. */
export function customerPriceKopecks(wholesaleKopecks: number, markupPercent: number): number {
  return priceKopecks(wholesaleKopecks, { markupPercent, minMarginKopecks: 0, rounding: "rub" });
}

/** Stars a customer pays for a price: ceil(price / STAR_PRICE_RUB), at least 1. */
export function starsForPrice(priceKopecks: number, starPriceRub: number): number {
  const starKopecks = Math.round(starPriceRub * 100);
  return Math.max(1, Math.ceil(priceKopecks / starKopecks));
}
