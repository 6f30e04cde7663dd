import { describe, expect, it } from "vitest";
import {
  customerPriceKopecks,
  priceKopecks,
  type Rounding,
  rubToKopecks,
  starsForPrice,
} from "../../src/orders/pricing.js";

describe("pricing", () => {
  it("converts the API's rouble floats to integer kopecks once", () => {
    expect(rubToKopecks(65.1)).toBe(6510);
    expect(rubToKopecks(0.1 + 0.2)).toBe(30);
    expect(rubToKopecks(1099)).toBe(109900);
  });

  it("adds the markup and rounds up to whole roubles", () => {
    expect(customerPriceKopecks(10000, 10)).toBe(11000); // 100 ₽ → 110 ₽
    expect(customerPriceKopecks(6510, 10)).toBe(7200); // 65.10 × 1.1 = 71.61 → 72 ₽
    expect(customerPriceKopecks(9091, 10)).toBe(10100); // 100.001 → 101 ₽
    expect(customerPriceKopecks(9090, 10)).toBe(10000); // 99.99 → 100 ₽
  });

  it("handles no markup and fractional markups exactly", () => {
    expect(customerPriceKopecks(10000, 0)).toBe(10000);
    expect(customerPriceKopecks(10001, 0)).toBe(10100);
    expect(customerPriceKopecks(10000, 12.5)).toBe(11300); // 112.5 → 113
  });

  it("prices large orders without float drift", () => {
    // 1,000,000 stars at 1.3 ₽ = 1,300,000 ₽; +10% = 1,430,000 ₽
    expect(customerPriceKopecks(rubToKopecks(1_300_000), 10)).toBe(143_000_000);
  });

  it("charges ceil(price / star price) stars, at least one", () => {
    expect(starsForPrice(7200, 1.5)).toBe(48);
    expect(starsForPrice(7300, 1.5)).toBe(49); // 48.67 → 49
    expect(starsForPrice(100, 1.5)).toBe(1);
    expect(starsForPrice(0, 1.5)).toBe(1);
  });
});

describe("price rules: minimum margin and rounding", () => {
  const rule = (markupPercent: number, minMarginKopecks: number, rounding: Rounding) => ({
    markupPercent,
    minMarginKopecks,
    rounding,
  });

  it("rounds up to whole roubles, to 10 ₽, or not at all", () => {
    // 65.10 × 1.1 = 71.61 ₽
    expect(priceKopecks(6510, rule(10, 0, "rub"))).toBe(7200);
    expect(priceKopecks(6510, rule(10, 0, "ten"))).toBe(8000);
    expect(priceKopecks(6510, rule(10, 0, "kopeck"))).toBe(7161);
    // a fraction of a kopeck is rounded up too: 10.01 × 1.125 = 11.26125 → 11.27
    expect(priceKopecks(1001, rule(12.5, 0, "kopeck"))).toBe(1127);
    // exact multiples stay where they are
    expect(priceKopecks(10000, rule(0, 0, "ten"))).toBe(10000);
    expect(priceKopecks(10000, rule(10, 0, "ten"))).toBe(11000);
  });

  it("keeps at least the minimum margin above wholesale, before rounding", () => {
    // 100 ₽ + 10% = 110 ₽ but the margin asks for 100 + 25 = 125 ₽
    expect(priceKopecks(10000, rule(10, 2500, "rub"))).toBe(12500);
    // the markup already gives more than the margin
    expect(priceKopecks(100000, rule(10, 2500, "rub"))).toBe(110000);
    // 100 ₽ + 25.50 ₽ = 125.50 → 126 ₽, → 130 ₽, → 125.50 ₽
    expect(priceKopecks(10000, rule(0, 2550, "rub"))).toBe(12600);
    expect(priceKopecks(10000, rule(0, 2550, "ten"))).toBe(13000);
    expect(priceKopecks(10000, rule(0, 2550, "kopeck"))).toBe(12550);
  });

  it("never goes below wholesale and matches the old formula with the defaults", () => {
    expect(priceKopecks(9999, rule(0, 0, "kopeck"))).toBe(9999);
    for (const w of [1, 99, 6510, 9090, 9091, 123456, 130000000]) {
      expect(priceKopecks(w, rule(10, 0, "rub"))).toBe(customerPriceKopecks(w, 10));
    }
  });
});
