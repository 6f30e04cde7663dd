import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResellerApiError, ResellerValidationError } from "../../src/reseller/errors.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import {
  ALICE,
  BORIS,
  callbackUpdate,
  preCheckoutUpdate,
  successfulPaymentUpdate,
  textUpdate,
} from "./helpers/updates.js";

let h: BotHarness;
beforeEach(async () => {
  h = await startBotHarness();
});
afterEach(async () => {
  await h.close();
});

const press = (label: string | RegExp, user = ALICE) => h.send(callbackUpdate(user, h.tg.button(label).data));

describe("the Stars flow", () => {
  it("shows the main menu with every enabled product at /start", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    const labels = h.tg.lastButtons().map((b) => b.text);
    expect(labels).toEqual([
      "⭐ Telegram Stars",
      "💎 Telegram Premium",
      "🎁 Gifts",
      "🎮 Steam top-up",
      "🤖 AI services",
      "🕹 Games",
      "📦 My orders",
    ]);
  });

  it("sends the Pay tap's answer and the invoice together, neither waiting for the other", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press("🙋 To myself (@alice_buyer)");
    const pay = h.tg.holdTogether("answerCallbackQuery", "sendInvoice");
    await press(/^💳 Pay/);
    expect(pay).toEqual(["together"]);
    expect(h.tg.of("sendInvoice")).toHaveLength(1);
  });

  it("takes a preset amount and 'to myself', quotes once and shows a card with Pay in Stars", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    expect(h.tg.lastText()).toContain("How many stars?");
    await press("100 ⭐");
    expect(h.tg.lastText()).toContain("Who gets it?");
    await press("🙋 To myself (@alice_buyer)");
    expect(h.orders.quotes).toHaveLength(1);
    const q = h.orders.quotes[0]!;
    expect(q.item).toMatchObject({
      kind: "stars",
      product: "stars",
      quantity: 100,
      recipient: "alice_buyer",
    });
    expect(q.customer).toMatchObject({ userId: ALICE.id, chatId: ALICE.id, locale: "en" });
    expect(q.orderId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const card = h.tg.lastText();
    expect(card).toContain("⭐ 100 Telegram Stars");
    expect(card).toContain("For: @alice_buyer");
    expect(card).toContain("Price: <b>74 ⭐ (₽110)</b>");
    const order = h.orders.orders.get(q.orderId)!;
    // The question's message became the card; the quote recorded it, no write of its own.
    const shown = h.tg.last("editMessageText");
    expect(shown?.payload.text).toBe(card);
    expect(order.cardMessageId).toBe(shown?.payload.message_id);
    expect(q.cardMessageId).toBe(order.cardMessageId);
    expect(h.orders.cardMessageWrites).toBe(0);
    expect(h.tg.lastButtons().map((b) => b.text)).toEqual(["💳 Pay 74 ⭐", "✖️ Cancel", "🎟 Promo code"]);
  });

  it("answers each bad amount with the rule it broke and asks again", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await h.send(textUpdate(ALICE, "lots"));
    expect(h.tg.lastText()).toMatch(
      /^⚠️ Send a whole number from 50 to 1,000,000, digits only\.\n\n⭐ <b>How many stars\?/,
    );
    await h.send(textUpdate(ALICE, "10"));
    expect(h.tg.lastText()).toMatch(/^⚠️ The smallest amount is 50\./);
    await h.send(textUpdate(ALICE, "2000000"));
    expect(h.tg.lastText()).toMatch(/^⚠️ The largest amount is 1,000,000\./);
    await h.send(textUpdate(ALICE, "12.5"));
    expect(h.tg.lastText()).toMatch(/^⚠️ Send a whole number, without a fraction\./);
    await h.send(textUpdate(ALICE, "1 500"));
    expect(h.tg.lastText()).toContain("Who gets it?");
    await h.send(textUpdate(ALICE, "@a"));
    expect(h.tg.lastText()).toMatch(/^⚠️ A Telegram username is 5 to 32 characters long\./);
    await h.send(textUpdate(ALICE, "https://t.me/durov_fan"));
    expect(h.orders.quotes[0]?.item).toMatchObject({ quantity: 1500, recipient: "durov_fan" });
  });

  it("goes Back to the previous question and Cancel ends the flow without an order", async () => {
    await h.send(textUpdate(BORIS, "/start"));
    await press("⭐ Telegram Stars", BORIS);
    await press("50 ⭐", BORIS);
    expect(h.tg.lastText()).toContain("Кому?");
    // Boris has no username: no "to myself" button.
    expect(h.tg.lastButtons().map((b) => b.text)).toEqual(["‹ Назад", "✖️ Отмена"]);
    await press("‹ Назад", BORIS);
    expect(h.tg.lastText()).toContain("Сколько звёзд?");
    await press("‹ Назад", BORIS);
    expect(h.tg.lastText()).toContain("Что хотите купить?");
    await press("⭐ Telegram Stars", BORIS);
    await press("✖️ Отмена", BORIS);
    expect(h.tg.lastText()).toContain("Отменено");
    await h.send(textUpdate(BORIS, "boris_friend"));
    expect(h.tg.lastText()).toContain("Отправьте /start");
    expect(h.orders.quotes).toHaveLength(0);
  });

  it("offers no 'to myself' button for a username the question would not take typed", async () => {
    // Four-letter usernames exist (sold at auction); the supplier takes 5 to 32 characters.
    const short = { ...ALICE, id: 5003, username: "mono" };
    await h.send(textUpdate(short, "/start"));
    await press("⭐ Telegram Stars", short);
    await press("50 ⭐", short);
    expect(h.tg.lastText()).toContain("Who gets it?");
    expect(h.tg.lastButtons().map((b) => b.text)).toEqual(["‹ Back", "✖️ Cancel"]);
    await h.send(textUpdate(short, "mono_friend"));
    expect(h.orders.quotes[0]?.item).toMatchObject({ quantity: 50, recipient: "mono_friend" });
  });

  it("continues where the customer was after a restart", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("250 ⭐");
    h.restart();
    await h.send(textUpdate(ALICE, "@someone_else"));
    expect(h.orders.quotes[0]?.item).toMatchObject({ quantity: 250, recipient: "someone_else" });
  });

  it("never quotes twice when an answered button is tapped again", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    const toMyself = h.tg.button(/To myself/).data;
    await h.send(callbackUpdate(ALICE, toMyself));
    await h.send(callbackUpdate(ALICE, toMyself));
    expect(h.orders.quotes).toHaveLength(1);
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toBe("This button is no longer active.");
  });

  it("offers Retry with the same order id when the supplier does not answer", async () => {
    h.orders.quoteErrors.push(
      new ResellerApiError({
        kind: "timeout",
        endpoint: "POST /api/reseller/order/create",
        message: "timeout",
      }),
    );
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    expect(h.tg.lastText()).toContain("not answering");
    await press("🔄 Try again");
    expect(h.orders.quotes).toHaveLength(2);
    expect(h.orders.quotes[1]?.orderId).toBe(h.orders.quotes[0]?.orderId);
    expect(h.tg.lastText()).toContain("Order #");
  });

  it("asks the rejected question again when the supplier's rules refuse the answer", async () => {
    h.orders.quoteErrors.push(
      new ResellerValidationError([{ field: "recipient_username", message: "must be a Telegram username" }]),
    );
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    expect(h.tg.lastText()).toContain("recipient_username: must be a Telegram username");
    expect(h.tg.lastText()).toContain("Who gets it?");
    await h.send(textUpdate(ALICE, "other_person"));
    expect(h.orders.quotes).toHaveLength(2);
    expect(h.orders.quotes[1]?.orderId).not.toBe(h.orders.quotes[0]?.orderId);
    expect(h.orders.quotes[1]?.item.recipient).toBe("other_person");
  });
});

