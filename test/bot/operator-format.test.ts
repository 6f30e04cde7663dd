import { describe, expect, it } from "vitest";
import { orderRow, payloadLines, renderOrdersList } from "../../src/bot/format/operator.js";
import { renderAlert } from "../../src/bot/format/operator-alerts.js";
import { renderOrderCard, renderRefundConfirm } from "../../src/bot/format/operator-card.js";
import { formatDiscount } from "../../src/bot/format/operator-promo.js";
import { renderBalance, renderStats } from "../../src/bot/format/operator-stats.js";
import { OPERATOR_CALLBACK } from "../../src/bot/menus/operator.js";
import type { OrderStats } from "../../src/orders/stats.js";
import type { AlertKind, Order } from "../../src/orders/types.js";
import { order as baseOrder } from "../helpers/orders.js";
import { allData, buttonsOf, translatorFor } from "./operator-harness.js";

const en = translatorFor("en");
const ru = translatorFor("ru");
const T0 = Date.UTC(2025, 10, 22, 3, 14, 5);

/** The order operators look at unless a test says otherwise: 50 Stars delivered, every step timed. */
const order = (over: Partial<Order> = {}): Order =>
  baseOrder({
    id: "1a2b3c4d-0000-4000-8000-000000000001",
    state: "delivered",
    item: { kind: "stars", product: "stars", recipient: "durov_fan", quantity: 50 },
    customer: { userId: 500123, chatId: 500123, username: "buyer_one", firstName: "Ann", locale: "en" },
    wholesaleKopecks: 7_500,
    chargedKopecks: 7_500,
    priceKopecks: 8_300,
    amount: 56,
    telegramChargeId: "stxCHARGE1",
    resellerStatus: "delivered",
    deliveredPayload: { tx_hash: "0xabc<def>" },
    finalNotifiedAt: T0 + 9_000,
    createdAt: T0,
    updatedAt: T0 + 9_000,
    times: { draft: T0, quoted: T0 + 1_000, paid: T0 + 5_000, pending: T0 + 6_000, delivered: T0 + 8_000 },
    ...over,
  });

/** Every key a text could come from must have been translated (no raw `op-…` key left). */
function expectTranslated(text: string) {
  expect(text).not.toMatch(/\bop-[a-z-]+/);
}

/** A Telegram HTML text has balanced tags of the kinds we use. */
function expectBalancedHtml(text: string) {
  for (const tag of ["b", "i", "code", "a", "pre"]) {
    const open = text.match(new RegExp(`<${tag}[ >]`, "g"))?.length ?? 0;
    const close = text.match(new RegExp(`</${tag}>`, "g"))?.length ?? 0;
    expect(close, `<${tag}> balanced in: ${text}`).toBe(open);
  }
}

describe("operator order list", () => {
  it("shows each row with time, product and quantity, recipient, customer, price and state", () => {
    const row = orderRow(order(), 3, en, "en");
    expect(row).toContain("3. <code>11-22 03:14</code>");
    expect(row).toContain("⭐ Stars ×50");
    expect(row).toContain("@durov_fan");
    expect(row).toContain("@buyer_one");
    expect(row).toContain("56 ⭐ (₽83)");
    expect(row).toContain("✅ delivered");
  });

  it("marks stuck orders and refunds still owed in the state", () => {
    const row = orderRow(order({ state: "pending", stuck: true, refund: "needed" }), 1, en, "en");
    expect(row).toContain("⏳ pending · 🐢 stuck · 💸 refund needed");
  });

  it("escapes what customers and the reseller wrote", () => {
    const o = order({
      item: { kind: "gift", product: "gift", giftId: "g1", title: "<b>x</b>", emoji: "🎁", recipient: "a_b" },
      customer: { userId: 1, chatId: 1, firstName: "<script>", locale: "en" },
    });
    const row = orderRow(o, 1, en, "en");
    expect(row).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(row).toContain("&lt;script&gt;");
    expectBalancedHtml(row);
  });

  it("pages ten at a time with filters, a row button per order opening its card, and no paging past the end", () => {
    const items = Array.from({ length: 10 }, (_, i) =>
      order({ id: `1a2b3c4d-0000-4000-8000-0000000000${String(i).padStart(2, "0")}` }),
    );
    const view = renderOrdersList({ items, total: 25 }, "delivered", 10, en, "en");
    expect(view.text).toContain("Delivered · 11–20 of 25");
    const kb = buttonsOf(view.reply_markup);
    const data = allData(kb);
    expect(data.filter((d) => d.startsWith("op:o:"))).toHaveLength(10);
    expect(data).toContain("op:l:d:0"); // newer
    expect(data).toContain("op:l:d:20"); // older
    expect(data).toContain("op:l:x:0"); // attention filter
    expect(kb.flat().find((b) => b.data === "op:l:d:0" && b.text.includes("•"))).toBeTruthy();
    for (const d of data) {
      expect(Buffer.byteLength(d)).toBeLessThanOrEqual(64);
      expect(d).toMatch(OPERATOR_CALLBACK);
    }
    const last = renderOrdersList({ items: items.slice(0, 5), total: 25 }, "all", 20, en, "en");
    expect(allData(buttonsOf(last.reply_markup))).not.toContain("op:l:a:30");
    expect(last.text).toContain("21–25 of 25");
  });

  it("says when a filter has no orders", () => {
    const view = renderOrdersList({ items: [], total: 0 }, "attention", 0, en, "en");
    expect(view.text).toContain("none");
    expectTranslated(view.text);
  });
});

