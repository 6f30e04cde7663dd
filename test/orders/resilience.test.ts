import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { OrdersEngine } from "../../src/orders/engine.js";
import type { Notifier, Order } from "../../src/orders/types.js";
import type { ResellerClient } from "../../src/reseller/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  quotePaidStars,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { testRedisUrl } from "../helpers/redis.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

class Died extends Error {}

/**
 * An engine that dies at a chosen point: its Redis connection is cut without reconnecting and
 * everything it does afterwards fails, as after kill -9. Whatever it had claimed stays leased.
 */
async function mortalEngine(hh: EngineHarness, dieAt: string, leaseMs: number) {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis.on("error", () => {});
  await new Promise((resolve) => redis.once("ready", resolve));
  let dead = false;
  const die = () => {
    dead = true;
    redis.disconnect(false);
    throw new Died(`died at ${dieAt}`);
  };
  const guard =
    <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>, after = false) =>
    async (...a: A): Promise<R> => {
      if (dead) throw new Died("dead");
      if (!after && name === dieAt) die();
      const r = await fn(...a);
      if (after && `${name}:after` === dieAt) die();
      return r;
    };
  const c = hh.client;
  const reseller: ResellerClient = {
    ...c,
    createOrder: guard("create", c.createOrder.bind(c), dieAt === "create:after"),
    payOrder: guard("pay", c.payOrder.bind(c), dieAt === "pay:after"),
    getOrder: guard("get", c.getOrder.bind(c), dieAt === "get:after"),
  };
  const n = hh.notifier;
  const notifier: Notifier = {
    updateCard: guard("card", n.updateCard.bind(n)),
    sendFinal: guard("final", n.sendFinal.bind(n), dieAt === "final:after"),
    refundStars: guard("refund", n.refundStars.bind(n), dieAt === "refund:after"),
    alert: n.alert.bind(n),
  };
  // Stars checkout and no webhooks, whatever the harness was started with.
  const engine = hh.buildEngine({
    redis,
    reseller,
    notifier,
    config: { checkout: ["stars"], resellerCallbackUrl: undefined },
    leaseMs,
  });
  return { engine, isDead: () => dead, redis };
}

async function waitFinal(engine: OrdersEngine, hh: EngineHarness, id: string, state: Order["state"]) {
  return eventually(
    async () => {
      const o = await engine.get(id);
      return o?.state === state && hh.notifier.finalsFor(id).length > 0 ? o : null;
    },
    15_000,
    `order ${id} ${state} and notified`,
  );
}

describe("crash recovery", () => {
  // Each point is a step boundary where a process can die; a fresh engine must finish the order.
  const points = ["pay", "pay:after", "get", "get:after", "card", "final", "refund", "refund:after"];

  it.each(points)("finishes the order once after a crash at %s", async (point) => {
    const hh = await startEngineHarness({ webhooks: false, leaseMs: 400 });
    h = hh;
    // The harness's own engine stays out of it: this test owns the lifecycle.
    await hh.engine.stop(0);
    const failing = point.startsWith("refund");
    if (failing) hh.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "Recipient not found" }));
    const mortal = await mortalEngine(hh, point, 400);
    const customer = newCustomer();
    const order = await mortal.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    mortal.engine.start();
    await mortal.engine.markPaid(order.id, {
      userId: customer.userId,
      currency: "XTR",
      totalAmount: order.amount!,
      telegramChargeId: `crash-${point}`,
    });
    await eventually(() => mortal.isDead(), 10_000, `the engine to die at ${point}`);
    void mortal.engine.stop(0).catch(() => {});

    const successor = hh.addEngine({ resellerCallbackUrl: undefined });
    const done = await waitFinal(successor, hh, order.id, failing ? "failed" : "delivered");
    await new Promise((r) => setTimeout(r, 600));
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
    expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
    if (failing) {
      expect(done.refund).toBe("done");
      expect(hh.notifier.refunds.filter((r) => r.chargeId === `crash-${point}`)).toHaveLength(1);
    }
  });

  it("finishes a quote whose create answer was lost to a crash when the customer retries", async () => {
    const hh = await startEngineHarness({ webhooks: false });
    h = hh;
    const mortal = await mortalEngine(hh, "create:after", 400);
    const input = { orderId: newOrderId(), item: sampleItems().stars!, customer: newCustomer() };
    await expect(mortal.engine.quote(input)).rejects.toBeInstanceOf(Died);
    expect((await hh.engine.get(input.orderId))?.state).toBe("draft");
    const order = await hh.engine.quote(input);
    expect(order.state).toBe("quoted");
    expect(hh.sandbox.orders().filter((o) => o.customId === input.orderId)).toHaveLength(1);
  });

  it("resumes paid and pending orders left by a stopped process when a new one starts", async () => {
    const hh = await startEngineHarness({ webhooks: false, leaseMs: 300 });
    h = hh;
    hh.sandbox.pauseDelivery(true);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const o = await quotePaidStars(hh.engine, `resume-${i}`);
      ids.push(o.id);
    }
    await eventually(
      async () => {
        const page = await hh.engine.listAll("pending", 0, 10);
        return page.total >= 5 && page.items.every((o) => o.state === "pending");
      },
      5000,
      "all pending",
    );
    await hh.engine.stop();
    hh.engines.shift();
    hh.sandbox.pauseDelivery(false);
    const next = hh.addEngine();
    for (const id of ids) await waitFinal(next, hh, id, "delivered");
    expect(ids.map((id) => hh.sandbox.stats(id).charges)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe("several engines on one Redis", () => {
  it("runs a job that outlasts its lease only once, however many engines are polling", async () => {
    const hh = await startEngineHarness({ leaseMs: 200 });
    h = hh;
    hh.addEngine();
    hh.addEngine();
    // Sending the final message takes far longer than the lease (Telegram's limits, a slow network).
    const send = hh.notifier.sendFinal.bind(hh.notifier);
    hh.notifier.sendFinal = async (order) => {
      await new Promise((r) => setTimeout(r, 1200));
      await send(order);
    };
    const o = await quotePaidStars(hh.engine, "slow-final");
    await eventually(() => hh.notifier.finalsFor(o.id).length > 0, 15_000, "the final message");
    await new Promise((r) => setTimeout(r, 2500));
    expect(hh.notifier.finalsFor(o.id)).toHaveLength(1);
  });

  it("notifies and charges each of 100 orders exactly once", async () => {
    const hh = await startEngineHarness({ sandbox: { deliveryDelayMs: 20 } });
    h = hh;
    const second = hh.addEngine();
    const engines = [hh.engine, second];
    const orders = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const o = await quotePaidStars(engines[i % 2]!, `multi-${i}`, engines[(i + 1) % 2]!);
        return o.id;
      }),
    );
    await eventually(() => orders.every((id) => hh.notifier.finalsFor(id).length > 0), 30_000, "100 finals");
    await new Promise((r) => setTimeout(r, 500));
    for (const id of orders) {
      expect(hh.notifier.finalsFor(id)).toHaveLength(1);
      expect(hh.sandbox.stats(id).charges).toBe(1);
    }
    expect(hh.sandbox.totalCharges()).toBe(100);
  });
});
