import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { ALICE, BORIS, callbackUpdate, textUpdate } from "./helpers/updates.js";

let h: BotHarness;
afterEach(async () => {
  await h.close();
});

const press = (label: string | RegExp, user = ALICE) => h.send(callbackUpdate(user, h.tg.button(label).data));
const labels = () => h.tg.lastButtons().map((b) => b.text);

describe("the Premium flow", () => {
  it("offers 3, 6 and 12 months and quotes the chosen duration for the recipient", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("💎 Telegram Premium");
    expect(labels()).toEqual(["3 months", "6 months", "12 months", "‹ Back", "✖️ Cancel"]);
    await h.send(textUpdate(ALICE, "6"));
    expect(h.tg.lastText()).toMatch(/^⚠️ Please choose with the buttons below\./);
    await press("6 months");
    await h.send(textUpdate(ALICE, "t.me/premium_pal"));
    expect(h.orders.quotes[0]?.item).toEqual({
      kind: "premium",
      product: "premium_6m",
      recipient: "premium_pal",
    });
    expect(h.tg.lastText()).toContain("💎 Telegram Premium for 6 months");
  });

  it("speaks Russian with Russian plural forms", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(BORIS, "/start"));
    await press("💎 Telegram Premium", BORIS);
    expect(labels().slice(0, 3)).toEqual(["3 месяца", "6 месяцев", "12 месяцев"]);
  });
});

describe("the Gift flow", () => {
  it("hides sold-out gifts, shows what is left of limited ones and pages eight at a time", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("🎁 Gifts");
    const first = labels();
    expect(first.filter((l) => l.includes("⭐ ·"))).toHaveLength(8);
    expect(first.some((l) => l.startsWith("🚀"))).toBe(false);
    expect(first).toContain("🌹 25⭐ · 28 ⭐ · 3 left");
    expect(first).toContain("1/2");
    expect(first).not.toContain("‹");
    await press("›");
    expect(labels().filter((l) => l.includes("⭐ ·"))).toHaveLength(3);
    await press("‹");
    await press("🧸 15⭐ · 17 ⭐");
    await press(/To myself/);
    expect(h.orders.quotes[0]?.item).toMatchObject({
      kind: "gift",
      product: "gift",
      giftId: "g-bear",
      emoji: "🧸",
      recipient: "alice_buyer",
    });
    expect(h.catalog.reads).toContain("gifts");
  });
});

describe("the Steam flow", () => {
  it("asks the login, then an amount in roubles between 50 and 50,000", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("🎮 Steam top-up");
    await h.send(textUpdate(ALICE, "my login"));
    expect(h.tg.lastText()).toMatch(/^⚠️ A login has no spaces\./);
    await h.send(textUpdate(ALICE, "gaben_fan"));
    expect(labels().slice(0, 3)).toEqual(["₽100", "₽250", "₽500"]);
    await h.send(textUpdate(ALICE, "49"));
    expect(h.tg.lastText()).toMatch(/^⚠️ The smallest amount is 50\./);
    await h.send(textUpdate(ALICE, "60000"));
    expect(h.tg.lastText()).toMatch(/^⚠️ The largest amount is 50,000\./);
    await h.send(textUpdate(ALICE, "750 ₽"));
    expect(h.orders.quotes[0]?.item).toEqual({
      kind: "steam",
      product: "steam",
      recipient: "gaben_fan",
      quantity: 750,
    });
    expect(h.tg.lastText()).toContain("Steam login: gaben_fan");
    // The invoice names the Steam login as the card does: no "@" of a Telegram username.
    await press(/^💳 Pay/);
    expect(h.tg.last("sendInvoice")?.payload.description).toBe(
      "🎮 Steam top-up of ₽750 · Steam login gaben_fan",
    );
  });
});

describe("the AI services flow", () => {
  it("lists the neural catalog with prices and quotes without a recipient", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("🤖 AI services");
    expect(labels().slice(0, 2)).toEqual(["🤖 ChatGPT Plus · 1,394 ⭐", "🎨 Midjourney · 660 ⭐"]);
    await press(/Midjourney/);
    expect(h.orders.quotes[0]?.item).toEqual({
      kind: "neural",
      product: "neural",
      code: "mj",
      title: "Midjourney",
      emoji: "🎨",
    });
    // No recipient: the invoice says what is bought, and no "for —".
    await press(/^💳 Pay/);
    expect(h.tg.last("sendInvoice")?.payload.description).toBe("🎨 Midjourney");
  });
});

describe("the Games flow", () => {
  it("walks game, region, package and quantity for a codes package", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("🕹 Games");
    await press("PUBG Mobile");
    await press("Global");
    await press(/60 UC/);
    await h.send(textUpdate(ALICE, "11"));
    expect(h.tg.lastText()).toMatch(/^⚠️ The largest amount is 10\./);
    await press("2");
    expect(h.orders.quotes[0]?.item).toMatchObject({
      kind: "game",
      product: "game",
      productRef: "pubg-60",
      quantity: 2,
      title: "PUBG Mobile · Global · 60 UC",
      game: "pubg",
      region: "global",
    });
    expect(h.orders.quotes[0]?.item.fields).toBeUndefined();
  });

  it("asks one question per top-up field and can go back to change one", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("🕹 Games");
    await press("Genshin Impact");
    await press("Global");
    await press(/Genesis/);
    await press("1");
    expect(h.tg.lastText()).toContain("<b>UID</b>");
    await h.send(textUpdate(ALICE, "700123456"));
    expect(h.tg.lastText()).toContain("<b>Server</b>");
    await press("‹ Back");
    expect(h.tg.lastText()).toContain("<b>UID</b>");
    await h.send(textUpdate(ALICE, "700999999"));
    await h.send(textUpdate(ALICE, "Europe"));
    expect(h.orders.quotes[0]?.item).toMatchObject({
      productRef: "gi-60",
      quantity: 1,
      fields: { uid: "700999999", server: "Europe" },
    });
  });
});