describe("operator order card", () => {
  it("shows everything an operator needs to answer a customer", () => {
    const { text, reply_markup } = renderOrderCard(order(), en, "en");
    expectTranslated(text);
    expectBalancedHtml(text);
    expect(text).toContain("1a2b3c4d-0000-4000-8000-000000000001");
    expect(text).toContain("⭐ Stars ×50");
    expect(text).toContain("recipient_username: <code>durov_fan</code>");
    expect(text).toContain("quantity: <code>50</code>");
    expect(text).toContain('<a href="tg://user?id=500123">Ann</a>');
    expect(text).toContain("id <code>500123</code>");
    expect(text).toContain("@buyer_one");
    expect(text).toContain("Wholesale price: ₽75");
    expect(text).toContain("Customer price: ₽83");
    expect(text).toContain("Margin: <b>₽8</b>");
    expect(text).toContain("Payment: XTR 56 ⭐");
    expect(text).toContain("<code>stxCHARGE1</code>");
    expect(text).toContain("Reseller status: <code>delivered</code>");
    expect(text).toContain("tx_hash: <code>0xabc&lt;def&gt;</code>");
    expect(text).toContain("Refund: none");
    expect(text).toContain("<code>2025-11-22 03:14:05</code> 📝 draft");
    expect(text).toContain("<code>2025-11-22 03:14:13</code> ✅ delivered");
    expect(text).toContain("Customer notified: 2025-11-22 03:14:14 UTC");
    expect(text.length).toBeLessThanOrEqual(4096);
    const labels = buttonsOf(reply_markup)
      .flat()
      .map((b) => b.text);
    expect(labels).toContain("✉️ Resend notification");
    expect(labels).not.toContain("🔁 Re-check now");
    expect(labels).not.toContain("💸 Mark refunded");
  });

  it("offers Re-check for orders awaiting delivery and Mark refunded only when a refund is needed", () => {
    const pending = buttonsOf(renderOrderCard(order({ state: "pending" }), en, "en").reply_markup).flat();
    expect(pending.map((b) => b.text)).toContain("🔁 Re-check now");
    expect(pending.map((b) => b.text)).not.toContain("✉️ Resend notification");
    const owed = order({
      state: "failed",
      currency: "RUB",
      amount: 8_300,
      refund: "needed",
      providerChargeId: "prov-9",
      deliveredPayload: undefined,
      errorMessage: "recipient <not> found",
    });
    const card = renderOrderCard(owed, en, "en");
    const data = allData(buttonsOf(card.reply_markup));
    expect(data).toContain(`op:m:${owed.id}`);
    expect(card.text).toContain("Error: <i>recipient &lt;not&gt; found</i>");
    expect(card.text).toContain("Provider charge id: <code>prov-9</code>");
    expect(card.text).toContain("Refund: ⚠️ needed");
    // A failed order earned nothing: no margin on its card.
    expect(card.text).not.toContain("Margin");
    const confirm = renderRefundConfirm(owed, en, "en");
    expect(allData(buttonsOf(confirm.reply_markup))).toEqual([`op:y:${owed.id}`, `op:c:${owed.id}`]);
  });

  it("traces a YooKassa order: the rail, every payment page, second payments and refund ids", () => {
    const yk = order({
      state: "failed",
      currency: "RUB",
      amount: 8_300,
      rail: "yookassa",
      telegramChargeId: "yookassa:2f0c-pay-2",
      providerChargeId: "2f0c-pay-2",
      payments: [
        { rail: "yookassa", id: "2f0c-pay-1", url: "https://yk/1", createdAt: T0, settled: "cancelled" },
        { rail: "yookassa", id: "2f0c-pay-2", url: "https://yk/2", createdAt: T0, settled: "paid" },
        { rail: "cryptopay", id: "77", url: "https://cp/77", createdAt: T0 },
      ],
      extraCharges: [
        {
          telegramChargeId: "stxEXTRA",
          currency: "XTR",
          amount: 56,
          rail: "stars",
          refund: "done",
        },
        {
          telegramChargeId: "yookassa:2f0c-pay-3",
          providerChargeId: "2f0c-pay-3",
          currency: "RUB",
          amount: 8_300,
          rail: "yookassa",
          refund: "done",
          refundRef: "rf-extra-<3>",
        },
      ],
      refund: "done",
      refundRef: "rf-order-1",
      deliveredPayload: undefined,
    });
    const en1 = renderOrderCard(yk, en, "en").text;
    expectTranslated(en1);
    expectBalancedHtml(en1);
    expect(en1).toContain("Payment: RUB ₽83 · YooKassa");
    // A YooKassa payment is named by YooKassa's id, not as a Telegram charge.
    expect(en1).not.toContain("Telegram charge id");
    expect(en1).toContain("Provider charge id: <code>2f0c-pay-2</code>");
    expect(en1).toContain("YooKassa payment: <code>2f0c-pay-1</code> · cancelled");
    expect(en1).toContain("YooKassa payment: <code>2f0c-pay-2</code> · paid");
    expect(en1).toContain("Crypto Pay payment: <code>77</code> · open");
    expect(en1).toContain("Second payment: 56 ⭐ · Telegram Stars · <code>stxEXTRA</code> · refund refunded");
    expect(en1).toContain("Second payment: ₽83 · YooKassa · <code>yookassa:2f0c-pay-3</code>");
    expect(en1).toContain("↳ refund id: <code>rf-extra-&lt;3&gt;</code>");
    expect(en1).toContain("Refund: refunded");
    expect(en1).toContain("Refund id at the provider: <code>rf-order-1</code>");
    const ru1 = renderOrderCard({ ...yk, customer: { ...yk.customer, locale: "ru" } }, ru, "ru").text;
    expectTranslated(ru1);
    expectBalancedHtml(ru1);
    expect(ru1).toContain("· ЮKassa");
    expect(ru1).toContain("Платёж ЮKassa: <code>2f0c-pay-1</code> · отменён");
    expect(ru1).toContain("Id возврата у провайдера: <code>rf-order-1</code>");
    expect(ru1).toContain("↳ id возврата: <code>rf-extra-&lt;3&gt;</code>");
  });

  it("names the rail only once the order is paid (an open quote shows its first rail's price)", () => {
    const quoted = order({
      state: "quoted",
      currency: "RUB",
      amount: 8_300,
      telegramChargeId: undefined,
      payments: [{ rail: "yookassa", id: "p-open", url: "https://yk/p", createdAt: T0 }],
    });
    const text = renderOrderCard(quoted, en, "en").text;
    expect(text).toContain("Payment: RUB ₽83\n");
    expect(text).toContain("YooKassa payment: <code>p-open</code> · open");
    expect(text).not.toContain("Refund id");
  });

  it("says so when the customer paid nothing in the bot (direct checkout)", () => {
    const text = renderOrderCard(
      order({ currency: "NONE", amount: undefined, telegramChargeId: undefined }),
      en,
      "en",
    ).text;
    expect(text).toContain("Payment: none (direct checkout");
    expect(text).not.toContain("charge id");
  });

  it("shows why pay was refused and the deposit at that moment", () => {
    const text = renderOrderCard(
      order({
        state: "rejected",
        rejectReason: "insufficient_funds",
        rejectBalanceRub: 12.5,
        deliveredPayload: undefined,
      }),
      en,
      "en",
    ).text;
    expect(text).toContain("Pay refused: deposit too low");
    expect(text).toContain("Deposit at that moment: ₽12.50");
  });

  it("stays within Telegram's message length when the delivered payload is huge", () => {
    const huge: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) huge[`code_${i}`] = "X".repeat(280);
    const text = renderOrderCard(order({ deliveredPayload: huge }), en, "en").text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expectBalancedHtml(text);
  });

  it("lists codes of a delivered payload one per line and unknown shapes as JSON", () => {
    const lines = payloadLines({ codes: ["AAA-1", "BBB-2"], meta: { a: 1 } });
    expect(lines).toEqual([
      "• codes:",
      "   <code>AAA-1</code>",
      "   <code>BBB-2</code>",
      "• meta: <code>{&quot;a&quot;:1}</code>",
    ]);
  });

  it("speaks Russian to a Russian-speaking operator", () => {
    const text = renderOrderCard(order(), ru, "ru").text.replace(/\s/g, " ");
    expectTranslated(text);
    expect(text).toContain("Маржа: <b>8 ₽</b>");
    expect(text).toContain("✅ доставлен");
  });
});