describe("a supplier's refusal longer than a message can be", () => {
  it("is cut short, so the question is asked again", async () => {
    h.orders.quoteErrors.push(
      new ResellerValidationError([
        { field: "recipient_username", message: `cannot receive: ${"<why> ".repeat(1_000)}` },
      ]),
    );
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    const text = h.tg.lastText() ?? "";
    expect(text).toContain("recipient_username: cannot receive: &lt;why&gt; &lt;why&gt;");
    expect(text).toContain("…. Please answer again.");
    expect(text).toContain("Who gets it?");
    expect(text.length).toBeLessThan(1_500);
  });
});

describe("paying a Stars quote", () => {
  async function quoted() {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    return h.orders.orders.get(h.orders.quotes[0]!.orderId)!;
  }

  it("sends an XTR invoice with an empty provider token whose payload is the order id", async () => {
    const order = await quoted();
    await press(/Pay/);
    const inv = h.tg.last("sendInvoice")!.payload;
    expect(inv).toMatchObject({
      chat_id: ALICE.id,
      currency: "XTR",
      payload: order.id,
      provider_token: "",
      prices: [{ label: expect.any(String), amount: order.amount }],
    });
    expect(String(inv.title).length).toBeLessThanOrEqual(32);
  });

  it("accepts the pre-checkout of a payable order and records the payment", async () => {
    const order = await quoted();
    await h.send(preCheckoutUpdate(ALICE, order.id, "XTR", order.amount!));
    expect(h.tg.last("answerPreCheckoutQuery")?.payload).toMatchObject({ ok: true });
    await h.send(successfulPaymentUpdate(ALICE, order.id, "XTR", order.amount!, "charge-1"));
    expect(h.orders.paid).toEqual([
      {
        orderId: order.id,
        receipt: {
          userId: ALICE.id,
          currency: "XTR",
          totalAmount: order.amount,
          telegramChargeId: "charge-1",
        },
      },
    ]);
  });

  it("refuses an expired quote's pre-checkout with a reason and offers a fresh quote", async () => {
    const order = await quoted();
    order.expiresAt = Date.now() - 1;
    await h.send(preCheckoutUpdate(ALICE, order.id, "XTR", order.amount!));
    expect(h.tg.last("answerPreCheckoutQuery")?.payload).toMatchObject({
      ok: false,
      error_message: "The price has expired. Get a new price in the chat.",
    });
    const requote = h.tg.button("🔄 Get a new price").data;
    const cardsBefore = h.tg.of("sendMessage").filter((c) => /Order #/.test(String(c.payload.text))).length;
    await h.send(callbackUpdate(ALICE, requote));
    await h.send(callbackUpdate(ALICE, requote));
    // A double tap shows the new order's card once: the second tap shows it again in place.
    const cardsAfter = h.tg.of("sendMessage").filter((c) => /Order #/.test(String(c.payload.text))).length;
    expect(cardsAfter - cardsBefore).toBe(1);
    expect(h.orders.quotes).toHaveLength(3);
    expect(h.orders.quotes[1]?.orderId).not.toBe(order.id);
    expect(h.orders.quotes[2]?.orderId).toBe(h.orders.quotes[1]?.orderId);
    expect(h.orders.quotes[1]?.item).toEqual(order.item);
  });

  it("refuses a pre-checkout with the wrong amount", async () => {
    const order = await quoted();
    await h.send(preCheckoutUpdate(ALICE, order.id, "XTR", order.amount! - 1));
    expect(h.tg.last("answerPreCheckoutQuery")?.payload).toMatchObject({ ok: false });
  });

  it("cancels an unpaid quote with /cancel and edits its card", async () => {
    const order = await quoted();
    await h.send(textUpdate(ALICE, "/cancel"));
    expect(order.state).toBe("cancelled");
    const edit = h.tg.of("editMessageText").at(-1)!;
    expect(edit.payload.message_id).toBe(order.cardMessageId);
    expect(edit.payload.text).toContain("Cancelled.");
  });

  it("ends the questions on screen with /cancel and says nothing was ordered", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await h.send(textUpdate(ALICE, "/cancel"));
    expect(h.tg.lastText()).toBe("✖️ Cancelled. Nothing was ordered. /start to begin again.");
    // The flow is over: a typed amount is no answer to anything now.
    await h.send(textUpdate(ALICE, "100"));
    expect(h.orders.quotes).toHaveLength(0);
    expect(h.tg.lastText()).not.toContain("Who gets it?");
  });

  it("leaves an earlier unpaid quote alone when /cancel ends the questions of a new one", async () => {
    const order = await quoted();
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await h.send(textUpdate(ALICE, "/cancel"));
    expect(order.state).toBe("quoted");
    expect(h.tg.lastText()).toBe("✖️ Cancelled. Nothing was ordered. /start to begin again.");
    // The next /cancel, with no questions on screen, is for that quote.
    await h.send(textUpdate(ALICE, "/cancel"));
    expect(order.state).toBe("cancelled");
  });
});
