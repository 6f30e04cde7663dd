import { describe, expect, it } from "vitest";
import { parsePromoCommand } from "../../src/promo/parse.js";

describe("/promo lines", () => {
  it("reads a code with every option", () => {
    const r = parsePromoCommand(
      "new spring 12.5% for=stars,gift limit=100 per=1 from=2026-03-01 to=2026-03-31 min=500",
      Date.UTC(2026, 1, 20),
    );
    expect(r).toEqual({
      ok: true,
      value: {
        action: "new",
        code: "SPRING",
        terms: {
          type: "percent",
          value: 12.5,
          products: ["stars", "gift"],
          maxUses: 100,
          perCustomer: 1,
          minOrderKopecks: 50_000,
          validFrom: Date.UTC(2026, 2, 1),
          validTo: Date.UTC(2026, 3, 1),
        },
      },
    });
  });

  it("reads roubles off, batches of one-time codes, off and list", () => {
    expect(parsePromoCommand("new GIFT-150 149,90")).toMatchObject({
      ok: true,
      value: { terms: { type: "fixed", value: 14_990 } },
    });
    expect(parsePromoCommand("batch 20 10% limit=5")).toMatchObject({
      ok: true,
      value: { action: "batch", count: 20, terms: { maxUses: 1 } },
    });
    expect(parsePromoCommand("off spring")).toEqual({ ok: true, value: { action: "off", code: "SPRING" } });
    expect(parsePromoCommand("")).toEqual({ ok: true, value: { action: "list" } });
  });

  it("names the rule a bad line breaks", () => {
    const rule = (s: string) => {
      const r = parsePromoCommand(s);
      return r.ok ? "ok" : r.rule;
    };
    expect(rule("new AB 10%")).toBe("op-promo-rule-code");
    expect(rule("new SPRING 0%")).toBe("op-promo-rule-discount");
    expect(rule("new SPRING 101%")).toBe("op-promo-rule-discount");
    expect(rule("new SPRING ten")).toBe("op-promo-rule-discount");
    expect(rule("new SPRING 10% for=stars,candy")).toBe("op-promo-rule-for");
    expect(rule("new SPRING 10% limit=-1")).toBe("op-promo-rule-count");
    expect(rule("new SPRING 10% from=2026-02-30")).toBe("op-promo-rule-date");
    expect(rule("new SPRING 10% from=2026-03-02 to=2026-03-01")).toBe("op-promo-rule-dates");
    expect(rule("new SPRING 10% min=lots")).toBe("op-promo-rule-min");
    expect(rule("new SPRING 10% colour=red")).toBe("op-promo-rule-option");
    expect(rule("batch 101 10%")).toBe("op-promo-rule-batch");
    expect(rule("new SPRING 10% limit=5 limit=6")).toBe("op-promo-rule-repeated");
    expect(rule("batch 5 10% for=stars min=100 for=gift")).toBe("op-promo-rule-repeated");
    expect(rule("delete SPRING")).toBe("op-promo-usage");
  });

  it("refuses a last day that is over, for a code and a batch: such a code could never be used", () => {
    const now = Date.UTC(2026, 10, 28, 13, 0);
    expect(parsePromoCommand("new OLD1 10% to=2026-11-27", now)).toEqual({
      ok: false,
      rule: "op-promo-rule-past",
      vars: { day: "2026-11-27" },
    });
    expect(parsePromoCommand("batch 5 150 to=2020-01-01", now)).toMatchObject({
      ok: false,
      rule: "op-promo-rule-past",
    });
    // Today is still usable until its end (UTC).
    expect(parsePromoCommand("new TODAY 10% to=2026-11-28", now)).toMatchObject({
      ok: true,
      value: { terms: { validTo: Date.UTC(2026, 10, 29) } },
    });
  });
});
