import { describe, expect, it } from "vitest";
import { refundLine, renderCard } from "../../src/bot/format/card.js";
import { renderFinal, renderPayload } from "../../src/bot/format/final.js";
import { escapeHtml } from "../../src/bot/format/html.js";
import { fieldLabel, humanizeKey } from "../../src/bot/format/item.js";
import { formatNumber, formatRub, formatStars } from "../../src/bot/format/money.js";
import { renderOrdersPage } from "../../src/bot/format/orders-list.js";
import { entryLines } from "../../src/bot/format/wallet.js";
import { createI18n, translator } from "../../src/bot/i18n.js";
import type { Order, OrderState } from "../../src/orders/types.js";
import { order as baseOrder } from "../helpers/orders.js";

const i18n = createI18n({ defaultLocale: "ru" });
const en = { t: translator(i18n, "en"), locale: "en" as const, supportContact: "@help_desk" };
const ru = { t: translator(i18n, "ru"), locale: "ru" as const };
const nbsp = (s: string) => s.replace(/[\u00a0\u202f]/g, " ");

/** The order these cards show unless a test says otherwise: 250 Stars, just quoted. */
const order = (over: Partial<Order> = {}): Order =>
  baseOrder({
    state: "quoted",
    item: { kind: "stars", product: "stars", quantity: 250, recipient: "alice_buyer" },
    customer: { userId: 1, chatId: 1, locale: "en" },
    priceKopecks: 123_400,
    amount: 823,
    createdAt: 1_000,
    updatedAt: 1_000,
    expiresAt: 1_000 + 900_000,
    times: { quoted: 1_000 },
    ...over,
  });

describe("money", () => {
  it("formats roubles the way each locale writes them", () => {
    expect(nbsp(formatRub(123_450, "ru"))).toBe("1 234,50 ₽");
    expect(formatRub(123_450, "en")).toBe("₽1,234.50");
    expect(nbsp(formatRub(123_400, "ru"))).toBe("1 234 ₽");
    expect(formatRub(123_400, "en")).toBe("₽1,234");
    expect(nbsp(formatNumber(1_000_000, "ru"))).toBe("1 000 000");
    expect(formatStars(2500, "en")).toBe("2,500 ⭐");
  });
});

describe("the order card", () => {
  it("shows what, for whom, the price in Stars and roubles, and Pay/Cancel while quoted", () => {
    const card = renderCard(order(), en);
    expect(card.text).toBe(
      [
        "🧾 <b>Order #0f1e2d3c</b>",
        "⭐ 250 Telegram Stars",
        "For: @alice_buyer",
        "Price: <b>823 ⭐ (₽1,234)</b>",
        "",
        "⏳ Waiting for your payment. The price holds for 15 min.",
      ].join("\n"),
    );
    const buttons = card.keyboard?.inline_keyboard.flat();
    expect(buttons?.map((b) => [b.text, "callback_data" in b ? b.callback_data : ""])).toEqual([
      ["💳 Pay 823 ⭐", "pay:0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"],
      ["✖️ Cancel", "cx:0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"],
      ["🎟 Promo code", "pc:0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"],
    ]);
  });

  it("offers Confirm in direct checkout and a rouble price only", () => {
    const card = renderCard(order({ currency: "NONE", amount: undefined }), ru);
    expect(nbsp(card.text)).toContain("Цена: <b>1 234 ₽</b>");
    expect(card.keyboard?.inline_keyboard[0]?.[0]?.text).toBe("✅ Подтвердить заказ");
  });

  it.each<[OrderState, string, boolean]>([
    ["paid", "💳 Payment received.", false],
    ["pending", "🚚 Being delivered…", false],
    ["delivered", "✅ Delivered.", false],
    ["failed", "❌ Delivery failed.\n⭐ Your 823 stars are refunded automatically.", false],
    ["rejected", "❌ The supplier refused the order.\n⭐ Your 823 stars are refunded automatically.", false],
    ["expired", "⌛ The price has expired.", true],
    ["cancelled", "✖️ Cancelled.", false],
  ])("in state %s says %j", (state, text, hasButton) => {
    const card = renderCard(order({ state }), en);
    expect(card.text).toContain(text);
    expect(card.keyboard !== undefined).toBe(hasButton);
  });

  it("escapes reseller-provided titles and top-up fields", () => {
    const card = renderCard(
      order({
        item: {
          kind: "game",
          product: "game",
          quantity: 2,
          title: "<b>Hack</b> & Co",
          fields: { "<uid>": "1 < 2" },
        },
      }),
      en,
    );
    expect(card.text).toContain("🕹 &lt;b&gt;Hack&lt;/b&gt; &amp; Co × 2");
    expect(card.text).toContain("&lt;uid&gt;: 1 &lt; 2");
  });
});

