import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import { formatRub } from "../../src/bot/format/money.js";
import { utcMidnight } from "../../src/orders/stats.js";
import type { Customer, Order, OrderFilter, OrderItem } from "../../src/orders/types.js";
import { APP_OPERATOR_ID, type AppHarness, DELIVERED, startAppHarness } from "../helpers/app-harness.js";
import { newOrderId, sampleItems } from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * The operator tools end to end: the app as src/main.ts composes it, talking to the Telegram
 * emulator and the reseller sandbox over HTTP. Orders are placed through the orders engine
 * (customers' chat flows have their own end-to-end tests); the operator only uses the chat.
 */

let chargeSeq = 0;
let userSeq = 640_000_000;

/**
 * Two operators take turns, test by test: the bot drops updates beyond a dozen from one user in a
 * few seconds, and one person tapping through every test in a row would trip that.
 */
const OPERATORS = [APP_OPERATOR_ID, 7_000_011];
const OPERATOR_ENV = { OPERATOR_IDS: OPERATORS.join(",") };
let operatorSeq = 0;

function newOperator(h: AppHarness): ChatUser {
  const id = OPERATORS[operatorSeq++ % OPERATORS.length]!;
  const user = h.telegram.user({ id, username: `shop_operator_${id}`, languageCode: "en" });
  user.startChat();
  return user;
}

function newCustomer(h: AppHarness): { user: ChatUser; customer: Customer } {
  userSeq += 1;
  const user = h.telegram.user({ id: userSeq, username: `client_${userSeq}`, languageCode: "en" });
  user.startChat();
  return {
    user,
    customer: { userId: userSeq, chatId: userSeq, username: `client_${userSeq}`, locale: "en" },
  };
}

async function quote(h: AppHarness, item: OrderItem, customer = newCustomer(h).customer): Promise<Order> {
  const order = await h.app.orders.quote({ orderId: newOrderId(), item, customer });
  expect(order.state).toBe("quoted");
  return order;
}

/** A quote once its product is on sale again: paused by a refusal, it resumes at the deposit check a refused quote asks for. */
function quoteWhenResumed(h: AppHarness, item: OrderItem): Promise<Order> {
  return eventually(() => quote(h, item).catch(() => undefined), 15_000, "the product resumed");
}

/**
 * The shops here run CHECKOUT=direct: an order is "paid" by confirming it, so no Telegram payment
 * (and no Stars refund) is involved; "RUB" records a provider payment, which the bot cannot refund
 * by itself, for the refund-needed cases.
 */
async function pay(h: AppHarness, order: Order, currency: "NONE" | "RUB" = "NONE", chargeId?: string) {
  chargeSeq += 1;
  if (currency === "NONE") {
    const res = await h.app.orders.confirm(order.id, order.customer.userId);
    expect(res.won).toBe(true);
    return res;
  }
  return h.app.orders.markPaid(order.id, {
    userId: order.customer.userId,
    currency,
    totalAmount: order.priceKopecks!,
    telegramChargeId: chargeId ?? `e2eCharge${chargeSeq}`,
    providerChargeId: currency === "RUB" ? `e2eProvider${chargeSeq}` : undefined,
  });
}

async function until(h: AppHarness, id: string, check: (o: Order) => boolean, label: string): Promise<Order> {
  return eventually(
    async () => {
      const o = await h.app.orders.get(id);
      return o && check(o) ? o : null;
    },
    20_000,
    `order ${id.slice(0, 8)} ${label}`,
  );
}

function buttonsOf(m: ChatMessage | undefined): { text: string; data: string }[] {
  const kb = (
    m?.replyMarkup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined
  )?.inline_keyboard;
  return (kb ?? []).flat().map((b) => ({ text: b.text, data: b.callback_data ?? "" }));
}

function rowIds(m: ChatMessage | undefined): string[] {
  return buttonsOf(m)
    .map((b) => b.data)
    .filter((d) => d.startsWith("op:o:"))
    .map((d) => d.slice(5));
}

function message(user: ChatUser, id: number): ChatMessage | undefined {
  return user.messages().find((m) => m.messageId === id);
}

/** Waits until message `id` (sent or edited) shows `text`. */
async function shows(
  user: ChatUser,
  id: number,
  text: string | RegExp,
  timeoutMs = 15_000,
): Promise<ChatMessage> {
  await user.waitFor((msgs) => {
    const m = msgs.find((x) => x.messageId === id);
    return !!m?.text && (typeof text === "string" ? m.text.includes(text) : text.test(m.text));
  }, timeoutMs);
  return message(user, id)!;
}

// ---------------------------------------------------------------------------------------------

describe("operator tools through the Telegram emulator", () => {
  let h: AppHarness;
  let all: Order[] = [];
  const ids: Record<string, string[]> = {};

  beforeAll(async () => {
    h = await startAppHarness({ ...OPERATOR_ENV, CHECKOUT: "direct" });
    const items = Object.values(sampleItems());
    const itemAt = (i: number) => items[i % items.length]!;
    const failing = new Set<string>();
    h.sandbox.setOutcome((o) =>
      failing.has(o.customId)
        ? { status: "failed", errorMessage: "no such recipient" }
        : { status: "delivered" },
    );

    // 12 delivered, 2 failed (nothing charged to the customer), 2 failed (provider payment, refund needed).
    const delivered = await Promise.all(Array.from({ length: 12 }, (_, i) => quote(h, itemAt(i))));
    const failedDirect = await Promise.all(Array.from({ length: 2 }, (_, i) => quote(h, itemAt(i + 1))));
    const failedRub = await Promise.all(Array.from({ length: 2 }, (_, i) => quote(h, itemAt(i + 2))));
    for (const o of [...failedDirect, ...failedRub]) failing.add(o.id);
    await Promise.all([
      ...delivered.map((o) => pay(h, o)),
      ...failedDirect.map((o) => pay(h, o)),
      ...failedRub.map((o) => pay(h, o, "RUB")),
    ]);
    await Promise.all([
      ...delivered.map((o) => until(h, o.id, (x) => x.state === "delivered", "delivered")),
      ...failedDirect.map((o) => until(h, o.id, (x) => x.state === "failed", "failed")),
      ...failedRub.map((o) => until(h, o.id, (x) => x.state === "failed" && x.refund === "needed", "owed")),
    ]);
    // 4 pending (delivery paused), 2 rejected (deposit too low), 3 quotes never paid.
    h.sandbox.pauseDelivery(true);
    const pending = await Promise.all(Array.from({ length: 4 }, (_, i) => quote(h, itemAt(i))));
    await Promise.all(pending.map((o) => pay(h, o)));
    await Promise.all(pending.map((o) => until(h, o.id, (x) => x.state === "pending", "pending")));
    const balance = h.sandbox.balanceRub();
    h.sandbox.setBalanceRub(0);
    const rejected = await Promise.all(Array.from({ length: 2 }, (_, i) => quote(h, itemAt(i))));
    await Promise.all(rejected.map((o) => pay(h, o)));
    await Promise.all(rejected.map((o) => until(h, o.id, (x) => x.state === "rejected", "rejected")));
    h.sandbox.setBalanceRub(balance);
    // The refusals paused those products; a quote refused meanwhile has the deposit checked again.
    const quoted: Order[] = [];
    for (let i = 0; i < 3; i++) quoted.push(await quoteWhenResumed(h, itemAt(i)));

    Object.assign(ids, {
      delivered: delivered.map((o) => o.id),
      failedDirect: failedDirect.map((o) => o.id),
      failedRub: failedRub.map((o) => o.id),
      pending: pending.map((o) => o.id),
      rejected: rejected.map((o) => o.id),
      quoted: quoted.map((o) => o.id),
    });
    all = (await Promise.all(
      Object.values(ids)
        .flat()
        .map((id) => h.app.orders.get(id)),
    )) as Order[];
    expect(all).toHaveLength(25);
    // The operators' alerts about these orders go out at Telegram's pace (about one a second per
    // chat); the tests start once they are all sent, so the chats answer at once.
    const store = h.app.orders.store;
    await eventually(
      async () =>
        (await h.app.redis.zrange(store.jobsKey, 0, -1)).every((job) => !job.startsWith("alert:")) &&
        (await h.app.orders.outgoingDepth()) === 0,
      45_000,
      "the operator alerts to go out",
    );
  }, 90_000);

  afterAll(async () => {
    await h?.close();
  });

  it("shows the deposit, warns when it is low, and explains a reseller that is down", async () => {
    const operator = newOperator(h);
    const expected = formatRub(Math.round(h.sandbox.balanceRub() * 100), "en");
    await operator.sendText("/balance");
    const msg = await operator.waitForBotMessage(/Reseller deposit/);
    expect(msg.text).toContain(`Balance: ${expected}`);
    expect(msg.text).not.toContain("⚠️");

    const normal = h.sandbox.balanceRub();
    h.sandbox.setBalanceRub(750);
    await operator.pressButton("🔄 Refresh", { messageId: msg.messageId });
    const low = await shows(operator, msg.messageId, "⚠️ Below the alert threshold of ₽1,000");
    expect(low.text).toContain("Balance: ₽750");
    h.sandbox.setBalanceRub(normal);

    h.sandbox.setAuthFailure(true);
    try {
      await operator.pressButton("🔄 Refresh", { messageId: msg.messageId });
      const denied = await shows(operator, msg.messageId, "API key rejected");
      expect(denied.text).not.toMatch(/Error|\bat .*\.(ts|js)|₽/);
    } finally {
      h.sandbox.setAuthFailure(false);
    }

    h.sandbox.fail("GET /api/reseller/balance", "500", Number.POSITIVE_INFINITY);
    try {
      await operator.pressButton("🔄 Refresh", { messageId: msg.messageId });
      await shows(operator, msg.messageId, "The reseller service is not answering");
    } finally {
      h.sandbox.clearFaults();
    }
    await operator.pressButton("🔄 Refresh", { messageId: msg.messageId });
    await shows(operator, msg.messageId, `Balance: ${expected}`);
  });

  it("pages through all 25 orders, newest first, and filters them", async () => {
    const operator = newOperator(h);
    await operator.sendText("/orders");
    const list = await operator.waitForBotMessage(/Orders · All · 1–10 of 25/);
    const seen = [...rowIds(list)];
    await operator.pressButton("Older ▶️", { messageId: list.messageId });
    seen.push(...rowIds(await shows(operator, list.messageId, "11–20 of 25")));
    await operator.pressButton("Older ▶️", { messageId: list.messageId });
    const last = await shows(operator, list.messageId, "21–25 of 25");
    seen.push(...rowIds(last));
    expect(buttonsOf(last).map((b) => b.text)).not.toContain("Older ▶️");
    expect(seen).toHaveLength(25);
    expect(new Set(seen)).toEqual(new Set(all.map((o) => o.id)));
    const created = seen.map((id) => all.find((o) => o.id === id)!.createdAt);
    for (let i = 1; i < created.length; i++) expect(created[i]!).toBeLessThanOrEqual(created[i - 1]!);

    const filters: [string, OrderFilter, (o: Order) => boolean, number][] = [
      ["Pending", "pending", (o) => o.state === "pending", 4],
      ["Delivered", "delivered", (o) => o.state === "delivered", 12],
      ["Failed", "failed", (o) => o.state === "failed", 4],
      ["⚠️ Attention", "attention", (o) => o.state === "rejected" || o.stuck || o.refund === "needed", 4],
    ];
    for (const [label, , belongs, count] of filters) {
      await operator.pressButton(label, { messageId: list.messageId });
      const heading = count > 10 ? `${label} · 1–10 of ${count}` : `${label} · ${count}\n`;
      const first = await shows(operator, list.messageId, heading);
      expect(buttonsOf(first).find((b) => b.text === `• ${label}`)).toBeTruthy();
      const listed = rowIds(first);
      if (count > 10) {
        await operator.pressButton("Older ▶️", { messageId: list.messageId });
        listed.push(...rowIds(await shows(operator, list.messageId, `${label} · 11–${count} of ${count}`)));
      }
      expect(listed).toHaveLength(count);
      expect(new Set(listed)).toEqual(new Set(all.filter(belongs).map((o) => o.id)));
    }
  });

  it("opens a detail card from a row and marks a provider payment refunded", async () => {
    const operator = newOperator(h);
    const owed = ids.failedRub![0]!;
    await operator.sendText("/orders");
    const list = await operator.waitForBotMessage(/Orders · All · 1–10 of 25/);
    await operator.pressButton("⚠️ Attention", { messageId: list.messageId });
    await shows(operator, list.messageId, "Attention · 4\n");
    await operator.pressButton(new RegExp(`#${owed.slice(0, 8)}`), { messageId: list.messageId });
    const card = await operator.waitForBotMessage(owed);
    expect(card.text).toContain("❌ failed · 💸 refund needed");
    expect(card.text).toContain("Error: no such recipient");
    expect(card.text).toMatch(/Provider charge id: e2eProvider\d+/);
    expect(card.text).toContain("Refund: ⚠️ needed");

    await operator.pressButton("💸 Mark refunded", { messageId: card.messageId });
    const ask = await shows(operator, card.messageId, "Confirm only after the money went back");
    expect(buttonsOf(ask).map((b) => b.text)).toEqual(["✅ Yes, it is refunded", "✖️ Cancel"]);
    const answer = await operator.pressButton("✅ Yes, it is refunded", { messageId: card.messageId });
    expect(answer.callbackAnswer?.text).toBe("Marked refunded.");
    const after = await shows(operator, card.messageId, "Refund: refunded");
    expect(buttonsOf(after).map((b) => b.text)).not.toContain("💸 Mark refunded");
    expect((await h.app.orders.get(owed))!.refund).toBe("done");
    all = all.map((o) => (o.id === owed ? { ...o, refund: "done" } : o));
  });

  it("resends a customer's final notification", async () => {
    const operator = newOperator(h);
    const id = ids.delivered![3]!;
    const order = all.find((o) => o.id === id)!;
    const customer = h.telegram.user({ id: order.customer.userId });
    const finals = () =>
      customer.botMessages().filter((m) => DELIVERED.test(m.text ?? "") && !m.text?.startsWith("🧾"));
    await customer.waitFor(() => finals().length === 1, 15_000);
    const before = finals().length;
    await operator.sendText(`/order ${id.slice(0, 8)}`);
    const card = await operator.waitForBotMessage(id);
    const answer = await operator.pressButton("✉️ Resend notification", { messageId: card.messageId });
    expect(answer.callbackAnswer?.text).toBe("The customer's notification will be sent again.");
    await customer.waitFor(() => finals().length === before + 1, 15_000);
  });

  it("shows /stats sums that match the orders created", async () => {
    const operator = newOperator(h);
    const since = utcMidnight(Date.now());
    const now = (await Promise.all(all.map((o) => h.app.orders.get(o.id)))) as Order[];
    const today = now.filter((o) => o.createdAt >= since);
    const delivered = today.filter((o) => o.state === "delivered");
    const revenue = delivered.reduce((s, o) => s + o.priceKopecks!, 0);
    const cost = delivered.reduce((s, o) => s + (o.chargedKopecks ?? o.wholesaleKopecks!), 0);
    const paid = today.filter((o) => o.times.paid !== undefined).length;
    const failed = today.filter((o) => o.state === "failed" || o.state === "rejected").length;
    await operator.sendText("/stats");
    const msg = await operator.waitForBotMessage(/Statistics/);
    const orders = `Orders: ${today.length} · paid ${paid} · delivered ${delivered.length} · failed or refused ${failed}`;
    const money = `Revenue ${formatRub(revenue, "en")} · wholesale ${formatRub(cost, "en")} · margin ${formatRub(revenue - cost, "en")}`;
    expect(msg.text!.split(orders)).toHaveLength(4);
    expect(msg.text!.split(money)).toHaveLength(4);
    expect(delivered).toHaveLength(12);
    expect(failed).toBe(6);
  });

  it("gives a customer nothing from operator commands", async () => {
    const { user: customer } = newCustomer(h);
    await customer.sendText("/frobnicate");
    const unknown = await customer.waitForBotMessage(/./);
    const replies = () => customer.botMessages().length;
    for (const command of ["/balance", "/stats", `/order ${ids.delivered![0]}`]) {
      const n = replies();
      await customer.sendText(command);
      await customer.waitFor(() => replies() === n + 1);
      expect(customer.lastBotMessage()!.text, command).toBe(unknown.text);
    }
    // Their /orders is their own list (empty), never the shop's.
    const n = replies();
    await customer.sendText("/orders");
    await customer.waitFor(() => replies() === n + 1);
    const mine = customer.lastBotMessage()!;
    expect(mine.text).not.toContain("Orders · All");
    for (const o of all)
      expect(`${mine.text}${JSON.stringify(mine.replyMarkup ?? {})}`).not.toContain(o.id.slice(0, 8));
  });

  it("answers a customer's crafted operator buttons with an empty answer and does nothing", async () => {
    const owed = ids.failedRub![1]!;
    const crafted = [
      ["op:b", "op:s", "op:l:a:0", "op:l:x:0", `op:o:${owed}`, `op:c:${owed}`],
      [
        `op:m:${owed}`,
        `op:y:${owed}`,
        `op:n:${ids.delivered![1]}`,
        `op:r:${ids.pending![0]}`,
        "op:q:anything",
      ],
    ];
    const sentBefore = h.telegram.calls("sendMessage").length;
    for (const payloads of crafted) {
      // A customer sends a few updates (the bot drops a flood from one user).
      const { user: customer } = newCustomer(h);
      await customer.sendText("/frobnicate");
      const unknown = await customer.waitForBotMessage(/./);
      const answersBefore = h.telegram.calls("answerCallbackQuery").length;
      for (const data of payloads) await customer.pressCallbackData(data, unknown.messageId);
      // A chat's updates are handled in order: once this is answered, the buttons were handled.
      await customer.sendText("/frobnicate");
      await customer.waitFor(() => customer.botMessages().length === 2);
      const answers = h.telegram.calls("answerCallbackQuery").slice(answersBefore);
      expect(answers).toHaveLength(payloads.length);
      for (const a of answers) expect(a.payload.text).toBeUndefined();
      expect(customer.messages()).toHaveLength(4);
      expect(customer.messages().every((m) => m.edits === 0)).toBe(true);
    }
    // Nothing was sent to anyone but the two customers' /frobnicate answers (no notification resent).
    const sent = h.telegram.calls("sendMessage").slice(sentBefore);
    expect(sent).toHaveLength(4);
    expect((await h.app.orders.get(owed))!.refund).toBe("needed");
  });

  it("re-checks a pending order with the reseller from its card", async () => {
    const operator = newOperator(h);
    const id = ids.pending![0]!;
    await operator.sendText(`/order ${id}`);
    const card = await operator.waitForBotMessage(id);
    expect(card.text).toContain("State: ⏳ pending");
    h.sandbox.deliverAllNow();
    await operator.pressButton("🔁 Re-check now", { messageId: card.messageId });
    // Whoever reads the reseller first (this re-check or the engine's own polling), the card shows it.
    const after = await shows(operator, card.messageId, "State: ✅ delivered");
    expect(after.text).toContain("Delivered:");
  });
});

// ---------------------------------------------------------------------------------------------

describe("operator alerts through the Telegram emulator", () => {
  let h: AppHarness;
  let operator: ChatUser;

  beforeAll(async () => {
    // Orders pending longer than 3.6 s are stuck.
    h = await startAppHarness({
      CHECKOUT: "direct",
      TRACKING_TIMEOUT_HOURS: "0.001",
      LOW_BALANCE_RUB: "1000",
    });
    operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
    operator.startChat();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Alert messages start with their headline (cards and other messages never do). */
  const alerts = (headline: string) => operator.botMessages().filter((m) => m.text?.startsWith(headline));

  /** Waits for the alert, checks its Open order button opens the card, returns the alert. */
  async function expectAlert(title: string, order?: Order): Promise<ChatMessage> {
    const alert = await operator.waitForBotMessage(new RegExp(`^${title}`), 20_000);
    if (!order) {
      expect(buttonsOf(alert)).toEqual([]);
      return alert;
    }
    expect(alert.text).toContain(`#${order.id.slice(0, 8)}`);
    expect(buttonsOf(alert)).toEqual([{ text: "🔎 Open order", data: `op:o:${order.id}` }]);
    await operator.pressButton("🔎 Open order", { messageId: alert.messageId });
    await operator.waitForBotMessage(order.id);
    return alert;
  }

  it("alerts each problem once, with a button to the order, and not again inside its window", async () => {
    const item = sampleItems().stars!;

    // Delivery failed (nothing was charged to the customer).
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient <b>banned</b>" }));
    const failed = await quote(h, item);
    await pay(h, failed);
    const failedAlert = await expectAlert("❌ Delivery failed", failed);
    expect(failedAlert.text).toContain("recipient <b>banned</b>");

    // A provider payment that failed: delivery failed and refund needed.
    const owed = await quote(h, item);
    await pay(h, owed, "RUB");
    const refundAlert = await expectAlert("💸 Refund needed", owed);
    expect(refundAlert.text).toMatch(/Provider charge id: e2eProvider\d+/);
    h.sandbox.setOutcome(() => ({ status: "delivered" }));

    // A second payment for an order already paid with a provider.
    const twice = await quote(h, item);
    await pay(h, twice, "RUB");
    await until(h, twice.id, (o) => o.state === "delivered", "delivered");
    await pay(h, twice, "RUB", "e2eSecondPayment");
    const dupAlert = await expectAlert("💳 Second payment", twice);
    expect(dupAlert.text).toContain("e2eSecondPayment");

    // Pay refused for a deposit too low, with the balance then.
    const normal = h.sandbox.balanceRub();
    h.sandbox.setBalanceRub(10);
    const refused = await quote(h, item);
    await pay(h, refused);
    const refusedAlert = await expectAlert("⛔ Pay refused", refused);
    expect(refusedAlert.text).toContain("Why: deposit too low");
    expect(refusedAlert.text).toContain("Deposit at that moment: ₽10");

    // Low deposit: checked after each pay; one alert per hour while it stays low. The deposit is
    // topped up first: the refusal paused the product, and a quote refused while it is paused
    // has the deposit checked again, which resumes it.
    h.sandbox.setBalanceRub(normal);
    const cheap = await quoteWhenResumed(h, item);
    h.sandbox.setBalanceRub(1000 + cheap.wholesaleKopecks! / 100 - 1);
    const balanceReads = () => h.sandbox.requests().filter((r) => r.path === "/api/reseller/balance").length;
    await pay(h, cheap);
    const lowAlert = await expectAlert("🪫 Deposit low");
    expect(lowAlert.text).toContain("under the alert threshold of ₽1,000");
    const reads = balanceReads();
    const again = await quote(h, item);
    h.sandbox.setBalanceRub(500);
    await pay(h, again);
    await until(h, again.id, (o) => o.state === "delivered", "delivered");
    await eventually(() => balanceReads() > reads, 10_000, "another balance check");

    // The API key rejected: one alert per 10 minutes.
    h.sandbox.setBalanceRub(normal);
    h.sandbox.setAuthFailure(true);
    try {
      await expect(quote(h, item)).rejects.toThrow();
      await expectAlert("🔑 Reseller API key rejected");
      await expect(quote(h, item)).rejects.toThrow();
    } finally {
      h.sandbox.setAuthFailure(false);
    }

    // Stuck: pending past TRACKING_TIMEOUT_HOURS.
    h.sandbox.pauseDelivery(true);
    const slow = await quote(h, item);
    await pay(h, slow);
    const stuckAlert = await expectAlert("🐢 Order stuck", slow);
    expect(stuckAlert.text).toContain("Re-check now");
    h.sandbox.pauseDelivery(false);
    await until(h, slow.id, (o) => o.state === "delivered", "delivered after all");

    // Each once.
    expect(alerts("❌ Delivery failed")).toHaveLength(2);
    expect(alerts("💸 Refund needed")).toHaveLength(1);
    expect(alerts("💳 Second payment")).toHaveLength(1);
    expect(alerts("⛔ Pay refused")).toHaveLength(1);
    expect(alerts("🪫 Deposit low")).toHaveLength(1);
    expect(alerts("🔑 Reseller API key rejected")).toHaveLength(1);
    expect(alerts("🐢 Order stuck")).toHaveLength(1);
  });
});
