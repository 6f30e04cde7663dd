import { afterEach, describe, expect, it } from "vitest";
import { ProductPausedError } from "../../src/orders/deposit-guard.js";
import type { OrdersEngine } from "../../src/orders/engine.js";
import { enter } from "../../src/orders/lifecycle.js";
import { decodeRecord } from "../../src/orders/record.js";
import type { Order } from "../../src/orders/types.js";
import { ResellerApiError, ResellerValidationError } from "../../src/reseller/errors.js";
import {
  type EngineHarness,
  type HarnessOptions,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { watchCommands } from "../helpers/redis.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(opts: HarnessOptions = {}): Promise<EngineHarness> {
  h = await startEngineHarness(opts);
  return h;
}

let chargeSeq = 0;
async function quoteAndPay(hh: EngineHarness, item = sampleItems().stars!, afterQuote?: () => void) {
  const customer = newCustomer();
  const order = await hh.engine.quote({ orderId: newOrderId(), item, customer });
  expect(order.state).toBe("quoted");
  afterQuote?.();
  const receipt = {
    userId: customer.userId,
    currency: "XTR" as const,
    totalAmount: order.amount!,
    telegramChargeId: `stxCharge${++chargeSeq}`,
  };
  const paid = await hh.engine.markPaid(order.id, receipt);
  expect(paid.outcome).toBe("paid");
  return { order, customer, receipt };
}

async function finalState(hh: EngineHarness, id: string, states: Order["state"][] = ["delivered"]) {
  return eventually(
    async () => {
      const o = await hh.engine.get(id);
      const settled = o && states.includes(o.state) && hh.notifier.finalsFor(id).length > 0;
      // Settled also means its other messages (alerts, card updates) have left the outgoing queue.
      return settled && (await hh.outgoingFor(id)) === 0 ? o : null;
    },
    10_000,
    `order ${id} to reach ${states.join("/")} with a final notification`,
  );
}

/** The schedule members the engine's workers finish (hand back to the schedule), as they happen. */
/** Quotes `n` orders of 50 Stars for as many customers, then records all their payments at once. */
async function payAtOnce(hh: EngineHarness, n: number): Promise<{ order: Order }[]> {
  const quoted = await Promise.all(
    Array.from({ length: n }, async () => {
      const customer = newCustomer();
      const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
      return { order, customer };
    }),
  );
  await Promise.all(
    quoted.map(({ order, customer }) =>
      hh.engine.markPaid(order.id, {
        userId: customer.userId,
        currency: "XTR",
        totalAmount: order.amount!,
        telegramChargeId: `stxCharge${++chargeSeq}`,
      }),
    ),
  );
  return quoted;
}

function jobsFinished(hh: EngineHarness): string[] {
  const finished: string[] = [];
  const jobs = hh.engine.store.jobs;
  const finish = jobs.finish.bind(jobs);
  jobs.finish = (member, lease, rescheduleAt) => {
    finished.push(member);
    return finish(member, lease, rescheduleAt);
  };
  return finished;
}