describe("refund lines", () => {
  it("say Stars come back automatically, and that the shop refunds provider payments", () => {
    expect(refundLine(order({ refund: "done" }), en)).toBe("⭐ Your 823 stars were refunded.");
    expect(refundLine(order({ currency: "RUB", amount: 123_400 }), en)).toBe(
      "💸 The shop will refund you ₽1,234. Questions: @help_desk",
    );
    expect(refundLine(order({ currency: "RUB", amount: 123_400 }), ru).replace(/\s/g, " ")).toBe(
      "💸 Магазин вернёт вам 1 234 ₽.",
    );
    expect(refundLine(order({ currency: "NONE" }), en)).toBe("You were not charged.");
  });

  it("name the wallet or the card the money goes back to, unless the bot could not and the shop will", () => {
    const wallet = { currency: "RUB" as const, amount: 123_400, rail: "wallet" as const };
    const crypto = {
      currency: "RUB" as const,
      amount: 123_400,
      rail: "cryptopay" as const,
      refundToWallet: true,
    };
    const card = { currency: "RUB" as const, amount: 123_400, rail: "yookassa" as const };
    expect(refundLine(order({ ...wallet, refund: "done" }), en)).toBe(
      "👛 ₽1,234 is back in your wallet in the bot (/wallet).",
    );
    expect(refundLine(order({ ...crypto, refund: "none" }), en)).toBe(
      "👛 ₽1,234 goes back to your wallet in the bot.",
    );
    expect(refundLine(order({ ...card, refund: "done" }), en)).toMatch(
      /^💸 ₽1,234 was refunded the way you paid \(card or SBP\)/,
    );
    // The automatic refund failed: the operators refund by hand, and the customer is told so.
    for (const paid of [wallet, crypto, card]) {
      expect(refundLine(order({ ...paid, refund: "needed" }), en)).toBe(
        "💸 The shop will refund you ₽1,234. Questions: @help_desk",
      );
      expect(refundLine(order({ ...paid, refund: "needed" }), ru).replace(/\s/g, " ")).toBe(
        "💸 Магазин вернёт вам 1 234 ₽.",
      );
    }
    // Stars whose refund Telegram refused are not said to be refunded automatically.
    const stars = { currency: "XTR" as const, amount: 83, telegramChargeId: "tg-1" };
    expect(refundLine(order({ ...stars, refund: "none" }), en)).toMatch(/refunded automatically/);
    expect(refundLine(order({ ...stars, refund: "needed" }), en)).toBe(
      "💸 The shop will refund you 83 ⭐. Questions: @help_desk",
    );
  });
});