describe("operator balance and stats views", () => {
  it("shows the balance in the operator's locale with a Refresh button", () => {
    const view = renderBalance({ ok: true, balanceRub: 12345.67, checkedAt: T0 }, 1000, en, "en");
    expect(view.text).toContain("<b>₽12,345.67</b>");
    expect(view.text).not.toContain("⚠️");
    expect(allData(buttonsOf(view.reply_markup))).toEqual(["op:b"]);
    const ruView = renderBalance({ ok: true, balanceRub: 12345.67, checkedAt: T0 }, 1000, ru, "ru");
    expect(ruView.text.replace(/\s/g, " ")).toContain("12 345,67 ₽");
  });

  it("warns when the balance is under LOW_BALANCE_RUB", () => {
    const view = renderBalance({ ok: true, balanceRub: 999.99, checkedAt: T0 }, 1000, en, "en");
    expect(view.text).toContain("⚠️ Below the alert threshold of ₽1,000");
  });

  it.each([
    ["auth", "API key rejected"],
    ["network", "not answering"],
    ["timeout", "not answering"],
    ["server", "not answering"],
    ["bad_response", "could not read"],
  ] as const)("explains a %s error as what it means for the operator", (kind, phrase) => {
    const view = renderBalance({ ok: false, kind, checkedAt: T0 }, 1000, en, "en");
    expect(view.text).toContain(phrase);
    expect(allData(buttonsOf(view.reply_markup))).toEqual(["op:b"]);
  });

  it("shows orders, revenue, wholesale and margin for today, 7 and 30 days", () => {
    const w = (n: number) => ({
      orders: n,
      paid: n - 1,
      delivered: n - 2,
      failed: 1,
      revenueKopecks: n * 10_000,
      wholesaleKopecks: n * 9_000,
      marginKopecks: n * 1_000,
    });
    const stats: OrderStats = { today: w(3), week: w(10), month: w(40) };
    const { text } = renderStats(stats, T0, en, "en");
    expectTranslated(text);
    expect(text).toContain("Today (since 00:00 UTC)");
    expect(text).toContain("Orders: 3 · paid 2 · delivered 1 · failed or refused 1");
    expect(text).toContain("Revenue ₽300 · wholesale ₽270 · margin <b>₽30</b>");
    expect(text).toContain("Revenue ₽4,000 · wholesale ₽3,600 · margin <b>₽400</b>");
    expect(text).toContain("count delivered orders only");
  });
});

