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

/**
 * Customer price = wholesale × (1 + markup/100), rounded up to whole roubles, in kopecks.
 * The markup is taken to 1/100 of a percent and the product is computed in integers.
 */
export function customerPriceKopecks(wholesaleKopecks: number, markupPercent: number): number {
  const markupBasisPoints = Math.round(markupPercent * 100); // 10% → 1000
  // wholesale kopecks × (10000 + bp) / 10000 = price kopecks; whole roubles = ceil(that / 100)
  const numerator = BigInt(wholesaleKopecks) * BigInt(10_000 + markupBasisPoints);
  const denominator = 1_000_000n;
  const roubles = (numerator + denominator - 1n) / denominator;
  return Number(roubles) * 100;
}

/** Stars a customer pays for a price: ceil(price / STAR_PRICE_RUB), at least 1. */
export function starsForPrice(priceKopecks: number, starPriceRub: number): number {
  const starKopecks = Math.round(starPriceRub * 100);
  return Math.max(1, Math.ceil(priceKopecks / starKopecks));
}
