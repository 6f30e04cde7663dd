import { afterEach, describe, expect, it } from "vitest";
import { encodeJob } from "../../src/orders/jobs.js";
import { orderKeys } from "../../src/orders/keys.js";
import type { Order } from "../../src/orders/types.js";
import type { WalletLedger } from "../../src/wallet/ledger.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * Paying orders from one wallet, on the engine with a real Redis: purchases that race one balance,
 * from two engines (two processes) at once, and the crash between the debit and the order's
 * payment record.
 */

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function walletHarness(): Promise<EngineHarness & { wallet: WalletLedger }> {
  h = await startEngineHarness({ checkout: ["wallet", "stars"], wallet: true });
  if (!h.wallet) throw new Error("the harness has no wallet");
  return h as EngineHarness & { wallet: WalletLedger };
}

describe("paying orders from one wallet", () => {
  it("40 purchases racing a balance that covers 13, from two engines: 13 paid, never below zero", async () => {
    const hh = await walletHarness();
    const second = hh.addEngine();
    const customer = newCustomer();
    const item = sampleItems().stars!;
    const orders = await Promise.all(
      Array.from({ length: 40 }, () => hh.engine.quote({ orderId: newOrderId(), item, customer })),
    );
    const price = orders[0]!.priceKopecks!;
    expect(orders.every((o) => o.state === "quoted" && o.priceKopecks === price)).toBe(true);
    // Enough for 13 orders and one kopeck short of the 14th.
    const funds = 13 * price + price - 1;
    await hh.wallet.credit(customer.userId, {
      amountKopecks: funds,
      reason: "topup",
      ref: "topup:race-1",
      paymentRef: "race-1",
    });

    const results = await Promise.all(
      orders.map((o, i) => (i % 2 === 0 ? hh.engine : second).payFromWallet(o.id, customer.userId)),
    );
    const paid = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(paid).toHaveLength(13);
    expect(refused).toHaveLength(27);
    expect(refused.every((r) => !r.ok && r.reason === "insufficient")).toBe(true);

    const audit = await hh.wallet.audit(customer.userId);
    expect(audit.problems).toEqual([]);
    expect(audit.balanceKopecks).toBe(price - 1);
    expect(Math.min(...audit.entries.map((e) => e.balanceAfter))).toBeGreaterThanOrEqual(0);
    const debits = audit.entries.filter((e) => e.reason === "order");
    expect(debits).toHaveLength(13);
    expect(debits.every((e) => e.amountKopecks === -price)).toBe(true);
    const debited = new Set(debits.map((e) => e.orderId));
    expect(debited.size).toBe(13);

    const after = await Promise.all(orders.map((o) => hh.engine.get(o.id)));
    const paidOrders = after.filter((o): o is Order => o !== null && o.telegramChargeId !== undefined);
    expect(paidOrders).toHaveLength(13);
    for (const o of paidOrders) {
      expect(debited.has(o.id)).toBe(true);
      expect(o).toMatchObject({ rail: "wallet", currency: "RUB", amount: price });
      expect(o.telegramChargeId).toBe(`wallet:${o.id}`);
    }
    // The orders that were refused are still payable and untouched.
    for (const o of after.filter((x) => x && !debited.has(x.id))) {
      expect(o?.state).toBe("quoted");
      expect(o?.telegramChargeId).toBeUndefined();
    }

    // Each paid order reaches the reseller once and is delivered.
    await eventually(
      async () => {
        const states = await Promise.all(paidOrders.map((o) => hh.engine.get(o.id)));
        return states.every((o) => o?.state === "delivered") ? true : null;
      },
      20_000,
      "the 13 paid orders to be delivered",
    );
    for (const o of paidOrders) expect(hh.sandbox.stats(o.id)).toMatchObject({ pays: 1, charges: 1 });

    // Tapping again on any of them changes nothing.
    const again = await Promise.all(orders.map((o) => second.payFromWallet(o.id, customer.userId)));
    expect(again.filter((r) => r.ok)).toHaveLength(13);
    expect((await hh.wallet.audit(customer.userId)).entries).toHaveLength(audit.entries.length);
  });

  it("one order paid from the wallet by many taps on two engines at once: one debit, one payment", async () => {
    const hh = await walletHarness();
    const second = hh.addEngine();
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const price = order.priceKopecks!;
    await hh.wallet.credit(customer.userId, {
      amountKopecks: 10 * price,
      reason: "topup",
      ref: "topup:taps-1",
      paymentRef: "taps-1",
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? second : hh.engine).payFromWallet(order.id, customer.userId),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    const audit = await hh.wallet.audit(customer.userId);
    expect(audit.problems).toEqual([]);
    expect(audit.entries.filter((e) => e.reason === "order")).toHaveLength(1);
    expect(audit.balanceKopecks).toBe(9 * price);
    const delivered = await eventually(
      async () => {
        const o = await hh.engine.get(order.id);
        return o?.state === "delivered" ? o : null;
      },
      20_000,
      "the order to be delivered",
    );
    expect(delivered).toMatchObject({ telegramChargeId: `wallet:${order.id}`, amount: price });
    expect(delivered.extraCharges ?? []).toEqual([]);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("a debit written without the order's payment record: the settle job records it, once", async () => {
    const hh = await walletHarness();
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const price = order.priceKopecks!;
    await hh.wallet.credit(customer.userId, {
      amountKopecks: price,
      reason: "topup",
      ref: "topup:crash-1",
      paymentRef: "crash-1",
    });
    // What payFromWallet leaves when the process dies right after the debit.
    const debit = await hh.wallet.debit(customer.userId, {
      amountKopecks: price,
      reason: "order",
      ref: `order:${order.id}`,
      orderId: order.id,
    });
    expect(debit.ok).toBe(true);
    expect((await hh.engine.get(order.id))?.state).toBe("quoted");

    // Another process's worker runs the settle job (scheduled twice: it still records one payment).
    const other = hh.addEngine();
    const job = encodeJob({ type: "wsettle", orderId: order.id });
    await other.store.jobs.schedule(job, Date.now());
    const paid = await eventually(
      async () => {
        const o = await hh.engine.get(order.id);
        return o?.telegramChargeId ? o : null;
      },
      10_000,
      "the settle job to record the wallet payment",
    );
    expect(paid).toMatchObject({
      rail: "wallet",
      currency: "RUB",
      amount: price,
      telegramChargeId: `wallet:${order.id}`,
    });
    await other.store.jobs.schedule(job, Date.now());
    // The customer's tap arriving late is the same payment, not a second one.
    const late = await hh.engine.payFromWallet(order.id, customer.userId);
    expect(late.ok).toBe(true);
    const delivered = await eventually(
      async () => {
        const o = await hh.engine.get(order.id);
        return o?.state === "delivered" && (await hh.redis.zscore(orderKeys(hh.prefix).jobs, job)) === null
          ? o
          : null;
      },
      20_000,
      "the order to be delivered and its jobs done",
    );
    expect(delivered.extraCharges ?? []).toEqual([]);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    const audit = await hh.wallet.audit(customer.userId);
    expect(audit.problems).toEqual([]);
    expect(audit.entries.map((e) => e.reason)).toEqual(["topup", "order"]);
    expect(audit.balanceKopecks).toBe(0);
  });
});
