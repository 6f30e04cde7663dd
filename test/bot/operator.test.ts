import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startResellerSandbox } from "../../sandbox/reseller/server.js";
import { formatRub } from "../../src/bot/format/money.js";
import { renderAlert } from "../../src/bot/format/operator-alerts.js";
import { utcMidnight } from "../../src/orders/stats.js";
import type { Customer, Order, OrderFilter, OrderItem } from "../../src/orders/types.js";
import { createResellerClient } from "../../src/reseller/client.js";
import {
  API_KEY,
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import {
  allData,
  button,
  CUSTOMER_ID,
  OPERATOR_ID,
  OperatorBot,
  type Shown,
  translatorFor,
} from "./operator-harness.js";

let chargeSeq = 0;

async function quote(h: EngineHarness, item: OrderItem, customer: Customer = newCustomer()): Promise<Order> {
  const order = await h.engine.quote({ orderId: newOrderId(), item, customer });
  expect(order.state).toBe("quoted");
  return order;
}

async function pay(h: EngineHarness, order: Order, currency: "XTR" | "RUB" = "XTR"): Promise<void> {
  chargeSeq += 1;
  const res = await h.engine.markPaid(order.id, {
    userId: order.customer.userId,
    currency,
    totalAmount: currency === "XTR" ? order.amount! : order.priceKopecks!,
    telegramChargeId: `tgCharge${chargeSeq}`,
    providerChargeId: currency === "RUB" ? `provCharge${chargeSeq}` : undefined,
  });
  expect(res.outcome).toBe("paid");
}

async function until(
  h: EngineHarness,
  id: string,
  check: (o: Order) => boolean,
  label: string,
): Promise<Order> {
  return eventually(
    async () => {
      const o = await h.engine.get(id);
      return o && check(o) ? o : null;
    },
    15_000,
    `order ${id.slice(0, 8)} ${label}`,
  );
}

/** Order ids of the rows of an operator list message (from the row buttons). */
function rowIds(shown: Shown): string[] {
  return allData(shown.keyboard)
    .filter((d) => d.startsWith("op:o:"))
    .map((d) => d.slice(5));
}

const LETTER: Record<OrderFilter, string> = {
  all: "a",
  pending: "p",
  delivered: "d",
  failed: "f",
  attention: "x",
};

/** Walks every page of a filter through the Older button; returns the rows and the pages seen. */
async function walkList(bot: OperatorBot, filter: OrderFilter): Promise<{ ids: string[]; pages: Shown[] }> {
  const pages: Shown[] = [];
  let data: string | undefined = `op:l:${LETTER[filter]}:0`;
  while (data && pages.length < 10) {
    const calls = await bot.press(OPERATOR_ID, data, 5000);
    const shown = OperatorBot.one(calls);
    expect(shown.method).toBe("editMessageText");
    pages.push(shown);
    data = shown.keyboard.flat().find((b) => b.text === "Older ▶️")?.data;
  }
  return { ids: pages.flatMap(rowIds), pages };
}

// ---------------------------------------------------------------------------------------------

describe("operator /balance", () => {
  let h: EngineHarness;
  let bot: OperatorBot;
  beforeAll(async () => {
    h = await startEngineHarness({ sandbox: { balanceRub: 1_234_567.5 } });
    bot = new OperatorBot(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it("shows the deposit in the operator's locale with a Refresh button", async () => {
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance"));
    expect(shown.chatId).toBe(OPERATOR_ID);
    expect(shown.text).toContain("<b>₽1,234,567.50</b>");
    expect(shown.text).not.toContain("⚠️");
    expect(allData(shown.keyboard)).toEqual(["op:b"]);

    const ru = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance", { language: "ru" }));
    expect(ru.text.replace(/\s/g, " ")).toContain("1 234 567,50 ₽");
  });

  it("warns under LOW_BALANCE_RUB when refreshed, editing the same message", async () => {
    h.sandbox.setBalanceRub(999.5);
    const calls = await bot.press(OPERATOR_ID, "op:b", 321);
    expect(OperatorBot.callbackAnswer(calls)).toBeTruthy();
    const shown = OperatorBot.one(calls);
    expect(shown.method).toBe("editMessageText");
    expect(shown.messageId).toBe(321);
    expect(shown.text).toContain("₽999.50");
    expect(shown.text).toContain("⚠️ Below the alert threshold of ₽1,000");
    h.sandbox.setBalanceRub(1_234_567.5);
  });

  it("says the API key was rejected when the reseller answers 401, without a stack trace", async () => {
    h.sandbox.setAuthFailure(true);
    try {
      const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance"));
      expect(shown.text).toContain("API key rejected");
      expect(shown.text).not.toMatch(/Error|\bat .*\.(ts|js)|₽/);
      expect(allData(shown.keyboard)).toEqual(["op:b"]);
    } finally {
      h.sandbox.setAuthFailure(false);
    }
  });

  it("says the service is not answering when the reseller keeps failing with 500", async () => {
    h.sandbox.fail("GET /api/reseller/balance", "500", Number.POSITIVE_INFINITY);
    try {
      const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance"));
      expect(shown.text).toContain("not answering");
      expect(shown.text).not.toMatch(/Error|\bat .*\.(ts|js)/);
    } finally {
      h.sandbox.clearFaults();
    }
  });

  it("says the service is not answering when the reseller is down", async () => {
    const gone = await startResellerSandbox({ apiKey: API_KEY });
    await gone.close();
    const deadClient = createResellerClient({
      baseUrl: gone.url,
      apiKey: API_KEY,
      retryBaseDelayMs: 5,
      retries: 1,
    });
    try {
      const downBot = new OperatorBot(h, { reseller: deadClient });
      const shown = OperatorBot.one(await downBot.send(OPERATOR_ID, "/balance"));
      expect(shown.text).toContain("The reseller service is not answering");
      expect(shown.text).not.toMatch(/ECONNREFUSED|Error|\bat .*\.(ts|js)/);
    } finally {
      await deadClient.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("operator tools with 25 orders in mixed states", () => {
  let h: EngineHarness;
  let bot: OperatorBot;
  const ids: Record<string, string[]> = {};
  let all: Order[] = [];

  /** Deposit reads made by the bot (the engine's own balance checks are not counted). */
  let balanceReads = 0;

  beforeAll(async () => {
    h = await startEngineHarness();
    bot = new OperatorBot(h, {
      reseller: {
        balance: () => {
          balanceReads += 1;
          return h.client.balance();
        },
      },
    });
    const items = Object.values(sampleItems());
    const itemAt = (i: number) => items[i % items.length]!;
    const failing = new Set<string>();
    h.sandbox.setOutcome((o) =>
      failing.has(o.customId)
        ? { status: "failed", errorMessage: "recipient <unknown>" }
        : { status: "delivered" },
    );

    // 8 delivered (one of them the non-operator customer's), 5 failed with Stars (refunded),
    // 2 failed with a provider payment (refund needed).
    const delivered = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        quote(
          h,
          itemAt(i),
          i === 0
            ? { userId: CUSTOMER_ID, chatId: CUSTOMER_ID, username: "carl_c", locale: "en" }
            : undefined,
        ),
      ),
    );
    const failedStars = await Promise.all(Array.from({ length: 5 }, (_, i) => quote(h, itemAt(i + 1))));
    const failedRub = await Promise.all(Array.from({ length: 2 }, (_, i) => quote(h, itemAt(i + 2))));
    for (const o of [...failedStars, ...failedRub]) failing.add(o.id);
    await Promise.all([
      ...delivered.map((o) => pay(h, o)),
      ...failedStars.map((o) => pay(h, o)),
      ...failedRub.map((o) => pay(h, o, "RUB")),
    ]);
    await Promise.all([
      ...delivered.map((o) => until(h, o.id, (x) => x.state === "delivered", "delivered")),
      ...failedStars.map((o) =>
        until(h, o.id, (x) => x.state === "failed" && x.refund === "done", "failed+refunded"),
      ),
      ...failedRub.map((o) =>
        until(h, o.id, (x) => x.state === "failed" && x.refund === "needed", "failed+owed"),
      ),
    ]);

    // 4 pending (delivery paused), then 3 rejected for a deposit too low.
    h.sandbox.pauseDelivery(true);
    const pending = await Promise.all(Array.from({ length: 4 }, (_, i) => quote(h, itemAt(i))));
    await Promise.all(pending.map((o) => pay(h, o)));
    await Promise.all(pending.map((o) => until(h, o.id, (x) => x.state === "pending", "pending")));
    const rejected = await Promise.all(Array.from({ length: 3 }, (_, i) => quote(h, itemAt(i))));
    h.sandbox.setBalanceRub(0);
    await Promise.all(rejected.map((o) => pay(h, o)));
    await Promise.all(rejected.map((o) => until(h, o.id, (x) => x.state === "rejected", "rejected")));
    h.sandbox.setBalanceRub(1_000_000);

    // 2 quotes never paid, and 1 order stuck in delivery (written directly: reaching it takes 24 h).
    // The refusals paused those products: a quote refused meanwhile has the deposit checked again.
    const quoted: Order[] = [];
    for (let i = 0; i < 2; i++)
      quoted.push(
        await eventually(() => quote(h, itemAt(i)).catch(() => undefined), 15_000, "on sale again"),
      );
    const t = Date.now();
    const stuck: Order = {
      ...pending[0]!,
      id: newOrderId(),
      state: "pending",
      customer: newCustomer(),
      stuck: true,
      createdAt: t,
      updatedAt: t,
      times: { draft: t, quoted: t, paid: t, pending: t },
      telegramChargeId: "tgChargeStuck",
    };
    expect(await h.engine.store.create(stuck, [])).toBe(true);

    Object.assign(ids, {
      delivered: delivered.map((o) => o.id),
      failedStars: failedStars.map((o) => o.id),
      failedRub: failedRub.map((o) => o.id),
      pending: pending.map((o) => o.id),
      rejected: rejected.map((o) => o.id),
      quoted: quoted.map((o) => o.id),
      stuck: [stuck.id],
    });
    all = (await Promise.all(
      Object.values(ids)
        .flat()
        .map((id) => h.engine.get(id)),
    )) as Order[];
    expect(all).toHaveLength(25);
  });
  afterAll(async () => {
    h.sandbox.pauseDelivery(false);
    await h.close();
  });

  it("lists all orders newest first, 10 per page, with each row's details", async () => {
    const first = OperatorBot.one(await bot.send(OPERATOR_ID, "/orders"));
    expect(first.method).toBe("sendMessage");
    expect(first.text).toContain("All · 1–10 of 25");
    expect(rowIds(first)).toHaveLength(10);

    const { ids: listed, pages } = await walkList(bot, "all");
    expect(pages.map((p) => rowIds(p).length)).toEqual([10, 10, 5]);
    expect(pages[2]!.text).toContain("21–25 of 25");
    expect(new Set(listed)).toEqual(new Set(all.map((o) => o.id)));
    expect(listed).toHaveLength(25);
    const created = listed.map((id) => all.find((o) => o.id === id)!.createdAt);
    for (let i = 1; i < created.length; i++) expect(created[i]!).toBeLessThanOrEqual(created[i - 1]!);

    // A row: time, product and quantity, recipient, customer, price, state.
    const customerOrder = all.find((o) => o.customer.userId === CUSTOMER_ID)!;
    const page = pages.find((p) => rowIds(p).includes(customerOrder.id))!;
    const n = listed.indexOf(customerOrder.id) + 1;
    const row = page.text.split("\n\n").find((r) => r.includes(`${n}. <code>`))!;
    expect(row).toContain("@carl_c");
    expect(row).toContain("✅ delivered");
    expect(row).toContain(formatRub(customerOrder.priceKopecks!, "en"));
    expect(row).toMatch(/<code>\d\d-\d\d \d\d:\d\d<\/code>/);
  });

  it.each([
    ["pending", (o: Order) => o.state === "pending", 5],
    ["delivered", (o: Order) => o.state === "delivered", 8],
    ["failed", (o: Order) => o.state === "failed", 7],
    ["attention", (o: Order) => o.state === "rejected" || o.stuck || o.refund === "needed", 6],
  ] as const)("filters %s orders", async (filter, belongs, count) => {
    const { ids: listed, pages } = await walkList(bot, filter);
    const expected = all.filter(belongs).map((o) => o.id);
    expect(expected).toHaveLength(count);
    expect(new Set(listed)).toEqual(new Set(expected));
    expect(listed).toHaveLength(count);
    expect(pages[0]!.text).toContain(` · ${count}\n`);
    const marked = pages[0]!.keyboard.flat().find((b) => b.text.startsWith("• "));
    expect(marked?.data).toBe(`op:l:${LETTER[filter]}:0`);
  });

  it("opens an order's detail card when its row is tapped", async () => {
    const { pages } = await walkList(bot, "failed");
    const owed = ids.failedRub![0]!;
    const row = pages.flatMap((p) => p.keyboard.flat()).find((b) => b.data === `op:o:${owed}`)!;
    const calls = await bot.press(OPERATOR_ID, row.data, 77);
    const card = OperatorBot.one(calls);
    expect(card.method).toBe("sendMessage");
    expect(card.text).toContain(owed);
    expect(card.text).toContain("❌ failed · 💸 refund needed");
    expect(card.text).toContain("Error: <i>recipient &lt;unknown&gt;</i>");
    expect(card.text).toMatch(/Provider charge id: <code>provCharge\d+<\/code>/);
    expect(card.text).toContain("Payment: RUB");
    expect(allData(card.keyboard)).toContain(`op:m:${owed}`);
  });

  it("shows /stats sums that match the orders created", async () => {
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/stats"));
    const since = utcMidnight(Date.now());
    const today = all.filter((o) => o.createdAt >= since);
    const delivered = today.filter((o) => o.state === "delivered");
    expect(delivered.length).toBe(all.filter((o) => o.createdAt >= since && o.state === "delivered").length);
    const revenue = delivered.reduce((s, o) => s + o.priceKopecks!, 0);
    const cost = delivered.reduce((s, o) => s + (o.chargedKopecks ?? o.wholesaleKopecks!), 0);
    expect(revenue).toBeGreaterThan(cost);
    const paid = today.filter((o) => o.times.paid !== undefined).length;
    const failed = today.filter((o) => o.state === "failed" || o.state === "rejected").length;
    const orders = `Orders: ${today.length} · paid ${paid} · delivered ${delivered.length} · failed or refused ${failed}`;
    const money = `Revenue ${formatRub(revenue, "en")} · wholesale ${formatRub(cost, "en")} · margin <b>${formatRub(revenue - cost, "en")}</b>`;
    // All 25 were created just now: today, the week and the month show the same sums.
    expect(shown.text.split(orders)).toHaveLength(4);
    expect(shown.text.split(money)).toHaveLength(4);
    expect(today.length).toBe(25);
    expect(delivered.length).toBe(8);
    expect(allData(shown.keyboard)).toEqual(["op:s"]);
  });

  it("renders each alert the engine raised, with a button that opens the order", async () => {
    await eventually(
      async () => h.notifier.alertsOf("refund_needed").length >= 2 && (await h.engine.outgoingDepth()) === 0,
      10_000,
      "refund alerts, and every other message sent",
    );
    // Per-order alerts; a low-deposit alert may join them, since the set-up lowers the deposit, and
    // the refusals paused products (and a top-up resumed them), which are the products' alerts.
    const perOrder = h.notifier.alerts.filter(
      (a) => a.orderId && a.alert.kind !== "product_paused" && a.alert.kind !== "product_resumed",
    );
    expect(h.notifier.alertsOf("product_paused").length).toBeGreaterThan(0);
    const kinds = new Set(perOrder.map((a) => a.alert.kind));
    expect(kinds).toEqual(new Set(["delivery_failed", "pay_rejected", "refund_needed"]));
    expect(h.notifier.alertsOf("delivery_failed")).toHaveLength(7);
    expect(h.notifier.alertsOf("pay_rejected")).toHaveLength(3);
    for (const { alert } of perOrder) {
      const order = (await h.engine.get(alert.orderId!))!;
      const rendered = renderAlert(alert, order, translatorFor("en"));
      expect(rendered.text).toContain(`#${order.id.slice(0, 8)}`);
      if (alert.kind === "pay_rejected") {
        expect(rendered.text).toContain("Why: deposit too low");
        expect(rendered.text).toContain("Deposit at that moment: <b>₽0</b>");
      }
      if (alert.kind === "delivery_failed") expect(rendered.text).toContain("recipient &lt;unknown&gt;");
      const open = rendered.reply_markup!.inline_keyboard[0]![0]!;
      expect(open.text).toBe("🔎 Open order");
      const card = OperatorBot.one(
        await bot.press(OPERATOR_ID, (open as { callback_data: string }).callback_data),
      );
      expect(card.text).toContain(order.id);
    }
  });

  it("gives a non-operator nothing from any operator command", async () => {
    const readsBefore = balanceReads;
    const unknown = OperatorBot.one(await bot.send(CUSTOMER_ID, "/frobnicate"));
    for (const command of [
      "/balance",
      "/stats",
      `/order ${ids.delivered![1]}`,
      "/order",
      "/balance@shop_test_bot",
    ]) {
      const shown = OperatorBot.one(await bot.send(CUSTOMER_ID, command));
      expect(shown.text, command).toBe(unknown.text);
      expect(shown.keyboard).toEqual(unknown.keyboard);
    }
    expect(balanceReads).toBe(readsBefore);

    // Their /orders is their own list: one order, nobody else's.
    const mine = OperatorBot.one(await bot.send(CUSTOMER_ID, "/orders"));
    const others = all.filter((o) => o.customer.userId !== CUSTOMER_ID);
    for (const o of others) expect(mine.text + JSON.stringify(mine.keyboard)).not.toContain(o.id.slice(0, 8));
    expect(mine.text + JSON.stringify(mine.keyboard)).toContain(ids.delivered![0]!.slice(0, 8));
    expect(mine.text).not.toContain("📋 <b>Orders</b>");
  });

  it("answers a non-operator's crafted operator buttons with an empty answer and does nothing", async () => {
    const owed = ids.failedRub![1]!;
    const delivered = ids.delivered![2]!;
    const pendingId = ids.pending![1]!;
    const before = await Promise.all([owed, delivered, pendingId].map((id) => h.engine.get(id)));
    const balances = balanceReads;
    const payloads = [
      "op:b",
      "op:s",
      "op:l:a:0",
      "op:l:x:10",
      `op:o:${owed}`,
      `op:c:${owed}`,
      `op:m:${owed}`,
      `op:y:${owed}`,
      `op:n:${delivered}`,
      `op:r:${pendingId}`,
      "op:zz",
      "op:o:not-a-uuid",
    ];
    for (const data of payloads) {
      const calls = await bot.press(CUSTOMER_ID, data);
      expect(
        calls.map((c) => c.method),
        data,
      ).toEqual(["answerCallbackQuery"]);
      expect(calls[0]!.payload.text, data).toBeUndefined();
    }
    const after = await Promise.all([owed, delivered, pendingId].map((id) => h.engine.get(id)));
    expect(after).toEqual(before);
    expect(after[0]!.refund).toBe("needed");
    expect(await h.redis.zscore(h.engine.store.jobsKey, `final:${delivered}`)).toBeNull();
    expect(balanceReads).toBe(balances);
  });

  it("keeps operator tools out of group chats", async () => {
    const before = balanceReads;
    for (const command of ["/balance", "/stats", `/order ${ids.delivered![0]}`]) {
      const calls = await bot.send(OPERATOR_ID, command, { chatType: "group" });
      expect(OperatorBot.shown(calls), command).toHaveLength(0);
    }
    // /orders in a group is the customers' command (that group's own orders: none).
    const orders = OperatorBot.shown(await bot.send(OPERATOR_ID, "/orders", { chatType: "group" }));
    for (const o of all) expect(JSON.stringify(orders)).not.toContain(o.id.slice(0, 8));
    expect(balanceReads).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------

describe("operator detail card and its actions", () => {
  let h: EngineHarness;
  let bot: OperatorBot;
  beforeAll(async () => {
    h = await startEngineHarness();
    bot = new OperatorBot(h);
  });
  afterAll(async () => {
    h.sandbox.pauseDelivery(false);
    await h.close();
  });

  async function deliveredOrder(): Promise<Order> {
    const o = await quote(h, sampleItems().gameCodes!);
    await pay(h, o);
    return until(
      h,
      o.id,
      (x) => x.state === "delivered" && x.finalNotifiedAt !== undefined,
      "delivered and notified",
    );
  }

  it("opens the card with /order and the full id, the customer's #reference, or its 8 characters", async () => {
    const o = await deliveredOrder();
    const full = OperatorBot.one(await bot.send(OPERATOR_ID, `/order ${o.id}`));
    expect(full.text).toContain(o.id);
    expect(full.text).toContain("✅ delivered");
    expect(full.text).toContain("product_ref: <code>pubg-ru-60</code>");
    expect(full.text).toContain(`<a href="tg://user?id=${o.customer.userId}">`);
    expect(full.text).toContain(`@${o.customer.username}`);
    expect(full.text).toContain("Delivered:");
    expect(full.text).toContain("Margin:");
    for (const state of ["draft", "quoted", "paid", "pending", "delivered"]) {
      expect(full.text).toMatch(
        new RegExp(`<code>\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d</code> \\S+ ${state}`),
      );
    }
    for (const ref of [o.id.slice(0, 8), `#${o.id.slice(0, 8)}`, o.id.toUpperCase()]) {
      const card = OperatorBot.one(await bot.send(OPERATOR_ID, `/order ${ref}`));
      expect(card.text, ref).toBe(full.text);
    }
    expect(OperatorBot.one(await bot.send(OPERATOR_ID, "/order 0000dead")).text).toContain("No order");
    expect(OperatorBot.one(await bot.send(OPERATOR_ID, "/order")).text).toContain("Send <code>/order</code>");
    expect(OperatorBot.one(await bot.send(OPERATOR_ID, "/order <b>")).text).toContain(
      "Send <code>/order</code>",
    );
  });

  it("resends the customer's notification", async () => {
    const o = await deliveredOrder();
    expect(h.notifier.finalsFor(o.id)).toHaveLength(1);
    const calls = await bot.press(OPERATOR_ID, `op:n:${o.id}`, 55);
    expect(OperatorBot.callbackAnswer(calls)?.text).toBe("The customer's notification will be sent again.");
    const card = OperatorBot.one(calls);
    expect(card.method).toBe("editMessageText");
    expect(card.messageId).toBe(55);
    await eventually(() => h.notifier.finalsFor(o.id).length === 2, 10_000, "second final notification");

    const quoted = await quote(h, sampleItems().stars!);
    const none = await bot.press(OPERATOR_ID, `op:n:${quoted.id}`);
    expect(OperatorBot.callbackAnswer(none)?.text).toBe(
      "Nothing to resend: the order has no final result yet.",
    );
    expect(h.notifier.finalsFor(quoted.id)).toHaveLength(0);
  });

  it("marks a provider payment refunded after asking to confirm", async () => {
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "gone" }));
    const o = await quote(h, sampleItems().stars!);
    await pay(h, o, "RUB");
    await until(h, o.id, (x) => x.state === "failed" && x.refund === "needed", "failed and owed");
    h.sandbox.setOutcome(() => ({ status: "delivered" }));

    const card = OperatorBot.one(await bot.send(OPERATOR_ID, `/order ${o.id}`));
    const mark = button(card.keyboard, "Mark refunded");
    const ask = OperatorBot.one(await bot.press(OPERATOR_ID, mark.data, 60));
    expect(ask.text).toContain("Confirm only after the money went back");
    expect((await h.engine.get(o.id))!.refund).toBe("needed");

    const back = OperatorBot.one(await bot.press(OPERATOR_ID, button(ask.keyboard, "Cancel").data, 60));
    expect(back.text).toContain("Refund: ⚠️ needed");

    const yes = await bot.press(OPERATOR_ID, button(ask.keyboard, "Yes, it is refunded").data, 60);
    expect(OperatorBot.callbackAnswer(yes)?.text).toBe("Marked refunded.");
    const after = OperatorBot.one(yes);
    expect(after.text).toContain("Refund: refunded");
    expect(after.keyboard.flat().map((b) => b.text)).not.toContain("💸 Mark refunded");
    expect((await h.engine.get(o.id))!.refund).toBe("done");
    expect((await h.engine.listAll("attention", 0, 50)).items.map((x) => x.id)).not.toContain(o.id);

    const again = await bot.press(OPERATOR_ID, `op:y:${o.id}`, 60);
    expect(OperatorBot.callbackAnswer(again)?.text).toBe("No refund was pending for this order.");
  });

  it("tells the operator when a button's order no longer exists", async () => {
    const calls = await bot.press(OPERATOR_ID, `op:o:${newOrderId()}`);
    expect(OperatorBot.callbackAnswer(calls)).toMatchObject({
      text: "This order no longer exists.",
      show_alert: true,
    });
    expect(OperatorBot.shown(calls)).toHaveLength(0);
  });

  it("re-checks an order with the reseller and applies what it says", async () => {
    const done = await deliveredOrder();
    const idle = await bot.press(OPERATOR_ID, `op:r:${done.id}`);
    expect(OperatorBot.callbackAnswer(idle)?.text).toBe("Nothing to re-check: the order is ✅ delivered.");

    h.sandbox.pauseDelivery(true);
    const o = await quote(h, sampleItems().stars!);
    await pay(h, o);
    await until(h, o.id, (x) => x.state === "pending", "pending");
    const card = OperatorBot.one(await bot.send(OPERATOR_ID, `/order ${o.id}`));
    const recheck = button(card.keyboard, "Re-check now");
    const same = await bot.press(OPERATOR_ID, recheck.data, 70);
    expect(OperatorBot.callbackAnswer(same)?.text).toBe("Re-checked: no change (⏳ pending)");

    // No engine polls any more, and no delivery webhook comes (the crashed engine's listener would
    // still take it): only the operator's re-check can learn the result.
    h.crash(h.engine);
    h.sandbox.setWebhooks("drop");
    expect(h.sandbox.deliverAllNow()).toBe(1);
    const calls = await bot.press(OPERATOR_ID, recheck.data, 70);
    h.sandbox.setWebhooks("send");
    expect(OperatorBot.callbackAnswer(calls)?.text).toBe("Re-checked: ✅ delivered");
    const after = OperatorBot.one(calls);
    expect(after.method).toBe("editMessageText");
    expect(after.text).toContain("State: <b>✅ delivered</b>");
    expect(after.text).toContain("tx_hash");
    expect((await h.engine.get(o.id))!.state).toBe("delivered");

    // A reseller that rejects the key is explained, not shown as an error.
    h.sandbox.pauseDelivery(true);
    h.addEngine();
    const p = await quote(h, sampleItems().stars!);
    await pay(h, p);
    await until(h, p.id, (x) => x.state === "pending", "pending");
    h.sandbox.setAuthFailure(true);
    try {
      const denied = await bot.press(OPERATOR_ID, `op:r:${p.id}`, 71);
      expect(OperatorBot.callbackAnswer(denied)).toMatchObject({ show_alert: true });
      expect(String(OperatorBot.callbackAnswer(denied)?.text)).toContain("API key rejected");
      expect(OperatorBot.shown(denied)).toHaveLength(0);
    } finally {
      h.sandbox.setAuthFailure(false);
    }
  });

  it("answers a re-check tap at once when the reseller is slow, and the result follows in the chat", async () => {
    h.sandbox.pauseDelivery(true);
    const o = await quote(h, sampleItems().stars!);
    await pay(h, o);
    await until(h, o.id, (x) => x.state === "pending", "pending");
    // The first read of the order hangs until the client's timeout; its retry answers.
    h.sandbox.fail("GET /api/reseller/order/*", "hang", 1);
    const from = bot.calls.length;
    const pressed = bot.press(OPERATOR_ID, `op:r:${o.id}`, 72);
    const tap = await new Promise<Record<string, unknown> | undefined>((resolve) => {
      const t = setInterval(() => {
        const a = OperatorBot.callbackAnswer(bot.calls.slice(from));
        if (a) {
          clearInterval(t);
          resolve(a);
        }
      }, 20);
    });
    // Answered while the reseller still says nothing.
    expect(tap?.text).toBe("⏳ The reseller is slow to answer; the result will follow in the chat.");
    expect(bot.calls.slice(from).filter((c) => c.method === "sendMessage")).toHaveLength(0);
    const calls = await pressed;
    expect(calls.filter((c) => c.method === "answerCallbackQuery")).toHaveLength(1);
    const told = calls.find((c) => c.method === "sendMessage");
    expect(told?.payload.text).toBe("Re-checked: no change (⏳ pending)");
    expect(OperatorBot.one(calls.filter((c) => c.method !== "sendMessage")).text).toContain(
      "State: <b>⏳ pending</b>",
    );
  }, 40_000);
});
