import { describe, expect, it } from "vitest";
import { RAILS } from "../../src/config.js";
import { enter, jobsFor } from "../../src/orders/lifecycle.js";
import { currencyOfRail, railOf, refundRoute, refundsAutomatically } from "../../src/orders/rails.js";
import type { Order, OrderState } from "../../src/orders/types.js";
import { order as sampleOrder } from "../helpers/orders.js";

const T = 1_000_000;
const timing = { now: T, quoteTtlMs: 900_000, pollMs: 3000 };

function order(state: OrderState, over: Partial<Order> = {}): Order {
  return sampleOrder({ state, createdAt: T, updatedAt: T, times: {}, ...over });
}

/** Kinds of what entering a state schedules: "job:<type>", "message:<kind>", "cancel:<type>". */
const effects = (o: Order, from: OrderState) =>
  jobsFor(o, from, timing).map((e) =>
    "cancel" in e
      ? `cancel:${e.cancel.split(":")[0]}`
      : "member" in e
        ? `job:${e.member.split(":")[0]}`
        : "stands" in e
          ? `stands:${e.stands.split(":")[0]}`
          : `message:${e.message.kind}`,
  );

describe("payment rails", () => {
  it("takes the recorded rail, and for records older than rails derives it from the currency", () => {
    expect(railOf({ rail: "yookassa", currency: "RUB" })).toBe("yookassa");
    expect(railOf({ rail: "wallet", currency: "RUB" })).toBe("wallet");
    expect(railOf({ currency: "XTR" })).toBe("stars");
    expect(railOf({ currency: "RUB" })).toBe("invoice");
    expect(railOf({ currency: "NONE" })).toBe("direct");
  });

  it("prices Stars in Stars, direct checkout in nothing, every other rail in kopecks", () => {
    const units = Object.fromEntries(RAILS.map((r) => [r, currencyOfRail(r)]));
    expect(units).toEqual({
      stars: "XTR",
      invoice: "RUB",
      yookassa: "RUB",
      cryptopay: "RUB",
      wallet: "RUB",
      direct: "NONE",
    });
  });

  it("gives money back on the rail it came from", () => {
    const rub = { currency: "RUB" as const };
    expect(refundRoute({ rail: "stars", currency: "XTR", telegramChargeId: "c1" })).toBe("stars");
    expect(refundRoute({ rail: "yookassa", ...rub, telegramChargeId: "yookassa:p1" })).toBe("yookassa");
    expect(refundRoute({ rail: "wallet", ...rub, telegramChargeId: "wallet:o1" })).toBe("wallet");
    expect(refundRoute({ rail: "direct", currency: "NONE" })).toBe("none");
    // Stars never charged (no charge id): nothing to give back.
    expect(refundRoute({ rail: "stars", currency: "XTR" })).toBe("none");
  });

  it("sends what the bot cannot refund itself to the wallet when one was offered, else to the operators", () => {
    for (const rail of ["invoice", "cryptopay"] as const) {
      expect(refundRoute({ rail, currency: "RUB", telegramChargeId: "x" })).toBe("manual");
      expect(refundRoute({ rail, currency: "RUB", telegramChargeId: "x", refundToWallet: true })).toBe(
        "wallet",
      );
    }
    // An order written before rails existed, paid through a Telegram provider invoice.
    expect(refundRoute(order("failed", { currency: "RUB", telegramChargeId: "tg" }))).toBe("manual");
  });

  it("routes a second payment by its own rail, not the order's", () => {
    expect(
      refundRoute({
        telegramChargeId: "yookassa:p2",
        providerChargeId: "p2",
        currency: "RUB",
        amount: 8_300,
        refund: "needed",
        rail: "yookassa",
      }),
    ).toBe("yookassa");
    expect(refundRoute({ telegramChargeId: "stx", currency: "XTR", amount: 56, refund: "needed" })).toBe(
      "stars",
    );
  });

  it("refunds automatically on Stars, YooKassa and the wallet only", () => {
    expect(refundsAutomatically("stars")).toBe(true);
    expect(refundsAutomatically("yookassa")).toBe(true);
    expect(refundsAutomatically("wallet")).toBe(true);
    expect(refundsAutomatically("manual")).toBe(false);
    expect(refundsAutomatically("none")).toBe(false);
  });
});

describe("refunds in the lifecycle", () => {
  const paidBy = (rail: Order["rail"], over: Partial<Order> = {}) =>
    order("pending", {
      currency: rail === "stars" ? "XTR" : "RUB",
      rail,
      telegramChargeId: `${rail}:charge`,
      providerChargeId: "charge",
      ...over,
    });

  it("a failed or rejected YooKassa order is refunded by a job before its final message", () => {
    for (const to of ["failed", "rejected"] as const) {
      const next = enter(paidBy("yookassa"), to, T);
      expect(next.refund).toBe("none");
      expect(effects(next, "pending")).toEqual([
        "message:alert",
        "job:refund",
        "cancel:step",
        "cancel:track",
      ]);
    }
  });

  it("the wallet refunds a wallet payment, and a Crypto Pay one when the wallet was offered", () => {
    for (const o of [paidBy("wallet"), paidBy("cryptopay", { refundToWallet: true })]) {
      const next = enter(o, "failed", T);
      expect(next.refund).toBe("none");
      expect(effects(next, "pending")).toContain("job:refund");
    }
  });

  it("a payment the bot cannot refund is owed by hand: final message at once and an alert", () => {
    for (const o of [paidBy("cryptopay"), paidBy("invoice")]) {
      const next = enter(o, "rejected", T);
      expect(next.refund).toBe("needed");
      // (Rejected from `paid`: the order's step leaves the schedule too.)
      expect(effects(next, "paid")).toEqual([
        "message:alert",
        "message:final",
        "message:alert",
        "cancel:step",
        "cancel:track",
      ]);
    }
  });

  it("nothing is owed for direct checkout, nor refunded twice", () => {
    const direct = enter(order("paid", { currency: "NONE", rail: "direct" }), "rejected", T);
    expect(direct.refund).toBe("none");
    expect(effects(direct, "paid")).toEqual([
      "message:alert",
      "message:final",
      "cancel:step",
      "cancel:track",
    ]);
    const done = enter(paidBy("yookassa", { refund: "done" }), "failed", T);
    expect(done.refund).toBe("done");
    expect(effects(done, "pending")).not.toContain("job:refund");
  });

  it("delivery owes no refund", () => {
    const next = enter(paidBy("yookassa"), "delivered", T);
    expect(next.refund).toBe("none");
    expect(effects(next, "pending")).toEqual(["message:final", "cancel:step", "cancel:track"]);
  });
});
