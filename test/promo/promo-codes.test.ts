import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { starsForPrice } from "../../src/orders/pricing.js";
import type { Order, OrderItem } from "../../src/orders/types.js";
import { discountOn } from "../../src/promo/discount.js";
import type { PromoCode } from "../../src/promo/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/** Promo codes against a real Redis and the orders engine (uses counted in Lua, orders re-priced). */

let h: EngineHarness;
let seq = 0;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h?.close();
});

function promo(over: Partial<PromoCode> = {}): PromoCode {
  seq += 1;
  return {
    code: `TEST${seq}X`,
    type: "percent",
    value: 10,
    products: [],
    maxUses: 0,
    perCustomer: 0,
    minOrderKopecks: 0,
    createdAt: Date.now(),
    createdBy: 1,
    ...over,
  };
}

async function quoted(item: OrderItem = sampleItems().steam!, customer = newCustomer()): Promise<Order> {
  const order = await h.engine.quote({ orderId: newOrderId(), item, customer });
  expect(order.state).toBe("quoted");
  return order;
}

describe("discount arithmetic", () => {
  it("takes a percent rounded down to kopecks, a fixed amount as is, never below wholesale", () => {
    expect(discountOn({ type: "percent", value: 10 }, 12345, 10000)).toEqual({
      priceKopecks: 11111,
      discountKopecks: 1234,
      clamped: false,
    });
    expect(discountOn({ type: "fixed", value: 500 }, 12000, 10000)).toEqual({
      priceKopecks: 11500,
      discountKopecks: 500,
      clamped: false,
    });
    expect(discountOn({ type: "fixed", value: 5000 }, 12000, 10000)).toEqual({
      priceKopecks: 10000,
      discountKopecks: 2000,
      clamped: true,
    });
    expect(discountOn({ type: "percent", value: 100 }, 12000, 10000).priceKopecks).toBe(10000);
  });
});

