import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import type { Order } from "../../src/orders/types.js";
import { fitIdempotenceKey } from "../../src/payments/yookassa/index.js";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";

/**
 * The YooKassa rail end to end: the app as main.ts composes it, the YooKassa emulator notifying
 * the app's listener, the reseller sandbox, the Telegram emulator.
 */

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };

/** Waits (up to 20 s) until `check` holds. */
async function eventuallyTrue(check: () => boolean): Promise<void> {
  const until = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met within 20 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}
const CARD = /^💳 Card or SBP/;
const LINK = /by card or SBP on YooKassa/;

/** The URL of the first URL button on a bot message. */
function urlButton(message: ChatMessage | undefined): string | undefined {
  const rows = (message?.replyMarkup as { inline_keyboard?: { url?: string }[][] } | undefined)
    ?.inline_keyboard;
  return rows?.flat().find((b) => b.url)?.url;
}

/** The customer's only order at the reseller sandbox (its custom_id). */
function onlyOrderId(harness: AppHarness): string {
  const orders = harness.sandbox.orders();
  expect(orders).toHaveLength(1);
  return orders[0]!.customId;
}

async function order(harness: AppHarness, id: string): Promise<Order> {
  const o = await harness.app.orders.get(id);
  if (!o) throw new Error(`order ${id} is not in Redis`);
  return o;
}