describe("the final message", () => {
  it("shows the transaction hash of a delivered Stars order", () => {
    const text = renderFinal(order({ state: "delivered", deliveredPayload: { tx_hash: "0xABC<1>" } }), en);
    expect(text).toBe(
      [
        "✅ <b>Order #0f1e2d3c delivered</b>",
        "⭐ 250 Telegram Stars",
        "For: @alice_buyer",
        "",
        "Transaction: <code>0xABC&lt;1&gt;</code>",
      ].join("\n"),
    );
  });

  it("puts codes in <code> one per line and unknown keys in a readable list", () => {
    const lines = renderPayload(
      {
        codes: ["AAA-111", "BBB<222>"],
        login: "user1",
        expires_at: "2030-01-01",
        extra: { region_name: "EU" },
      },
      en.t,
    );
    expect(lines).toEqual([
      "Your codes:",
      "<code>AAA-111</code>",
      "<code>BBB&lt;222&gt;</code>",
      "Login: <code>user1</code>",
      "",
      "Details:",
      "• Expires at: 2030-01-01",
      "• Extra › Region name: EU",
    ]);
  });

  it("gives the reason and the refund for a failed order in Russian", () => {
    const text = renderFinal(
      order({
        state: "failed",
        errorMessage: "recipient <not> found",
        refund: "done",
        customer: { userId: 1, chatId: 1, locale: "ru" },
      }),
      ru,
    );
    expect(text).toContain("❌ <b>Заказ #0f1e2d3c не удалось доставить</b>");
    expect(text).toContain("Причина: recipient &lt;not&gt; found");
    expect(text).toContain("⭐ 823 звезды возвращены.");
  });

  it("tells the customer of a refused pay what it means for them, not the shop's error", () => {
    const refused = (rejectReason: string, opts: typeof en | typeof ru = en) =>
      renderFinal(
        order({
          state: "rejected",
          rejectReason,
          errorMessage:
            "Reseller deposit does not cover the order (402 insufficient_funds) at POST /api/reseller/order/pay: Insufficient deposit",
          refund: "done",
        }),
        opts,
      );
    const funds = refused("insufficient_funds");
    expect(funds).toContain("Reason: the shop cannot place this order right now");
    expect(refused("auth")).toContain("Reason: the shop cannot place this order right now");
    expect(refused("bad_request")).toContain("Reason: not given");
    expect(refused("insufficient_funds", ru)).toContain(
      "Причина: магазин сейчас не может оформить этот заказ",
    );
    for (const text of [funds, refused("bad_request"), refused("insufficient_funds", ru)]) {
      expect(text).not.toMatch(/deposit|402|\/api\/|Reseller/);
      expect(text).toContain("823");
    }
  });

  it("keeps a huge payload under Telegram's message limit", () => {
    const codes = Array.from({ length: 500 }, (_, i) => `CODE-${i}-XXXXXXXXXX`);
    const text = renderFinal(order({ state: "delivered", deliveredPayload: { codes } }), en);
    expect(text.length).toBeLessThan(4096);
    expect(text).toContain("shortened");
  });

  it("humanizes payload keys", () => {
    expect(humanizeKey("player_id")).toBe("Player id");
    expect(humanizeKey("activationURL")).toBe("Activation url");
  });

  it("says the common field names in the customer's language, others humanized", () => {
    expect(fieldLabel("player_tag", en.t)).toBe("Player tag");
    expect(fieldLabel("uid", ru.t)).toBe("UID");
    expect(fieldLabel("Server", ru.t)).toBe("Сервер");
    expect(fieldLabel("amount_rub", en.t)).toBe("Amount, ₽");
    expect(fieldLabel("activationURL", ru.t)).toBe("Activation url");
    const text = renderFinal(
      order({ state: "delivered", deliveredPayload: { server: "Europe", quantity: 2 } }),
      ru,
    );
    expect(text).toContain("• Сервер: Europe");
    expect(text).toContain("• Количество: 2");
  });
});

describe("the /orders page", () => {
  it("numbers orders, shows status and price, and pages", () => {
    const items = [order(), order({ id: "11111111-2222-4333-8444-555555555555", state: "delivered" })];
    const view = renderOrdersPage({ items, total: 7 }, 5, en);
    expect(view.text).toContain("📦 <b>Your orders</b> (6–7 of 7)");
    expect(view.text).toContain(
      "6. ⭐ 250 Telegram Stars\n    awaiting payment · 823 ⭐ (₽1,234) · #0f1e2d3c",
    );
    const buttons = view.keyboard?.inline_keyboard.flat().map((b) => b.text);
    expect(buttons).toEqual(["6. #0f1e2d3c · awaiting payment", "7. #11111111 · delivered", "‹ Previous"]);
  });

  it("gives the count alone when one page holds every order, in both languages", () => {
    const items = [order(), order({ id: "11111111-2222-4333-8444-555555555555", state: "delivered" })];
    expect(renderOrdersPage({ items, total: 2 }, 0, en).text).toContain("📦 <b>Your orders</b> (2)\n");
    expect(renderOrdersPage({ items, total: 2 }, 0, ru).text).toContain("📦 <b>Ваши заказы</b> (2)\n");
    expect(renderOrdersPage({ items, total: 7 }, 0, ru).text).toContain("(1–2 из 7)");
  });

  it("heads a wallet page that holds every entry with their count", () => {
    const entry = {
      id: "e1",
      seq: 1,
      at: 0,
      amountKopecks: 30_000,
      balanceAfter: 30_000,
      reason: "topup" as const,
      ref: "topup:p1",
    };
    expect(entryLines({ entries: [entry], total: 1, balanceKopecks: 30_000 }, 0, en.t, "en")[0]).toBe(
      "Entries (1):",
    );
    expect(entryLines({ entries: [entry], total: 6, balanceKopecks: 30_000 }, 5, ru.t, "ru")[0]).toBe(
      "Записи 6–6 из 6:",
    );
  });

  it("says so when there are no orders", () => {
    expect(renderOrdersPage({ items: [], total: 0 }, 0, ru).text).toContain("У вас пока нет заказов");
  });
});

describe("escapeHtml", () => {
  it("escapes the characters Telegram's HTML treats specially", () => {
    expect(escapeHtml(`<a href="x">&</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  });
});