describe("operator alerts", () => {
  const kinds: AlertKind[] = [
    "delivery_failed",
    "pay_rejected",
    "low_balance",
    "stuck",
    "refund_needed",
    "reseller_auth",
    "reseller_down",
    "duplicate_payment",
  ];

  it.each(kinds)("renders %s in both languages with every key translated and balanced HTML", (kind) => {
    for (const t of [en, ru]) {
      const { text } = renderAlert({ kind, orderId: order().id, details: { reason: "x" } }, order(), t);
      expectTranslated(text);
      expectBalancedHtml(text);
      expect(text.length).toBeGreaterThan(20);
    }
  });

  it("reports a failed delivery with the reseller's reason escaped, the money and a button to the order", () => {
    const o = order({
      state: "failed",
      errorMessage: "user <b>not</b> found",
      refund: "done",
      deliveredPayload: undefined,
    });
    const a = renderAlert(
      { kind: "delivery_failed", orderId: o.id, details: { reason: o.errorMessage! } },
      o,
      en,
    );
    expect(a.text).toContain("Delivery failed");
    expect(a.text).toContain("Reason: <i>user &lt;b&gt;not&lt;/b&gt; found</i>");
    expect(a.text).toContain("has been refunded");
    expect(a.text).toContain("Order <code>#1a2b3c4d</code> · ⭐ Stars ×50 → @durov_fan");
    expect(a.text).toContain("@buyer_one (id <code>500123</code>)");
    expect(buttonsOf(a.reply_markup)).toEqual([[{ text: "🔎 Open order", data: `op:o:${o.id}` }]]);
  });

  it("reports a refused pay with the reason and, for a low deposit, the balance then", () => {
    const o = order({ state: "rejected", rejectReason: "insufficient_funds", rejectBalanceRub: 40 });
    const a = renderAlert(
      {
        kind: "pay_rejected",
        orderId: o.id,
        details: { reason: "deposit too low", kind: "insufficient_funds", balanceRub: 40 },
      },
      o,
      en,
    );
    expect(a.text).toContain("Pay refused");
    expect(a.text).toContain("Why: deposit too low");
    expect(a.text).toContain("Deposit at that moment: <b>₽40</b>");
    expect(a.text).toContain("top up the deposit");
    const other = renderAlert({ kind: "pay_rejected", orderId: o.id, details: { kind: "not_found" } }, o, en);
    expect(other.text).toContain("order unknown to the reseller");
    expect(other.text).not.toContain("Deposit at that moment");
  });

  it("reports a low deposit with the balance and threshold and no order button", () => {
    const a = renderAlert(
      { kind: "low_balance", details: { balanceRub: 512.3, thresholdRub: 1000 } },
      undefined,
      en,
    );
    expect(a.text).toContain("₽512.30 left");
    expect(a.text).toContain("₽1,000");
    expect(a.reply_markup).toBeUndefined();
    const r = renderAlert(
      { kind: "low_balance", details: { balanceRub: 512.3, thresholdRub: 1000 } },
      undefined,
      ru,
    );
    expect(r.text.replace(/\s/g, " ")).toContain("512,30 ₽");
  });

  it("reports a stuck order with the time it was paid", () => {
    const o = order({ state: "pending", stuck: true });
    const a = renderAlert({ kind: "stuck", orderId: o.id, details: {} }, o, en);
    expect(a.text).toContain("Order stuck");
    expect(a.text).toContain("2025-11-22 03:14:10 UTC");
    expect(a.text).toContain("Re-check now");
  });

  it("reports a refund needed with the amount and charge ids", () => {
    const o = order({
      state: "failed",
      currency: "RUB",
      amount: 8_300,
      refund: "needed",
      providerChargeId: "prov-1",
    });
    const a = renderAlert({ kind: "refund_needed", orderId: o.id, details: {} }, o, en);
    expect(a.text).toContain("Refund needed");
    expect(a.text).toContain("₽83");
    expect(a.text).toContain("<code>prov-1</code>");
    expect(a.text).toContain("Mark refunded");
    // The failure's reason, as the engine sends it, is a labelled line, not a raw detail.
    const told = renderAlert(
      { kind: "refund_needed", orderId: o.id, details: { reason: "no such recipient" } },
      o,
      en,
    );
    expect(told.text).toContain("Reason: <i>no such recipient</i>");
    expect(told.text).not.toContain("reason:");
  });

  it("reports a rejected API key with the status and endpoint, escaping the reseller's message", () => {
    const a = renderAlert(
      {
        kind: "reseller_auth",
        details: { endpoint: "GET /api/reseller/balance", status: 401, message: "bad <key>" },
      },
      undefined,
      en,
    );
    expect(a.text).toContain("HTTP 401 on GET /api/reseller/balance");
    expect(a.text).toContain("bad &lt;key&gt;");
    expect(a.text).toContain("RESELLER_API_KEY");
    expect(a.reply_markup).toBeUndefined();
  });

  it("reports a reseller that answers no deposit check, how many in a row, in both languages", () => {
    const alert = (checks: number) => ({
      kind: "reseller_down" as const,
      details: {
        endpoint: "GET /api/reseller/balance",
        status: 502,
        message: "<html>Bad gateway</html>",
        checks,
      },
    });
    const a = renderAlert(alert(2), undefined, en);
    expect(a.text).toContain("The reseller is not answering</b>: 2 deposit checks in a row");
    expect(a.text).toContain("HTTP 502 on GET /api/reseller/balance");
    expect(a.text).toContain("&lt;html&gt;Bad gateway");
    expect(renderAlert(alert(2), undefined, ru).text).toContain(
      "2 проверки депозита подряд остались без ответа",
    );
    expect(renderAlert(alert(5), undefined, ru).text).toContain(
      "5 проверок депозита подряд остались без ответа",
    );
  });

  it("reports a second payment with each extra charge, and a payment for an unknown order", () => {
    const o = order({
      extraCharges: [{ telegramChargeId: "prov-extra", currency: "RUB", amount: 8_300, refund: "needed" }],
    });
    const a = renderAlert({ kind: "duplicate_payment", orderId: o.id, details: {} }, o, en);
    expect(a.text).toContain("Second payment");
    expect(a.text).toContain("Payment ₽83 · <code>prov-extra</code> · refund ⚠️ needed");
    const unknown = renderAlert(
      {
        kind: "duplicate_payment",
        orderId: "9f9f9f9f-0000-4000-8000-000000000000",
        details: { reason: "unknown order" },
      },
      undefined,
      en,
    );
    expect(unknown.text).toContain("Payment for an unknown order");
    expect(unknown.text).toContain("<code>9f9f9f9f-0000-4000-8000-000000000000</code> (not in the store)");
    expect(unknown.reply_markup).toBeUndefined();
  });

  it("keeps details it does not know, escaped", () => {
    const a = renderAlert(
      { kind: "low_balance", details: { balanceRub: 1, thresholdRub: 2, note: "<x>" } },
      undefined,
      en,
    );
    expect(a.text).toContain("• note: &lt;x&gt;");
  });
});