/** Waits until the order satisfies `ok` (re-read from Redis). */
async function waitOrder(
  harness: AppHarness,
  id: string,
  ok: (o: Order) => boolean,
  timeoutMs = 20_000,
): Promise<Order> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const o = await order(harness, id);
    if (ok(o)) return o;
    if (Date.now() > until) throw new Error(`order ${id} never got there: ${JSON.stringify(o)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The card for 50 Stars with the YooKassa rail offered; taps it and waits for the link. */
async function yookassaLink(c: ChatUser): Promise<{ card: ChatMessage; link: ChatMessage }> {
  const card = await starsCard(c, 50);
  await c.pressButton(CARD, { ...T, messageId: card.messageId });
  const link = await c.waitForBotMessage(LINK, 10_000);
  return { card, link };
}

async function postNotification(harness: AppHarness, body: string | Buffer): Promise<number> {
  const res = await fetch(`${harness.listenerUrl}/webhooks/yookassa`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe("YooKassa: notifications are hints", () => {
  it("a lost notification: the poll job finds the payment and the order is delivered", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    await yookassaLink(c);
    const id = onlyOrderId(h);
    h.yookassa.setNotifications("drop");
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    await c.waitForBotMessage(DELIVERED, 40_000);
    expect(h.yookassa.notificationsSent()).toEqual([]);
    const o = await order(h, id);
    expect(o).toMatchObject({
      state: "delivered",
      rail: "yookassa",
      telegramChargeId: `yookassa:${payment!.id}`,
      providerChargeId: payment!.id,
      amount: o.priceKopecks,
    });
    expect(o.payments).toEqual([expect.objectContaining({ id: payment!.id, settled: "paid" })]);
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
  }, 60_000);

  it("a payment made after the quote expired still counts, like a late Stars payment", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars", QUOTE_TTL_SECONDS: "10" });
    const c = newAppCustomer(h.telegram);
    await yookassaLink(c);
    const id = onlyOrderId(h);
    await waitOrder(h, id, (o) => o.state === "expired", 20_000);
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const o = await order(h, id);
    expect(o.times.expired).toBeDefined();
    expect(o).toMatchObject({ state: "delivered", rail: "yookassa", providerChargeId: payment!.id });
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
  }, 60_000);

  it("unknown payments, unpaid payments, malformed and oversized bodies change nothing", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    await yookassaLink(c);
    const id = onlyOrderId(h);
    const [payment] = h.yookassa.payments();
    const before = await order(h, id);
    const note = (paymentId: string, status = "succeeded") =>
      JSON.stringify({
        type: "notification",
        event: "payment.succeeded",
        object: {
          id: paymentId,
          status,
          paid: true,
          amount: { value: "999999.00", currency: "RUB" },
          metadata: { order_id: id },
        },
      });
    // The body says "succeeded"; YooKassa knows no such payment.
    expect(await postNotification(h, note("2f0c6b8e-000f-5000-8000-1d2e3f4a5b6c"))).toBe(200);
    // The body says "succeeded"; YooKassa says the payment is still pending.
    expect(await postNotification(h, note(payment!.id))).toBe(200);
    expect(await postNotification(h, "{not json")).toBe(400);
    expect(await postNotification(h, Buffer.alloc(65 * 1024, 0x20))).toBe(413);
    const after = await order(h, id);
    expect(after).toEqual(before);
    expect(after.state).toBe("quoted");
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 0, charges: 0 });
  }, 30_000);
});

describe("YooKassa: making the payment", () => {
  it("a 500 on create gets a clear answer; the next tap makes one payment", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    const id = onlyOrderId(h);
    h.yookassa.fail("POST /v3/payments", "500", Number.POSITIVE_INFINITY);
    const refused = await c.pressButton(CARD, { ...T, messageId: card.messageId });
    expect(refused.callbackAnswer?.text).toMatch(/could not be opened right now/);
    expect(h.yookassa.payments()).toEqual([]);
    h.yookassa.clearFaults();
    const ok = await c.pressButton(CARD, { ...T, messageId: card.messageId });
    expect(ok.callbackAnswer?.text ?? "").not.toMatch(/being prepared|could not/);
    const link = await c.waitForBotMessage(LINK, 10_000);
    expect(h.yookassa.payments()).toHaveLength(1);
    expect(urlButton(link)).toContain(h.yookassa.payments()[0]!.id);
    expect(h.yookassa.keyStats(`pay:${id}`).created).toBe(1);
  }, 30_000);

  it("a lost answer on create: the next tap finds the same payment by its Idempotence-Key", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    const id = onlyOrderId(h);
    h.yookassa.fail("POST /v3/payments", "lose_response", Number.POSITIVE_INFINITY);
    const refused = await c.pressButton(CARD, { ...T, messageId: card.messageId });
    expect(refused.callbackAnswer?.text).toMatch(/could not be opened right now/);
    expect(h.yookassa.payments()).toHaveLength(1); // made, but the bot never heard of it
    h.yookassa.clearFaults();
    await c.pressButton(CARD, { ...T, messageId: card.messageId });
    const link = await c.waitForBotMessage(LINK, 10_000);
    const payments = h.yookassa.payments();
    expect(payments).toHaveLength(1);
    expect(urlButton(link)).toContain(payments[0]!.id);
    const stats = h.yookassa.keyStats(`pay:${id}`);
    expect(stats.created).toBe(1);
    expect(stats.requests).toBeGreaterThan(1);
    h.yookassa.succeedPayment(payments[0]!.id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
  }, 30_000);
});

describe("YooKassa: a cancelled payment", () => {
  it("retires its link: the next tap makes a new payment with its own key, paid once", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    const { card, link } = await yookassaLink(c);
    const id = onlyOrderId(h);
    const [first] = h.yookassa.payments();
    h.yookassa.cancelPayment(first!.id);
    await waitOrder(h, id, (o) => o.payments?.[0]?.settled === "cancelled");
    await c.pressButton(CARD, { ...T, messageId: card.messageId });
    const second = await c.waitFor(
      (msgs) => msgs.filter((m) => LINK.test(m.text ?? "")).length === 2,
      10_000,
    );
    const payments = h.yookassa.payments();
    expect(payments).toHaveLength(2);
    const fresh = payments.find((p) => p.id !== first!.id)!;
    expect(urlButton(link)).toContain(first!.id);
    expect(urlButton(second.filter((m) => LINK.test(m.text ?? "")).at(-1))).toContain(fresh.id);
    expect(h.yookassa.keyStats(`pay:${id}:1`)).toEqual({ requests: 1, created: 1 });
    h.yookassa.succeedPayment(fresh.id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const o = await order(h, id);
    expect(o).toMatchObject({ state: "delivered", providerChargeId: fresh.id });
    expect(o.payments?.map((p) => p.settled)).toEqual(["cancelled", "paid"]);
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
  }, 30_000);
});

describe("YooKassa: money back", () => {
  it("a failed delivery is refunded to the card once, even when YooKassa's answers are lost", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient not found" }));
    // The refund is made at YooKassa, but its answers never arrive: the job tries again later.
    h.yookassa.fail("POST /v3/refunds", "lose_response", 4);
    const c = newAppCustomer(h.telegram);
    await yookassaLink(c);
    const id = onlyOrderId(h);
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    const message = await c.waitForBotMessage(/could not be delivered/, 30_000);
    expect(message.text).toMatch(/refunded the way you paid \(card or SBP\)/);
    const o = await waitOrder(h, id, (x) => x.refund !== "none");
    const refunds = h.yookassa.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ paymentId: payment!.id, amountKopecks: o.priceKopecks });
    const stats = h.yookassa.keyStats(`refund:${id}`);
    expect(stats.created).toBe(1);
    expect(stats.requests).toBeGreaterThan(1);
    expect(o).toMatchObject({
      state: "failed",
      refund: "done",
      refundRef: refunds[0]!.id,
      providerChargeId: payment!.id,
    });
    expect(c.botMessages().filter((m) => /could not be delivered/.test(m.text ?? ""))).toHaveLength(1);
  }, 45_000);

  it("a refund pending at YooKassa is told to the customer only once it went through", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient not found" }));
    h.yookassa.holdRefunds(true);
    const c = newAppCustomer(h.telegram);
    await yookassaLink(c);
    const id = onlyOrderId(h);
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    await eventuallyTrue(() => h!.yookassa.refunds().length === 1);
    // While it is pending the order owes the refund and the customer has not been told anything yet.
    await waitOrder(h, id, (x) => x.state === "failed");
    expect((await h.app.orders.get(id))?.refund).toBe("none");
    expect(c.botMessages().filter((m) => /could not be delivered/.test(m.text ?? ""))).toHaveLength(0);
    const card = c.botMessages().find((m) => /Order #/.test(m.text ?? ""))!;
    // The card's update is queued: it says the refund is under way once its turn comes.
    await c.waitFor(
      (msgs) => /being refunded/.test(msgs.find((m) => m.messageId === card.messageId)?.text ?? ""),
      10_000,
    );
    const refund = h.yookassa.settleRefund(h.yookassa.refunds()[0]!.id);
    const message = await c.waitForBotMessage(/could not be delivered/, 30_000);
    // The card follows: it no longer says the refund is under way.
    await c.waitFor(
      (msgs) => /was refunded/.test(msgs.find((m) => m.messageId === card.messageId)?.text ?? ""),
      10_000,
    );
    expect(message.text).toMatch(/refunded the way you paid \(card or SBP\)/);
    const o = await waitOrder(h, id, (x) => x.refund !== "none");
    expect(o).toMatchObject({ refund: "done", refundRef: refund.id });
    expect(h.yookassa.refunds()).toHaveLength(1);
    expect(h.yookassa.keyStats(`refund:${id}`).created).toBe(1);
  }, 45_000);

  it("a pay refused for a low deposit is refunded to the card once", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    await starsCard(c, 50); // quoted while the deposit is large enough
    h.sandbox.setBalanceRub(0);
    const card = c.botMessages().findLast((m) => /Order #/.test(m.text ?? ""))!;
    await c.pressButton(CARD, { ...T, messageId: card.messageId });
    await c.waitForBotMessage(LINK, 10_000);
    const id = onlyOrderId(h);
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    const message = await c.waitForBotMessage(/refused by the supplier/, 20_000);
    expect(message.text).toMatch(/refunded the way you paid \(card or SBP\)/);
    const o = await waitOrder(h, id, (x) => x.refund !== "none");
    const refunds = h.yookassa.refunds();
    expect(refunds).toHaveLength(1);
    expect(h.yookassa.keyStats(`refund:${id}`)).toEqual({ requests: 1, created: 1 });
    expect(o).toMatchObject({ state: "rejected", refund: "done", refundRef: refunds[0]!.id });
    expect(h.sandbox.stats(id)).toMatchObject({ charges: 0 });
  }, 30_000);

  describe("a one-time promo code on an order paid on YooKassa's page", () => {
    /** A shop with a 10 s quote and the code ONCE (5 %, one use); the first customer applies it, opens the page and lets the quote expire. */
    async function expiredWithOpenPage(): Promise<{ a: ChatUser; id: string }> {
      h = await startAppHarness({ CHECKOUT: "yookassa,stars", QUOTE_TTL_SECONDS: "10" });
      await h.app.orders.promos!.create({
        code: "ONCE",
        type: "percent",
        value: 5,
        products: [],
        maxUses: 1,
        perCustomer: 0,
        minOrderKopecks: 0,
        createdAt: Date.now(),
        createdBy: 1,
      });
      const a = newAppCustomer(h.telegram);
      const card = await starsCard(a, 50);
      await applyOnce(a, /Code ONCE applied/);
      await a.pressButton(CARD, { ...T, messageId: card.messageId });
      await a.waitForBotMessage(LINK, 10_000);
      const id = onlyOrderId(h);
      await waitOrder(h, id, (o) => o.state === "expired");
      return { a, id };
    }

    /** A new customer's card, and the code tried on it. */
    async function applyOnce(c: ChatUser, answer: RegExp): Promise<void> {
      if (!c.botMessages().some((m) => /Order #/.test(m.text ?? ""))) await starsCard(c, 50);
      await c.pressButton("🎟 Promo code", T);
      await c.sendText("ONCE");
      await c.waitForBotMessage(answer, 10_000);
    }

    it("stays held while the expired order's page can be paid; cancelled there, it comes back", async () => {
      const { id } = await expiredWithOpenPage();
      // The page for the discounted amount can still be paid: the use is not free for anyone else.
      await new Promise((r) => setTimeout(r, 1000));
      expect((await h!.app.orders.promos!.get("ONCE"))?.used).toBe(1);
      await applyOnce(newAppCustomer(h!.telegram), /has been used up/);
      // Cancelled on YooKassa's side: nothing can pay it now, and the use comes back.
      const [payment] = h!.yookassa.payments();
      h!.yookassa.cancelPayment(payment!.id);
      await waitOrder(h!, id, (o) => o.payments?.[0]?.settled === "cancelled");
      const until = Date.now() + 10_000;
      while ((await h!.app.orders.promos!.get("ONCE"))?.used !== 0) {
        if (Date.now() > until) throw new Error("the use never came back");
        await new Promise((r) => setTimeout(r, 100));
      }
      await applyOnce(newAppCustomer(h!.telegram), /Code ONCE applied/);
    }, 45_000);

    it("paid late, counts one use, not two", async () => {
      const { a, id } = await expiredWithOpenPage();
      await applyOnce(newAppCustomer(h!.telegram), /has been used up/);
      const [payment] = h!.yookassa.payments();
      h!.yookassa.succeedPayment(payment!.id);
      await a.waitForBotMessage(DELIVERED, 20_000);
      expect(await h!.app.orders.promos!.get("ONCE")).toMatchObject({ used: 1 });
      expect((await order(h!, id)).promo?.code).toBe("ONCE");
    }, 45_000);
  });

  it("a YooKassa payment for an order paid in Stars already goes back to the card; one delivery", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    const { card } = await yookassaLink(c);
    const id = onlyOrderId(h);
    await c.pressButton(/^⭐ Telegram Stars/, { ...T, messageId: card.messageId });
    await c.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), 10_000);
    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const [payment] = h.yookassa.payments();
    h.yookassa.succeedPayment(payment!.id);
    const o = await waitOrder(h, id, (x) => x.extraCharges?.[0]?.refund === "done");
    expect(o).toMatchObject({ state: "delivered", rail: "stars", refund: "none" });
    const refunds = h.yookassa.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ paymentId: payment!.id, amountKopecks: o.priceKopecks });
    expect(o.extraCharges).toEqual([
      expect.objectContaining({
        rail: "yookassa",
        telegramChargeId: `yookassa:${payment!.id}`,
        providerChargeId: payment!.id,
        refund: "done",
        refundRef: refunds[0]!.id,
      }),
    ]);
    expect(h.yookassa.keyStats(fitIdempotenceKey(`xrefund:${id}:yookassa:${payment!.id}`))).toEqual({
      requests: 1,
      created: 1,
    });
    expect(h.telegram.refunds()).toEqual([]);
    expect(h.sandbox.stats(id)).toMatchObject({ pays: 1, charges: 1 });
    expect(c.botMessages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);
    // Paid on YooKassa's page, outside the chat: the chat says where the money went, once.
    const told = await c.waitForBotMessage(/second payment/, 10_000);
    expect(told.text).toContain(`#${id.slice(0, 8)}`);
    expect(told.text).toContain("refunded the way you paid (card or SBP)");
    expect(c.botMessages().filter((m) => /second payment/.test(m.text ?? ""))).toHaveLength(1);
  }, 30_000);
});