describe("promo codes on orders", () => {
  it("re-prices a quoted order, Stars included, and stores the code on it", async () => {
    const p = promo({ value: 5 });
    expect(await h.engine.promos!.create(p)).toBe(true);
    expect(await h.engine.promos!.create(p)).toBe(false);
    const order = await quoted();
    const r = await h.engine.applyPromo!(order.id, order.customer.userId, p.code.toLowerCase());
    expect(r.ok).toBe(true);
    const after = await h.engine.get(order.id);
    const expected = discountOn(p, order.priceKopecks!, order.wholesaleKopecks!).priceKopecks;
    expect(after?.priceKopecks).toBe(expected);
    expect(after?.starsAmount).toBe(starsForPrice(expected, 1.5));
    expect(after?.amount).toBe(starsForPrice(expected, 1.5));
    expect(after?.promo).toEqual({
      code: p.code,
      discountKopecks: order.priceKopecks! - expected,
      originalPriceKopecks: order.priceKopecks,
    });
    // The pre-checkout check wants the new Stars amount, not the old one.
    const stale = await h.engine.checkPayable(order.id, {
      userId: order.customer.userId,
      currency: "XTR",
      totalAmount: order.amount!,
    });
    expect(stale.ok).toBe(false);
    // A second code on the same order is refused and nothing changes.
    const second = await h.engine.applyPromo!(order.id, order.customer.userId, p.code);
    expect(second).toMatchObject({ ok: false, reason: "already" });
  });

  it("never goes below the wholesale price: the discount is cut and says so", async () => {
    const p = promo({ type: "fixed", value: 10_000_000 });
    await h.engine.promos!.create(p);
    const order = await quoted();
    const r = await h.engine.applyPromo!(order.id, order.customer.userId, p.code);
    expect(r.ok).toBe(true);
    const after = await h.engine.get(order.id);
    expect(after?.priceKopecks).toBe(order.wholesaleKopecks);
    expect(after?.promo?.clamped).toBe(true);
  });

  it("two customers racing for the last use: exactly one wins", async () => {
    const p = promo({ maxUses: 1 });
    await h.engine.promos!.create(p);
    const orders = await Promise.all(Array.from({ length: 8 }, () => quoted()));
    const results = await Promise.all(
      orders.map((o) => h.engine.applyPromo!(o.id, o.customer.userId, p.code)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(7).fill("exhausted"));
    expect((await h.engine.promos!.get(p.code))?.used).toBe(1);
  });

  it("counts uses per customer", async () => {
    const p = promo({ perCustomer: 1 });
    await h.engine.promos!.create(p);
    const customer = newCustomer();
    const a = await quoted(sampleItems().steam!, customer);
    const b = await quoted(sampleItems().steam!, customer);
    expect((await h.engine.applyPromo!(a.id, customer.userId, p.code)).ok).toBe(true);
    expect(await h.engine.applyPromo!(b.id, customer.userId, p.code)).toMatchObject({
      ok: false,
      reason: "customer_limit",
    });
    const other = await quoted();
    expect((await h.engine.applyPromo!(other.id, other.customer.userId, p.code)).ok).toBe(true);
  });

  it("refuses a code before or after its dates, for another product, under its minimum order", async () => {
    const now = Date.now();
    const early = promo({ validFrom: now + 3_600_000 });
    const late = promo({ validTo: now - 1 });
    const starsOnly = promo({ products: ["stars"] });
    const big = promo({ minOrderKopecks: 100_000_000 });
    for (const p of [early, late, starsOnly, big]) await h.engine.promos!.create(p);
    const order = await quoted();
    const uid = order.customer.userId;
    expect(await h.engine.applyPromo!(order.id, uid, early.code)).toMatchObject({ reason: "not_started" });
    expect(await h.engine.applyPromo!(order.id, uid, late.code)).toMatchObject({ reason: "ended" });
    expect(await h.engine.applyPromo!(order.id, uid, starsOnly.code)).toMatchObject({ reason: "product" });
    expect(await h.engine.applyPromo!(order.id, uid, big.code)).toMatchObject({ reason: "min_order" });
    expect(await h.engine.applyPromo!(order.id, uid, "NOPE-NOPE")).toMatchObject({ reason: "unknown" });
    expect((await h.engine.get(order.id))?.priceKopecks).toBe(order.priceKopecks);
    for (const p of [early, late, starsOnly, big]) expect((await h.engine.promos!.get(p.code))?.used).toBe(0);
    // A valid one still applies to the same order.
    const fine = promo({ products: ["steam"], minOrderKopecks: order.priceKopecks!, validTo: now + 60_000 });
    await h.engine.promos!.create(fine);
    expect((await h.engine.applyPromo!(order.id, uid, fine.code)).ok).toBe(true);
  });

  it("a disabled code is refused; another customer's order is not theirs to discount", async () => {
    const p = promo();
    await h.engine.promos!.create(p);
    const order = await quoted();
    expect(await h.engine.applyPromo!(order.id, order.customer.userId + 1, p.code)).toMatchObject({
      ok: false,
      reason: "not_quoted",
    });
    await h.engine.promos!.disable(p.code);
    expect(await h.engine.applyPromo!(order.id, order.customer.userId, p.code)).toMatchObject({
      reason: "disabled",
    });
  });

  it("a use is given back when the order is cancelled unpaid", async () => {
    const p = promo({ maxUses: 1 });
    await h.engine.promos!.create(p);
    const first = await quoted();
    expect((await h.engine.applyPromo!(first.id, first.customer.userId, p.code)).ok).toBe(true);
    const second = await quoted();
    expect(await h.engine.applyPromo!(second.id, second.customer.userId, p.code)).toMatchObject({
      reason: "exhausted",
    });
    expect((await h.engine.cancel(first.id, first.customer.userId)).won).toBe(true);
    await eventually(
      async () => ((await h.engine.promos!.get(p.code))?.used === 0 ? true : null),
      10_000,
      "the use given back",
    );
    expect((await h.engine.applyPromo!(second.id, second.customer.userId, p.code)).ok).toBe(true);
  });

  it("is refused once a provider payment page was made for the order", async () => {
    const p = promo();
    await h.engine.promos!.create(p);
    const order = await quoted();
    // As startPayment records a YooKassa page (its amount fixed at the provider).
    await h.engine.store.update(order.id, (o) => ({
      next: {
        ...o,
        payments: [{ rail: "yookassa", id: "pay-1", url: "https://pay.example/1", createdAt: Date.now() }],
      },
    }));
    expect(await h.engine.applyPromo!(order.id, order.customer.userId, p.code)).toMatchObject({
      ok: false,
      reason: "payment_started",
    });
    expect((await h.engine.get(order.id))?.priceKopecks).toBe(order.priceKopecks);
    expect((await h.engine.promos!.get(p.code))?.used).toBe(0);
  });

  it("an expired quote gives its use back; paid late, it counts it again", async () => {
    const p = promo({ maxUses: 1 });
    await h.engine.promos!.create(p);
    const short = h.addEngine({ quoteTtlSeconds: 0.3 });
    const order = await short.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer: newCustomer(),
    });
    expect((await short.applyPromo!(order.id, order.customer.userId, p.code)).ok).toBe(true);
    const discounted = (await short.get(order.id))!;
    await eventually(
      async () => ((await short.get(order.id))?.state === "expired" ? true : null),
      10_000,
      "the quote expired",
    );
    await eventually(
      async () => ((await short.promos!.get(p.code))?.used === 0 ? true : null),
      10_000,
      "the use given back",
    );
    // A Stars payment for the discounted amount arrives late: it counts, and so does the use.
    const paid = await short.markPaid(order.id, {
      userId: order.customer.userId,
      currency: "XTR",
      totalAmount: discounted.amount!,
      telegramChargeId: `late-${order.id}`,
    });
    expect(paid.outcome).toBe("paid");
    await eventually(
      async () => ((await short.promos!.get(p.code))?.used === 1 ? true : null),
      10_000,
      "the use counted again",
    );
  });
});