describe("checkout modes", () => {
  it("CHECKOUT=invoice sends a RUB invoice in kopecks with the provider token", async () => {
    h = await startBotHarness({ CHECKOUT: "invoice", PAYMENT_PROVIDER_TOKEN: "provider-token" });
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    expect(h.tg.lastText()).toContain("Price: <b>₽110</b>");
    await press("💳 Pay ₽110");
    expect(h.tg.last("sendInvoice")?.payload).toMatchObject({
      currency: "RUB",
      provider_token: "provider-token",
      prices: [{ amount: 11_000 }],
    });
  });

  it("CHECKOUT=direct lets allowed users confirm once and tells others the shop is closed", async () => {
    h = await startBotHarness({ CHECKOUT: "direct", ALLOWED_USER_IDS: String(ALICE.id) });
    await h.send(textUpdate(BORIS, "/start"));
    expect(h.tg.lastText()).toContain("магазин для вас закрыт");
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/To myself/);
    const confirm = h.tg.button("✅ Confirm order").data;
    await h.send(callbackUpdate(ALICE, confirm));
    await h.send(callbackUpdate(ALICE, confirm));
    const id = h.orders.quotes[0]!.orderId;
    expect(h.orders.orders.get(id)?.state).toBe("pending");
    expect(h.tg.of("answerCallbackQuery").at(-1)?.payload.text).toBe(
      "This order can no longer be paid: it is being delivered.",
    );
    expect(h.tg.of("sendInvoice")).toHaveLength(0);
  });
});

describe("commands", () => {
  it("/orders lists the customer's orders newest first, five per page, and shows a card on tap", async () => {
    h = await startBotHarness();
    for (let i = 0; i < 6; i++) {
      await h.send(textUpdate(ALICE, "/start"));
      await press("⭐ Telegram Stars");
      await h.send(textUpdate(ALICE, String(100 + i)));
      await press(/To myself/);
      const o = h.orders.orders.get(h.orders.quotes[i]!.orderId)!;
      o.createdAt += i;
    }
    await h.send(textUpdate(ALICE, "/orders"));
    expect(h.tg.lastText()).toContain("(1–5 of 6)");
    expect(h.tg.lastText()).toContain("⭐ 105 Telegram Stars");
    expect(h.tg.lastText()).not.toContain("⭐ 100 Telegram Stars");
    await press("Next ›");
    expect(h.tg.lastText()).toContain("(6–6 of 6)");
    expect(h.tg.lastText()).toContain("⭐ 100 Telegram Stars");
    await press(/^6\./);
    expect(h.tg.lastText()).toContain("🧾 <b>Order #");
    expect(h.tg.lastText()).toContain("⭐ 100 Telegram Stars");
    // An unpaid order's card shown again is the one its payment (an invoice sent from it) moves.
    const quote = h.orders.quotes[0]!;
    const first = h.orders.orders.get(quote.orderId)!;
    expect(h.orders.cardMessageWrites).toBe(1);
    expect(first.cardMessageId).toBeDefined();
    expect(first.cardMessageId).not.toBe(quote.cardMessageId);
    // The earlier card loses its buttons: its Pay or Cancel would act on an order followed elsewhere.
    const cleared = h.tg.of("editMessageReplyMarkup").at(-1)?.payload;
    expect(cleared).toMatchObject({ reply_markup: { inline_keyboard: [] } });
    expect(cleared?.message_id).not.toBe(first.cardMessageId);
  });

  it("/language switches to Russian and keeps it", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/language"));
    await press("🇷🇺 Русский");
    expect(h.tg.lastText()).toContain("по-русски");
    await h.send(textUpdate(ALICE, "/start"));
    expect(h.tg.lastText()).toContain("Что хотите купить?");
  });

  it("/help and /paysupport name the support contact", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/paysupport"));
    expect(h.tg.lastText()).toContain("Support: @shop_support");
    await h.send(textUpdate(BORIS, "/help"));
    expect(h.tg.lastText()).toContain("Поддержка: @shop_support");
  });

  it("a command that begins something else leaves the flow; /help answers beside it", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await h.send(textUpdate(ALICE, "/help"));
    expect(h.tg.lastText()).toContain("How it works");
    await h.send(textUpdate(ALICE, "100"));
    expect(h.tg.lastText()).toContain("Who gets it?");
    await h.send(textUpdate(ALICE, "/wallet"));
    await h.send(textUpdate(ALICE, "@alice_friend"));
    expect(h.tg.lastText()).toContain("Send /start");
  });
});

describe("incoming rate limit", () => {
  it("drops a user's updates beyond the limit and tells them once, while others are served", async () => {
    h = await startBotHarness({}, { updates: 3, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) await h.send(textUpdate(ALICE, "/help"));
    const texts = h.tg.of("sendMessage").map((c) => String(c.payload.text));
    expect(texts.filter((t) => t.includes("How it works"))).toHaveLength(3);
    expect(texts.filter((t) => t.includes("Too many messages"))).toHaveLength(1);
    await h.send(textUpdate(BORIS, "/help"));
    expect(h.tg.lastText()).toContain("Как это работает");
  });
});
