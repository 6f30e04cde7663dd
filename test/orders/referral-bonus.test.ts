import { afterEach, describe, expect, it } from "vitest";
import { encodeJob } from "../../src/orders/jobs.js";
import { orderKeys } from "../../src/orders/keys.js";
import { jobsFor } from "../../src/orders/lifecycle.js";
import { referralBonusKopecks } from "../../src/orders/referral-bonus.js";
import type { Customer, Order } from "../../src/orders/types.js";
import { Referrals } from "../../src/referrals/referrals.js";
import type { WalletLedger } from "../../src/wallet/ledger.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { order as sampleOrder } from "../helpers/orders.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * Referral bonuses on the engine with a real Redis and the reseller sandbox: a referred
 * customer's delivered order credits the referrer's wallet REFERRAL_PERCENT of the price once,
 * failed orders credit nothing, and who referred whom is fixed by the first link.
 */

let h: (EngineHarness & { wallet: WalletLedger }) | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(percent = 10) {
  const started = await startEngineHarness({
    checkout: ["wallet", "stars"],
    wallet: true,
    config: { referralPercent: percent },
  });
  h = started as EngineHarness & { wallet: WalletLedger };
  return { hh: h, referrals: new Referrals(h.redis, h.prefix) };
}

/** Quotes a stars order for `customer`, pays it from a wallet topped up for it, and waits for its final state. */
async function buy(hh: EngineHarness & { wallet: WalletLedger }, customer: Customer): Promise<Order> {
  const quoted = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
  await hh.wallet.credit(customer.userId, {
    amountKopecks: quoted.priceKopecks!,
    reason: "topup",
    ref: `topup:${quoted.id}`,
    paymentRef: quoted.id,
  });
  const paid = await hh.engine.payFromWallet(quoted.id, customer.userId);
  expect(paid.ok).toBe(true);
  return eventually(async () => {
    const o = await hh.engine.get(quoted.id);
    return o?.finalNotifiedAt && ["delivered", "failed"].includes(o.state) ? o : null;
  });
}

async function referralEntries(hh: EngineHarness & { wallet: WalletLedger }, userId: number) {
  return (await hh.wallet.audit(userId)).entries.filter((e) => e.reason === "referral");
}

describe("referral bonus", () => {
  it("credits the referrer once per delivered order, even when the delivery is applied and the job run again", async () => {
    const { hh, referrals } = await harness(10);
    const referrer = newCustomer();
    const friend = newCustomer();
    const code = await referrals.codeOf(referrer.userId);
    expect(await referrals.codeOf(referrer.userId)).toBe(code);
    expect(await referrals.attach(friend.userId, code)).toEqual({
      outcome: "attached",
      referrerId: referrer.userId,
    });

    const order = await buy(hh, friend);
    expect(order.state).toBe("delivered");
    const expected = referralBonusKopecks(order.priceKopecks!, 10);
    expect(expected).toBe(Math.floor(order.priceKopecks! / 10));
    await eventually(() => hh.notifier.referralBonuses.length === 1, 10_000, "the referrer told");

    // The delivery seen again (a late webhook, a poll) and the bonus job run again (a crash before it finished).
    const remote = await hh.client.getOrder(order.id);
    await hh.engine.applyResellerOrder(order.id, remote);
    await hh.engine.store.jobs.schedule(encodeJob({ type: "referral", orderId: order.id }), Date.now());
    await hh.addEngine().store.jobs.schedule(encodeJob({ type: "referral", orderId: order.id }), Date.now());
    await eventually(
      async () => (await hh.redis.zscore(orderKeys(hh.prefix).jobs, `referral:${order.id}`)) === null,
      10_000,
      "the repeated jobs done",
    );
    await eventually(async () => (await hh.outgoingFor(order.id)) === 0, 10_000, "messages sent");

    const entries = await referralEntries(hh, referrer.userId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      amountKopecks: expected,
      ref: `referral:${order.id}`,
      orderId: order.id,
    });
    expect(await hh.wallet.balance(referrer.userId)).toBe(expected);
    expect(hh.notifier.referralBonuses).toEqual([
      { referrerId: referrer.userId, amountKopecks: expected, balanceKopecks: expected },
    ]);
    expect(await referrals.stats(referrer.userId)).toMatchObject({
      joined: 1,
      orders: 1,
      earnedKopecks: expected,
    });
    // The friend's own wallet got nothing for being referred.
    expect(await referralEntries(hh, friend.userId)).toEqual([]);
  });

  it("credits nothing for a failed order (refunded to the customer's wallet)", async () => {
    const { hh, referrals } = await harness(10);
    const referrer = newCustomer();
    const friend = newCustomer();
    await referrals.attach(friend.userId, await referrals.codeOf(referrer.userId));
    hh.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient not found" }));

    const order = await buy(hh, friend);
    expect(order.state).toBe("failed");
    await eventually(async () => (await hh.engine.get(order.id))?.refund === "done", 10_000, "refunded");
    // A bonus job forced onto the failed order does nothing either.
    await hh.engine.store.jobs.schedule(encodeJob({ type: "referral", orderId: order.id }), Date.now());
    await eventually(
      async () => (await hh.redis.zscore(orderKeys(hh.prefix).jobs, `referral:${order.id}`)) === null,
      10_000,
      "the forced job done",
    );
    expect(await referralEntries(hh, referrer.userId)).toEqual([]);
    expect(await hh.wallet.balance(referrer.userId)).toBe(0);
    expect(hh.notifier.referralBonuses).toEqual([]);
    expect(await referrals.stats(referrer.userId)).toMatchObject({ joined: 1, orders: 0, earnedKopecks: 0 });
  });

  it("credits nothing when the customer was not referred", async () => {
    const { hh } = await harness(10);
    const order = await buy(hh, newCustomer());
    expect(order.state).toBe("delivered");
    expect(await hh.redis.zscore(orderKeys(hh.prefix).jobs, `referral:${order.id}`)).toBeNull();
    expect(hh.notifier.referralBonuses).toEqual([]);
  });
});

