import { describe, expect, it } from "vitest";
import { customerPriceKopecks, rubToKopecks, starsForPrice } from "../../src/orders/pricing.js";

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