describe("a promo code's discount", () => {
  it("is written with the operator's language's decimal mark", () => {
    expect(formatDiscount({ type: "percent", value: 10.5 }, "en")).toBe("−10.5%");
    expect(formatDiscount({ type: "percent", value: 10.5 }, "ru")).toBe("−10,5%");
    expect(formatDiscount({ type: "percent", value: 10 }, "ru")).toBe("−10%");
    expect(formatDiscount({ type: "fixed", value: 14_990 }, "ru").replace(/\s/g, " ")).toBe("−149,90 ₽");
  });
});

describe("names and values cut to fit", () => {
  /** A UTF-16 unit of half an emoji: Telegram refuses a message holding one. */
  const halfEmoji = /\p{Cs}/u;

  it("never cut an emoji in half: the operators' rows, cards and alerts stay valid text", () => {
    const firstName = `${"a".repeat(38)}🌸🌸 Smith`;
    const o = order({
      state: "failed",
      errorMessage: `${"x".repeat(498)}🚀 and more`,
      customer: { userId: 500124, chatId: 500124, firstName, locale: "en" },
      item: { kind: "game", product: "game", title: `${"t".repeat(98)}🎮 Gold`, quantity: 1 },
    });
    const texts = [
      orderRow(o, 1, en, "en"),
      renderOrderCard(o, en, "en").text,
      renderAlert(
        { kind: "failed" as AlertKind, orderId: o.id, details: { reason: o.errorMessage ?? "" } },
        o,
        en,
      ).text,
    ];
    for (const text of texts) expect(text).not.toMatch(halfEmoji);
    expect(orderRow(o, 1, en, "en")).toContain(`👤 ${"a".repeat(38)}…`);
  });
});