describe("attaching a customer to a referrer", () => {
  it("refuses a customer's own link, keeps the first link, and skips customers who ordered before", async () => {
    const { hh, referrals } = await harness(10);
    const first = newCustomer();
    const second = newCustomer();
    const friend = newCustomer();
    const firstCode = await referrals.codeOf(first.userId);
    const secondCode = await referrals.codeOf(second.userId);
    expect(firstCode).not.toBe(secondCode);

    expect((await referrals.attach(first.userId, firstCode)).outcome).toBe("self");
    expect(await referrals.referrerOf(first.userId)).toBeUndefined();

    expect((await referrals.attach(friend.userId, firstCode)).outcome).toBe("attached");
    expect((await referrals.attach(friend.userId, secondCode)).outcome).toBe("already");
    expect((await referrals.attach(friend.userId, firstCode)).outcome).toBe("already");
    expect(await referrals.referrerOf(friend.userId)).toBe(first.userId);
    expect((await referrals.stats(first.userId)).joined).toBe(1);
    expect((await referrals.stats(second.userId)).joined).toBe(0);

    const regular = newCustomer();
    await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer: regular });
    expect((await referrals.attach(regular.userId, secondCode)).outcome).toBe("customer");
    expect(await referrals.referrerOf(regular.userId)).toBeUndefined();

    expect((await referrals.attach(newCustomer().userId, "zzzzzzzz")).outcome).toBe("unknown");
    expect((await referrals.attach(newCustomer().userId, "not a code")).outcome).toBe("unknown");
  });
});

describe("the bonus job in the lifecycle", () => {
  const T = 1_000_000;
  const jobs = (o: Order, referralBonus: boolean) =>
    jobsFor(o, "pending", { now: T, quoteTtlMs: 900_000, pollMs: 3000, referralBonus })
      .filter((e) => "member" in e)
      .map((e) => ("member" in e ? e.member : ""));
  const base = (over: Partial<Order>) =>
    sampleOrder({ state: "delivered", createdAt: T, updatedAt: T, times: {}, ...over });

  it("is scheduled with a paid order's delivery, only when referrals are on", () => {
    const paid = base({ currency: "XTR", rail: "stars" });
    expect(jobs(paid, true)).toEqual([`referral:${paid.id}`]);
    expect(jobs(paid, false)).toEqual([]);
    expect(jobs(base({ currency: "RUB", rail: "wallet" }), true)).toHaveLength(1);
  });

  it("is not scheduled for orders nobody paid for (direct) nor for other final states", () => {
    expect(jobs(base({ currency: "NONE", rail: "direct" }), true)).toEqual([]);
    for (const state of ["failed", "rejected"] as const) {
      const o = base({ state, currency: "RUB", rail: "wallet" });
      expect(jobs(o, true).filter((m) => m.startsWith("referral:"))).toEqual([]);
    }
  });

  it("rounds the share down to whole kopecks", () => {
    expect(referralBonusKopecks(7_200, 10)).toBe(720);
    expect(referralBonusKopecks(999, 7)).toBe(69);
    expect(referralBonusKopecks(5, 10)).toBe(0);
    expect(referralBonusKopecks(7_200, 0)).toBe(0);
  });
});