describe("orders engine", () => {
  it.each(Object.entries(sampleItems()))(
    "takes a %s order from quote through pay and webhook to delivered, notifying once",
    async (_kind, item) => {
      const hh = await harness();
      const { order } = await quoteAndPay(hh, item);
      const done = await finalState(hh, order.id);
      expect(done.deliveredPayload).toBeTruthy();
      expect(done.wholesaleKopecks).toBeGreaterThan(0);
      expect(done.priceKopecks! % 100).toBe(0);
      expect(done.priceKopecks!).toBeGreaterThanOrEqual(done.wholesaleKopecks!);
      expect(hh.sandbox.stats(order.id)).toMatchObject({ creates: 1, pays: 1, charges: 1 });
      expect(hh.webhookOutcomes).toContain("accepted");
      await new Promise((r) => setTimeout(r, 300));
      expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
    },
  );

  it("prices a quote from the wholesale total with the markup and the star rate", async () => {
    const hh = await harness();
    const order = await hh.engine.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer: newCustomer(),
    });
    const wholesale = hh.sandbox.order(order.id)!.totalToPayRub;
    expect(order.wholesaleKopecks).toBe(Math.round(wholesale * 100));
    expect(order.priceKopecks).toBe(Math.ceil((wholesale * 1.1).toFixed(6) as unknown as number) * 100);
    expect(order.amount).toBe(Math.ceil(order.priceKopecks! / 150));
    expect(order.currency).toBe("XTR");
  });

  it("records the card's message with the quote: one write for the price and the card, no card update queued", async () => {
    const hh = await harness();
    const orderId = newOrderId();
    const order = await hh.engine.quote({
      orderId,
      item: sampleItems().stars!,
      customer: newCustomer(),
      cardMessageId: 4242,
    });
    expect(order).toMatchObject({ state: "quoted", cardMessageId: 4242 });
    // Created as a draft (version 1), quoted with its card (version 2): nothing else was written.
    expect(decodeRecord(await hh.redis.get(hh.engine.store.keys.order(orderId)), null)?.version).toBe(2);
    // Quoted at once, it kept the draft's expiry: its step (the expiry) and open-quote entry are the draft's.
    expect(order.expiresAt).toBe((order.times.draft ?? 0) + 900_000);
    expect(Number(await hh.redis.zscore(`${hh.prefix}jobs`, `step:${orderId}`))).toBe(order.expiresAt);
    expect(Number(await hh.redis.zscore(`${hh.prefix}idx:open:${order.customer.chatId}`, orderId))).toBe(
      order.expiresAt,
    );
    expect(await hh.outgoingFor(orderId)).toBe(0);
    expect(hh.notifier.cards.filter((o) => o.id === orderId)).toHaveLength(0);
  });

  it("leaves the flow's message alone when a quote is refused after create (the deposit cannot cover it)", async () => {
    const hh = await harness();
    const orderId = newOrderId();
    // The deposit is known to be empty (reseller and last read), seen by an engine with no cached read.
    hh.sandbox.setBalanceRub(0);
    await hh.redis.hset(`${hh.prefix}deposit`, "kopecks", "0", "at", String(Date.now()));
    const engine = hh.addEngine();
    await expect(
      engine.quote({ orderId, item: sampleItems().stars!, customer: newCustomer(), cardMessageId: 4243 }),
    ).rejects.toBeInstanceOf(ProductPausedError);
    const order = await hh.engine.get(orderId);
    expect(order?.state).toBe("cancelled");
    expect(order?.cardMessageId).toBeUndefined();
    // The operators' product_paused alert may still be on its way; no card update is among what was queued.
    await eventually(async () => (await hh.outgoingFor(orderId)) === 0, 10_000, "the alert to be sent");
    expect(hh.notifier.cards.filter((o) => o.id === orderId)).toHaveLength(0);
  });

  it("re-reads an order at once on its delivery webhook, writes nothing for the hint, and ends its polling when it settles", async () => {
    // Polling every minute: only the webhook's re-read can deliver within the test.
    const hh = await harness({ config: { pollIntervalSeconds: 60 } });
    const { order } = await quoteAndPay(hh);
    const done = await finalState(hh, order.id);
    expect(done.deliveredPayload).toBeTruthy();
    expect(hh.webhookOutcomes).toContain("accepted");
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    // The track job scheduled at `pending` left with the final transition: no job of it is left.
    const jobs = await hh.redis.zrange(`${hh.prefix}jobs`, 0, -1);
    expect(jobs.filter((m) => m.includes(order.id))).toEqual([]);
  });

  it("moves the order's step from pay to tracking with the pending write: nothing is left for pay's run to finish", async () => {
    const hh = await harness({ config: { pollIntervalSeconds: 60 } });
    const finished = jobsFinished(hh);
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(await hh.redis.zscore(`${hh.prefix}jobs`, `step:${order.id}`)).toBeNull();
    // Delivered by the webhook's re-read before the first poll: the step was never finished by a worker.
    expect(finished.filter((m) => m === `step:${order.id}`)).toEqual([]);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  /** The order writes' states and where each put the order's step (undefined: not touched), in order. */
  function stepWrites(hh: EngineHarness, orderId: string): { state: string; stepAt?: number }[] {
    const writes: { state: string; stepAt?: number }[] = [];
    watchCommands(hh.redis, (command) => {
      const args = command.args.map(String);
      if (command.name !== "evalsha" || !args.includes(hh.engine.store.keys.order(orderId))) return;
      const state = args.map((a) => a.match(/^\d+\|(\w+)\|/)?.[1]).find(Boolean);
      if (!state) return;
      // Ops come in fours (op, key index, score, member): the score is two places before the member.
      const i = args.indexOf(`step:${orderId}`);
      writes.push({ state, ...(i > 0 && args[i - 3] === "add" ? { stepAt: Number(args[i - 1]) } : {}) });
    });
    return writes;
  }

  /**
   * Quotes 50 Stars through `engine` and pays for them there, watching where the order's writes put
   * its step (stepWrites); done once the order is pending.
   */
  async function paidUntilPending(hh: EngineHarness, engine: OrdersEngine) {
    const customer = newCustomer();
    const quoted = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const writes = stepWrites(hh, quoted.id);
    await engine.markPaid(quoted.id, {
      userId: customer.userId,
      currency: "XTR",
      totalAmount: quoted.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    });
    const pending = await eventually(async () => {
      const o = await hh.engine.get(quoted.id);
      return o?.state === "pending" ? o : null;
    });
    return { writes, pending, id: quoted.id };
  }

  it("leaves a quickly answered pay's step where the payment's write held it, as the first poll: the pending write schedules nothing", async () => {
    // No webhooks: the first poll (3 s after pay) is what delivers. Leases as deployed (10 s).
    const hh = await harness({ webhooks: false, leaseMs: 10_000, config: { pollIntervalSeconds: 3 } });
    const finished = jobsFinished(hh);
    const { writes, pending, id } = await paidUntilPending(hh, hh.engine);
    // The payment's write held the step until the first poll is due; the pending write left it there.
    const paidAt = writes.find((w) => w.state === "paid")?.stepAt;
    expect(paidAt).toBeGreaterThanOrEqual(pending.times.paid! + 3000);
    expect(paidAt).toBeLessThanOrEqual(pending.times.paid! + 3000 + 50);
    expect(writes.find((w) => w.state === "pending")).toEqual({ state: "pending" });
    expect(Number(await hh.redis.zscore(`${hh.prefix}jobs`, `step:${id}`))).toBe(paidAt);
    // That step is the first poll: it finds the order delivered.
    const done = await finalState(hh, id);
    expect(done.times.delivered).toBeGreaterThanOrEqual(paidAt!);
    expect(hh.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
    // The poll's own final write took the step off; pay's run finished nothing either.
    expect(finished.filter((m) => m === `step:${id}`)).toEqual([]);
    expect(await hh.redis.zscore(`${hh.prefix}jobs`, `step:${id}`)).toBeNull();
  });

  it("moves the step to the first poll when pay answered after the step's lease was renewed", async () => {
    const hh = await harness({ webhooks: false, leaseMs: 10_000, config: { pollIntervalSeconds: 3 } });
    // `pay` answers after 1.5 s: past the first renewal of a lease held for 3 s (a third of it).
    const slow = Object.create(hh.client) as typeof hh.client;
    slow.payOrder = async (id) => {
      await new Promise((r) => setTimeout(r, 1500));
      return hh.client.payOrder(id);
    };
    const engine = hh.buildEngine({ reseller: slow, config: { pollIntervalSeconds: 3 } });
    hh.engines.push(engine);
    engine.start();
    const renewals: string[] = [];
    const renew = engine.store.jobs.renew.bind(engine.store.jobs);
    engine.store.jobs.renew = (member, lease, next) => {
      renewals.push(member);
      return renew(member, lease, next);
    };
    const { writes, pending, id } = await paidUntilPending(hh, engine);
    expect(renewals).toContain(`step:${id}`);
    const moved = writes.find((w) => w.state === "pending")?.stepAt;
    expect(moved).toBeGreaterThanOrEqual(pending.times.pending! + 3000);
    expect(moved).toBeLessThanOrEqual(pending.times.pending! + 3000 + 50);
    await finalState(hh, id);
    expect(hh.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("polls from its own copy and finishes nothing after a poll that settles the order: its final write took the step off", async () => {
    // No webhooks: a poll (the order's step, due a second after `pay`) delivers it.
    const hh = await harness({ webhooks: false, config: { pollIntervalSeconds: 1 } });
    const finished = jobsFinished(hh);
    const reads: string[] = [];
    watchCommands(hh.redis, (command) => {
      if ((command.name === "mget" || command.name === "get") && String(command.args[0]).includes(":ord:"))
        reads.push(String(command.args[0]));
    });
    const { order } = await quoteAndPay(hh);
    // Waited for without reading the order (as `finalState` would).
    await eventually(async () => hh.notifier.finalsFor(order.id).length > 0, 10_000, "the final message");
    // The polls started from this process's copy of the pending order it wrote: the one read of the
    // order is the pending card's (a card shows what Redis holds now).
    expect(reads.filter((k) => k.includes(order.id))).toHaveLength(1);
    await finalState(hh, order.id);
    expect(hh.webhookOutcomes).toEqual([]);
    expect(finished.filter((m) => m.includes(order.id))).toEqual([]);
    const jobs = await hh.redis.zrange(`${hh.prefix}jobs`, 0, -1);
    expect(jobs.filter((m) => m.includes(order.id))).toEqual([]);
  });

  it("takes the re-read that a flood of delivery webhooks made due off with the final write, in the step's ZREM", async () => {
    const hh = await harness({ webhooks: false, config: { pollIntervalSeconds: 60 } });
    const finished = jobsFinished(hh);
    const { order } = await quoteAndPay(hh);
    await eventually(
      async () => (await hh.client.getOrder(order.id)).status === "delivered",
      10_000,
      "the reseller to deliver",
    );
    // What a hint does when every slot is busy (steps.ts onDeliveryHint): the re-read is made due
    // now, here, as a job of its own beside the order's step.
    const member = `track:${order.id}`;
    const removals: string[][] = [];
    watchCommands(hh.redis, (command) => {
      const args = command.args.map(String);
      if (command.name === "evalsha" && args.some((a) => a.includes("|delivered|"))) removals.push(args);
    });
    expect(await hh.engine.store.kick(order.id, member, ["paid", "pending"])).toBe(true);
    await finalState(hh, order.id);
    expect(finished.filter((m) => m.includes(order.id))).toEqual([]);
    const jobs = await hh.redis.zrange(`${hh.prefix}jobs`, 0, -1);
    expect(jobs.filter((m) => m.includes(order.id))).toEqual([]);
    // The delivered write named both members side by side (one ZREM inside the script).
    const ops = removals[0]!.join(" ");
    expect(ops).toMatch(new RegExp(`rem (\\d+) 0 step:${order.id} rem \\1 0 ${member}`));
  });

  it("lets a flood of delivery webhooks wait for a slot in memory: every order settles by its hint, no job is made for one", async () => {
    // One slot, polls a minute apart: only the hints can deliver within the test.
    const hh = await harness({ webhooks: false, concurrency: 1, config: { pollIntervalSeconds: 60 } });
    const paid = [];
    for (let i = 0; i < 5; i++) paid.push((await quoteAndPay(hh)).order);
    for (const order of paid) {
      await eventually(
        async () => (await hh.client.getOrder(order.id)).status === "delivered",
        10_000,
        "the reseller to deliver",
      );
    }
    const scripts: string[] = [];
    watchCommands(hh.redis, (command) => {
      const args = command.args.map(String);
      // A re-read job made due (lua/scheduleIfState-2.lua); the final writes name one only to take it off.
      if (
        command.name === "evalsha" &&
        args.some((a) => a.startsWith("track:")) &&
        !args.some((a) => a.includes("|"))
      )
        scripts.push(args.join(" "));
    });
    // The reseller's webhooks, all at once (twice for one order: a retry).
    const known = await Promise.all([...paid, paid[0]!].map((o) => hh.engine.onDeliveryHint(o.id)));
    expect(known).toEqual([true, true, true, true, true, true]);
    for (const order of paid) await finalState(hh, order.id);
    expect(scripts).toEqual([]);
    for (const order of paid) expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    // A hint for an order settled meanwhile is not one to act on.
    expect(await hh.engine.onDeliveryHint(paid[1]!.id)).toBe(false);
  });

  it("runs the pays of 40 payments recorded at once in the process that recorded them: none goes through the shared schedule", async () => {
    const hh = await harness({ config: { pollIntervalSeconds: 60 } });
    // A held job the worker has no room for is finished at once: handed to the schedule.
    const handedOver = jobsFinished(hh);
    // A rush's payments: each paid write holds its order's step for this process, which runs `pay`
    // at once. A worker without room for them all would hand the rest to the schedule, where any
    // worker claims them (a claim, a lease check and a card update of their own each).
    const quoted = await payAtOnce(hh, 40);
    for (const { order } of quoted) await finalState(hh, order.id);
    expect(handedOver.filter((m) => m.startsWith("step:"))).toEqual([]);
    for (const { order } of quoted) expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("leaves the held pay of a payment its full worker cannot take to the end of its short hold, without handing it over", async () => {
    // One slot; pay held 3 s (leases as deployed).
    const hh = await harness({ concurrency: 1, leaseMs: 10_000, config: { pollIntervalSeconds: 3 } });
    const handedOver = jobsFinished(hh);
    const quoted = await payAtOnce(hh, 3);
    const done = [];
    for (const { order } of quoted) done.push(await finalState(hh, order.id));
    // No script call handed the two the worker had no room for to the schedule.
    expect(handedOver.filter((m) => m.startsWith("step:"))).toEqual([]);
    // They ran when their holds ended, claimed as due.
    const waited = done.map((o) => o.times.pending! - o.times.paid!).sort((a, b) => a - b);
    expect(waited[0]).toBeLessThan(2000);
    expect(waited[2]).toBeGreaterThanOrEqual(2500);
    for (const { order } of quoted) expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("returns the same order when a quote is repeated for one intent", async () => {
    const hh = await harness();
    const input = { orderId: newOrderId(), item: sampleItems().stars!, customer: newCustomer() };
    const [a, b] = await Promise.all([hh.engine.quote(input), hh.engine.quote(input)]);
    const c = await hh.engine.quote(input);
    expect(a.id).toBe(c.id);
    expect(b.id).toBe(c.id);
    expect(hh.sandbox.orders().filter((o) => o.customId === input.orderId)).toHaveLength(1);
  });

  it("refuses an invalid quote before writing or sending anything", async () => {
    const hh = await harness();
    const orderId = newOrderId();
    await expect(
      hh.engine.quote({
        orderId,
        item: { kind: "stars", product: "stars", recipient: "durov_fan", quantity: 49 },
        customer: newCustomer(),
      }),
    ).rejects.toBeInstanceOf(ResellerValidationError);
    expect(await hh.engine.get(orderId)).toBeNull();
    expect(hh.sandbox.requests().filter((r) => r.path.includes("create"))).toHaveLength(0);
  });

  it("delivers by polling when the reseller's webhooks are dropped", async () => {
    const hh = await harness();
    hh.sandbox.setWebhooks("drop");
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(hh.webhookOutcomes).toHaveLength(0);
    expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
  });

  it("delivers by polling when no callback URL is configured", async () => {
    const hh = await harness({ webhooks: false });
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(hh.sandbox.order(order.id)?.callbackUrl).toBeNull();
    expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
  });

  it("notifies once when the same webhook arrives twice and again an hour later", async () => {
    const hh = await harness();
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(await hh.sandbox.sendWebhook(order.id)).toBe(200);
    expect(await hh.sandbox.sendWebhook(order.id)).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
  });

  it("marks a failed delivery failed, keeps the reason, refunds the Stars and notifies once", async () => {
    const hh = await harness();
    hh.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "Recipient not found" }));
    const { order, receipt, customer } = await quoteAndPay(hh);
    const done = await finalState(hh, order.id, ["failed"]);
    expect(done.errorMessage).toBe("Recipient not found");
    expect(done.refund).toBe("done");
    expect(hh.notifier.refunds).toEqual([{ userId: customer.userId, chargeId: receipt.telegramChargeId }]);
    expect(hh.notifier.alertsOf("delivery_failed").map((a) => a.orderId)).toEqual([order.id]);
    expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
  });

  it("flags a provider payment for a refund and alerts operators when delivery fails", async () => {
    const hh = await harness({ checkout: ["invoice"] });
    hh.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "Out of stock" }));
    const customer = newCustomer();
    const order = await hh.engine.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer,
      cardMessageId: 4350,
    });
    expect(order.currency).toBe("RUB");
    expect(order.amount).toBe(order.priceKopecks);
    await hh.engine.markPaid(order.id, {
      userId: customer.userId,
      currency: "RUB",
      totalAmount: order.amount!,
      telegramChargeId: "tg-rub-1",
      providerChargeId: "prov-1",
    });
    const done = await finalState(hh, order.id, ["failed"]);
    expect(done.refund).toBe("needed");
    expect(hh.notifier.refunds).toHaveLength(0);
    await eventually(() => hh.notifier.alertsOf("refund_needed").length === 1, 5000, "refund alert");
    // An operator refunds by hand and marks it: the customer's card says so.
    expect(await hh.engine.markRefunded(order.id)).toBe(true);
    await eventually(
      async () => hh.notifier.cards.some((o) => o.id === order.id && o.refund === "done"),
      10_000,
      "the card saying refunded",
    );
    expect(await hh.engine.markRefunded(order.id)).toBe(false);
  });

  it("rejects an order whose pay is refused for a low deposit, refunds and alerts with the balance", async () => {
    const hh = await harness();
    // The deposit runs low between the quote (which it covered) and the payment.
    const { order } = await quoteAndPay(hh, undefined, () => hh.sandbox.setBalanceRub(10));
    const done = await finalState(hh, order.id, ["rejected"]);
    expect(done.rejectReason).toBe("insufficient_funds");
    expect(done.refund).toBe("done");
    expect(hh.sandbox.stats(order.id).charges).toBe(0);
    const alert = await eventually(() => hh.notifier.alertsOf("pay_rejected")[0], 5000, "pay alert");
    expect(alert.details.balanceRub).toBe(10);
  });

  it("pauses the product when pay is refused for the deposit: the next customer is refused before paying", async () => {
    const hh = await harness();
    const { order } = await quoteAndPay(hh, undefined, () => hh.sandbox.setBalanceRub(10));
    await finalState(hh, order.id, ["rejected"]);
    const paused = await eventually(() => hh.notifier.alertsOf("product_paused")[0], 5000, "paused alert");
    expect(paused.details).toMatchObject({ product: "stars", balanceRub: 10 });
    // The refusal's deposit read is on record, and the product stays paused until a top-up covers it.
    expect(await hh.redis.hget(`${hh.prefix}deposit`, "kopecks")).toBe("1000");
    const next = newOrderId();
    await expect(
      hh.addEngine().quote({ orderId: next, item: sampleItems().stars!, customer: newCustomer() }),
    ).rejects.toBeInstanceOf(ProductPausedError);
    expect(hh.sandbox.orders().map((o) => o.customId)).not.toContain(next);
    // Topped up: the refused quote asked for the deposit to be checked, which resumes the product.
    hh.sandbox.setBalanceRub(20_000);
    const resumed = await eventually(
      () =>
        hh.engine
          .quote({ orderId: newOrderId(), item: sampleItems().stars!, customer: newCustomer() })
          .catch(() => undefined),
      10_000,
      "the product resumed",
    );
    expect(resumed.state).toBe("quoted");
    await eventually(() => hh.notifier.alertsOf("product_resumed")[0], 5000, "resumed alert");
  });

  it("follows a pay whose answer was lost after the charge by reading the order: one pay, one charge", async () => {
    const hh = await harness();
    hh.sandbox.fail("POST /api/reseller/order/pay", "lose_response", 2);
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("pays again, with the same custom_id, only while the reseller shows the order created", async () => {
    const hh = await harness();
    // Refused before any processing: the reads show the order created, so pay is asked again.
    hh.sandbox.fail("POST /api/reseller/order/pay", "500", 2);
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    const pays = hh.sandbox.requests().filter((r) => r.path === "/api/reseller/order/pay");
    expect(pays.map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it("records what pay charged, and counts it as the deposit's spending once, when the order was delivered before pay answered", async () => {
    const hh = await harness();
    // `pay` charges at once and answers 1.5 s later: the delivery webhook settles the order first.
    const slow = Object.create(hh.client) as typeof hh.client;
    slow.payOrder = async (id) => {
      const paid = await hh.client.payOrder(id);
      await new Promise((r) => setTimeout(r, 1500));
      return paid;
    };
    const engine = hh.buildEngine({ reseller: slow });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    await finalState(hh, order.id);
    const charged = hh.sandbox.stats(order.id).chargedRub * 100;
    await eventually(
      async () => (await engine.get(order.id))?.chargedKopecks === charged,
      10_000,
      "the late pay answer's charge on the order",
    );
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    expect((await engine.recentSpending()).spentKopecks).toBe(charged);
  });

  it("counts the deposit's spending of an order whose pay was refused after an earlier pay had charged it", async () => {
    const hh = await harness();
    // The charge's answer is lost and the repeat is refused (the order is paid already).
    const refusing = Object.create(hh.client) as typeof hh.client;
    refusing.payOrder = async (id) => {
      await hh.client.payOrder(id);
      throw new ResellerApiError({
        kind: "bad_request",
        endpoint: "POST /api/reseller/order/pay",
        status: 409,
        message: "Reseller API refused the request (409 already_paid)",
      });
    };
    const engine = hh.buildEngine({ reseller: refusing });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
    expect((await engine.recentSpending()).spentKopecks).toBe(order.wholesaleKopecks);
  });

  it("keeps a paid order whose pay was refused while the order could not be read, and delivers it when an earlier pay had charged it", async () => {
    const hh = await harness({ webhooks: false });
    // The charge's answer is lost, the repeat is refused (paid already), and the order read that
    // would tell so fails at that moment (every attempt of the client's).
    const refusing = Object.create(hh.client) as typeof hh.client;
    let pays = 0;
    refusing.payOrder = async (id) => {
      await hh.client.payOrder(id);
      if (++pays === 1) hh.sandbox.fail("GET /api/reseller/order/*", "500", 4);
      throw new ResellerApiError({
        kind: "bad_request",
        endpoint: "POST /api/reseller/order/pay",
        status: 409,
        message: "Reseller API refused the request (409 already_paid)",
      });
    };
    const engine = hh.buildEngine({ reseller: refusing });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    const done = await finalState(hh, order.id, ["delivered", "rejected"]);
    expect(done.state).toBe("delivered");
    expect(done.refund).toBe("none");
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("follows a paid order whose pay was refused while the reseller shows it in a status the spec does not list, to its delivery", async () => {
    const hh = await harness({ webhooks: false });
    hh.sandbox.pauseDelivery(true);
    // The charge's answer is lost, the repeat is refused (paid already), and the order reads as
    // "processing", an intermediate status the spec leaves unshown.
    const reseller = Object.create(hh.client) as typeof hh.client;
    reseller.payOrder = async (id) => {
      await hh.client.payOrder(id);
      throw new ResellerApiError({
        kind: "bad_request",
        endpoint: "POST /api/reseller/order/pay",
        status: 409,
        message: "Reseller API refused the request (409 already_paid)",
      });
    };
    reseller.getOrder = async (id) => {
      const remote = await hh.client.getOrder(id);
      return remote.status === "pending" ? { ...remote, status: "processing" } : remote;
    };
    const engine = hh.buildEngine({ reseller });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    await eventually(
      async () => (await engine.get(order.id))?.state !== "paid",
      10_000,
      "the refused pay's outcome",
    );
    hh.sandbox.pauseDelivery(false);
    const done = await finalState(hh, order.id, ["delivered", "rejected"]);
    expect(done.state).toBe("delivered");
    expect(done.refund).toBe("none");
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("follows an order to its delivery when every pay is charged but answered too late, without webhooks", async () => {
    const hh = await harness({ webhooks: false });
    // Only the engine below runs the order's jobs.
    await hh.engine.stop();
    // Each pay goes through at the reseller; its answer never comes within the client's wait.
    const slow = Object.create(hh.client) as typeof hh.client;
    slow.payOrder = async (id) => {
      await hh.client.payOrder(id);
      throw new ResellerApiError({
        kind: "timeout",
        endpoint: "POST /api/reseller/order/pay",
        message: "Reseller API did not answer in time at POST /api/reseller/order/pay",
      });
    };
    const engine = hh.buildEngine({ reseller: slow });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    const done = await finalState(hh, order.id);
    expect(done.refund).toBe("none");
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("ends an order the reseller shows cancelled or refunded as failed: refunded and told once", async () => {
    for (const status of ["cancelled", "refunded"]) {
      const hh = await harness({ webhooks: false });
      await hh.engine.stop();
      const reseller = Object.create(hh.client) as typeof hh.client;
      reseller.getOrder = async (id) => {
        const remote = await hh.client.getOrder(id);
        return remote.status === "delivered" ? { ...remote, status, errorMessage: null } : remote;
      };
      const engine = hh.buildEngine({ reseller });
      hh.engines.push(engine);
      engine.start();
      const customer = newCustomer();
      const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
      const receipt = {
        userId: customer.userId,
        currency: "XTR" as const,
        totalAmount: order.amount!,
        telegramChargeId: `stxCharge${++chargeSeq}`,
      };
      expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
      const done = await finalState(hh, order.id, ["failed"]);
      expect(done.resellerStatus).toBe(status);
      expect(done.refund).toBe("done");
      expect(hh.notifier.finalsFor(order.id)).toHaveLength(1);
      await hh.close();
      h = undefined;
    }
  });

  it("pays again after a pay without an answer while the reseller shows the order in a status it does not say is paid", async () => {
    const hh = await harness({ webhooks: false });
    await hh.engine.stop();
    // The first pay is lost before the reseller sees it; the order then reads "new", a status the
    // spec does not show, rather than "created".
    hh.sandbox.fail("POST /api/reseller/order/pay", "reset", 1);
    const reseller = Object.create(hh.client) as typeof hh.client;
    reseller.getOrder = async (id) => {
      const remote = await hh.client.getOrder(id);
      return remote.status === "created" ? { ...remote, status: "new" } : remote;
    };
    const engine = hh.buildEngine({ reseller });
    hh.engines.push(engine);
    engine.start();
    const customer = newCustomer();
    const order = await engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    const done = await finalState(hh, order.id);
    expect(done.refund).toBe("none");
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("answers a payment made in the chat with the card being delivered; pay's step queues no card update", async () => {
    const hh = await harness();
    hh.sandbox.pauseDelivery(true);
    const customer = newCustomer();
    const item = sampleItems().stars!;
    const order = await hh.engine.quote({ orderId: newOrderId(), item, customer, cardMessageId: 4300 });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await hh.engine.markPaid(order.id, receipt, { answered: true })).outcome).toBe("paid");
    const shown = await hh.engine.paymentAnswer(order.id, 10_000);
    expect(shown).toMatchObject({ id: order.id, state: "pending", cardMessageId: 4300 });
    await eventually(async () => (await hh.engine.get(order.id))?.state === "pending", 5000, "pending");
    await new Promise((r) => setTimeout(r, 300));
    expect(await hh.outgoingFor(order.id)).toBe(0);
    expect(hh.notifier.cards.filter((o) => o.id === order.id)).toHaveLength(0);
    hh.sandbox.pauseDelivery(false);
    await finalState(hh, order.id);
    expect(hh.notifier.cards.filter((o) => o.id === order.id).map((o) => o.state)).toEqual(["delivered"]);
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("sends a delivered order's final message and card from the copy its delivery wrote, without reading it again", async () => {
    const hh = await harness();
    const customer = newCustomer();
    const order = await hh.engine.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer,
      cardMessageId: 4310,
    });
    // What happened, in order: the order's record read from Redis, the final message, the card.
    const seen: string[] = [];
    watchCommands(hh.redis, (command) => {
      const args = command.args.map(String);
      if (!args.some((a) => a.endsWith(`ord:${order.id}`))) return;
      if (command.name === "mget" || command.name === "get") seen.push("read");
      if (command.name === "evalsha" && args.some((a) => a.includes("|delivered|")))
        seen.push("write delivered");
    });
    const notifier = hh.notifier;
    const { sendFinal, updateCard } = notifier;
    notifier.sendFinal = async (o) => {
      if (o.id === order.id) seen.push("final");
      return sendFinal.call(notifier, o);
    };
    notifier.updateCard = async (o) => {
      if (o.id === order.id) seen.push(`card ${o.state}`);
      return updateCard.call(notifier, o);
    };
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    expect((await hh.engine.markPaid(order.id, receipt)).outcome).toBe("paid");
    // Waited for without reading the order (as `finalState` would).
    await eventually(async () => seen.includes("card delivered"), 10_000, "the delivered card");
    // The delivery wrote the order settled in this process: neither message read it again.
    const written = seen.indexOf("write delivered");
    expect(written).toBeGreaterThanOrEqual(0);
    expect(seen.slice(written)).toEqual(["write delivered", "final", "card delivered"]);
    expect(notifier.cards.at(-1)).toMatchObject({ id: order.id, state: "delivered", cardMessageId: 4310 });
  });

  it("queues the card update of pay's step when nothing in the chat answers the payment", async () => {
    const hh = await harness();
    hh.sandbox.pauseDelivery(true);
    const { order } = await quoteAndPay(hh);
    await eventually(
      async () => hh.notifier.cards.some((o) => o.id === order.id && o.state === "pending"),
      5000,
      "the pending card update",
    );
    expect(await hh.engine.paymentAnswer(order.id, 10_000)).toBeUndefined();
  });

  it("answers with the paid card when pay is to be retried, and the retry queues its card update", async () => {
    const hh = await harness();
    hh.sandbox.pauseDelivery(true);
    // More 500s than the client's own retries: the job ends and is retried later.
    hh.sandbox.fail("POST /api/reseller/order/pay", "500", 4);
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const receipt = {
      userId: customer.userId,
      currency: "XTR" as const,
      totalAmount: order.amount!,
      telegramChargeId: `stxCharge${++chargeSeq}`,
    };
    await hh.engine.markPaid(order.id, receipt, { answered: true });
    // Told as soon as the first pay failed, long before this wait would end.
    expect(await hh.engine.paymentAnswer(order.id, 60_000)).toBeUndefined();
    await eventually(
      async () => hh.notifier.cards.some((o) => o.id === order.id && o.state === "pending"),
      10_000,
      "the retried pay's card update",
    );
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("keeps retrying pay through a stretch of 500s and charges once", async () => {
    const hh = await harness();
    hh.sandbox.fail("POST /api/reseller/order/pay", "500", 6);
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("treats a repeated successful_payment as one payment and refunds a second, different one", async () => {
    const hh = await harness();
    hh.sandbox.pauseDelivery(true);
    const { order, receipt } = await quoteAndPay(hh);
    expect((await hh.engine.markPaid(order.id, receipt)).outcome).toBe("duplicate");
    const second = await hh.engine.markPaid(order.id, { ...receipt, telegramChargeId: "second-charge" });
    expect(second.outcome).toBe("refunded_extra");
    await eventually(
      () => hh.notifier.refunds.some((r) => r.chargeId === "second-charge"),
      5000,
      "extra refund",
    );
    hh.sandbox.pauseDelivery(false);
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
    expect(hh.notifier.refunds.map((r) => r.chargeId)).toEqual(["second-charge"]);
    // Told in the chat when it arrived (the payments feature): no second word from the engine.
    expect(hh.notifier.extras).toEqual([]);
  });

  it("tells the customer the shop will refund a second Stars payment whose refund Telegram refused", async () => {
    const hh = await harness();
    hh.notifier.refusedRefunds.add("refused-charge");
    const { order, receipt } = await quoteAndPay(hh);
    const second = await hh.engine.markPaid(order.id, { ...receipt, telegramChargeId: "refused-charge" });
    expect(second.outcome).toBe("refunded_extra");
    const told = await eventually(
      () => hh.notifier.extras.find((e) => e.orderId === order.id),
      10_000,
      "the word",
    );
    expect(told.charge).toMatchObject({ telegramChargeId: "refused-charge", refund: "needed" });
    await eventually(() => hh.notifier.alertsOf("duplicate_payment").length === 1, 10_000, "the alert");
  });

  it("refuses pre-checkout for another user, another amount, or an expired quote", async () => {
    const hh = await harness({ config: { quoteTtlSeconds: 10 } });
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const expect0 = { userId: customer.userId, currency: "XTR" as const, totalAmount: order.amount! };
    expect((await hh.engine.checkPayable(order.id, expect0)).ok).toBe(true);
    expect(await hh.engine.checkPayable(order.id, { ...expect0, userId: 1 })).toMatchObject({
      reason: "wrong_user",
    });
    expect(await hh.engine.checkPayable(order.id, { ...expect0, totalAmount: 1 })).toMatchObject({
      reason: "wrong_amount",
    });
    expect(await hh.engine.checkPayable(newOrderId(), expect0)).toMatchObject({ reason: "not_found" });
    await hh.engine.store.update(order.id, (o) => ({ next: { ...o, expiresAt: Date.now() - 1 } }));
    expect(await hh.engine.checkPayable(order.id, expect0)).toMatchObject({ reason: "expired" });
  });

  it("shows an invoice from its own copy of a quote, and the pre-checkout still refuses one cancelled elsewhere", async () => {
    const hh = await harness();
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    // Another process cancels the quote: this one's copy still says quoted, and `quoted` answers from it.
    const other = hh.addEngine();
    expect((await other.cancel(order.id, customer.userId)).won).toBe(true);
    expect((await hh.engine.quoted(order.id))?.state).toBe("quoted");
    expect((await hh.engine.get(order.id))?.state).toBe("cancelled");
    const check = await hh.engine.checkPayable(order.id, {
      userId: customer.userId,
      currency: "XTR",
      totalAmount: order.amount!,
    });
    expect(check.ok).toBe(false);
    // A copy that is no longer a quote is no answer: read afresh.
    expect((await other.quoted(order.id))?.state).toBe("cancelled");
  });

  it("expires a quote nobody paid", async () => {
    const hh = await harness({ config: { quoteTtlSeconds: 10 } });
    const order = await hh.engine.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer: newCustomer(),
    });
    await hh.engine.store.update(order.id, (o) => ({ next: { ...o, expiresAt: Date.now() } }));
    await hh.engine.store.jobs.schedule(`step:${order.id}`, Date.now());
    await eventually(async () => (await hh.engine.get(order.id))?.state === "expired", 5000, "expiry");
    expect(hh.sandbox.stats(order.id).pays).toBe(0);
  });

  it("runs the jobs an earlier version scheduled (expire, submit) once, and takes them off", async () => {
    const hh = await harness({ config: { pollIntervalSeconds: 60 } });
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const jobsKey = `${hh.prefix}jobs`;
    const step = `step:${order.id}`;
    // Paid as an earlier version recorded it: `submit:<id>` due now, the quote's `expire:<id>` left behind.
    await hh.redis.zrem(jobsKey, step);
    await hh.engine.store.update(order.id, (o) => ({
      next: { ...enter(o, "paid", Date.now()), telegramChargeId: "stxLegacy1", currency: "XTR" },
      jobs: [
        { member: `submit:${order.id}`, dueAt: Date.now() },
        { member: `expire:${order.id}`, dueAt: Date.now() + 200 },
      ],
    }));
    const done = await finalState(hh, order.id);
    expect(done.chargedKopecks).toBeGreaterThan(0);
    await eventually(
      async () => (await hh.redis.zrange(jobsKey, 0, -1)).every((m) => !m.includes(order.id)),
      5000,
      "the earlier version's jobs to leave the schedule",
    );
    expect(hh.sandbox.stats(order.id)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("confirms a direct order once however often Confirm is pressed", async () => {
    const hh = await harness({ checkout: ["direct"] });
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const taps = await Promise.all(
      Array.from({ length: 5 }, () => hh.engine.confirm(order.id, customer.userId)),
    );
    expect(taps.filter((t) => t.won)).toHaveLength(1);
    expect((await hh.engine.confirm(order.id, customer.userId + 1)).won).toBe(false);
    await finalState(hh, order.id);
    expect(hh.sandbox.stats(order.id).charges).toBe(1);
  });

  it("lets only the customer cancel a quote, and not after payment", async () => {
    const hh = await harness();
    const customer = newCustomer();
    const order = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    expect((await hh.engine.cancel(order.id, customer.userId + 1)).won).toBe(false);
    expect((await hh.engine.cancel(order.id, customer.userId)).won).toBe(true);
    hh.sandbox.pauseDelivery(true);
    const { order: paid, customer: c2 } = await quoteAndPay(hh);
    expect((await hh.engine.cancel(paid.id, c2.userId)).won).toBe(false);
  });

  it("flags an order stuck past the tracking timeout and alerts once", async () => {
    const hh = await harness({ config: { trackingTimeoutHours: 0.5 / 3600 } });
    hh.sandbox.pauseDelivery(true);
    const { order } = await quoteAndPay(hh);
    const stuck = await eventually(
      async () => {
        const o = await hh.engine.get(order.id);
        return o?.stuck ? o : null;
      },
      8000,
      "stuck flag",
    );
    expect(stuck.state).toBe("pending");
    expect((await hh.engine.listAll("attention", 0, 10)).items.map((o) => o.id)).toContain(order.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(hh.notifier.alertsOf("stuck")).toHaveLength(1);
    hh.sandbox.pauseDelivery(false);
    const done = await finalState(hh, order.id);
    expect(done.stuck).toBe(false);
  });

  it("lists a customer's orders and the operators' filters newest first", async () => {
    const hh = await harness();
    const customer = newCustomer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
      ids.push(o.id);
      await new Promise((r) => setTimeout(r, 2));
    }
    const page = await hh.engine.listByChat(customer.chatId, 0, 2);
    expect(page.total).toBe(3);
    expect(page.items.map((o) => o.id)).toEqual([ids[2], ids[1]]);
    const all = await hh.engine.listAll("all", 0, 10);
    expect(all.items.map((o) => o.id).slice(0, 3)).toEqual(ids.slice().reverse());
  });

  it("tells the operators when the periodic deposit check finds the API key rejected, with nobody ordering", async () => {
    const hh = await harness();
    const jobs = `${hh.prefix}jobs`;
    // The start-up check ran with a good key and scheduled the next one.
    await eventually(
      async () => Number(await hh.redis.zscore(jobs, "balance:check")) > Date.now(),
      10_000,
      "the next balance check scheduled",
    );
    hh.sandbox.setAuthFailure(true);
    // The next check comes round (its ten minutes are up).
    await hh.redis.zadd(jobs, Date.now(), "balance:check");
    await eventually(
      async () => hh.notifier.alertsOf("reseller_auth").length > 0,
      10_000,
      "the reseller auth alert",
    );
    expect(hh.notifier.alertsOf("reseller_auth")[0]!.details).toMatchObject({
      endpoint: "GET /api/reseller/balance",
      status: 401,
    });
    hh.sandbox.setAuthFailure(false);
  });

  it("tells the operators when the reseller answers no deposit check twice in a row, and counts again after one it answers", async () => {
    const hh = await harness();
    const jobs = `${hh.prefix}jobs`;
    const failedKey = `${hh.prefix}balance:failed`;
    await eventually(
      async () => Number(await hh.redis.zscore(jobs, "balance:check")) > Date.now(),
      10_000,
      "the next balance check scheduled",
    );
    /** Brings the next periodic check round now and waits until it has run. */
    const nextCheck = async () => {
      await hh.redis.zadd(jobs, Date.now(), "balance:check");
      await eventually(
        async () => Number(await hh.redis.zscore(jobs, "balance:check")) > Date.now() + 1000,
        20_000,
        "the check run and the next one scheduled",
      );
    };
    hh.sandbox.fail("GET /api/reseller/balance", "500", Number.POSITIVE_INFINITY);
    try {
      await nextCheck();
      expect(await hh.redis.get(failedKey)).toBe("1");
      expect(hh.notifier.alertsOf("reseller_down")).toHaveLength(0);
      await nextCheck();
      await eventually(async () => hh.notifier.alertsOf("reseller_down").length === 1, 10_000, "the alert");
      expect(hh.notifier.alertsOf("reseller_down")[0]!.details).toMatchObject({
        endpoint: "GET /api/reseller/balance",
        status: 500,
        checks: 2,
      });
      // A third failed check within the hour says nothing new.
      await nextCheck();
      expect(hh.notifier.alertsOf("reseller_down")).toHaveLength(1);
    } finally {
      hh.sandbox.clearFaults();
    }
    await nextCheck();
    expect(await hh.redis.exists(failedKey)).toBe(0);
  });

  it("never writes the API key or the webhook secret to the log", async () => {
    const hh = await harness();
    hh.sandbox.setAuthFailure(true);
    await expect(
      hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer: newCustomer() }),
    ).rejects.toThrow();
    hh.sandbox.setAuthFailure(false);
    const { order } = await quoteAndPay(hh);
    await finalState(hh, order.id);
    const all = hh.logLines.join("\n");
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain("test-api-key-7f3a9c");
    expect(all).not.toContain("test-webhook-secret-41d2");
    expect(hh.notifier.alertsOf("reseller_auth")).toHaveLength(1);
  });
});
