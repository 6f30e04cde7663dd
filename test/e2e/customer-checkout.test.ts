import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  quoteStars,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };

describe("checkout modes", () => {
  it("CHECKOUT=invoice: a provider invoice in roubles (kopecks), then delivery", async () => {
    h = await startAppHarness({ CHECKOUT: "invoice", PAYMENT_PROVIDER_TOKEN: "provider-test-token" });
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("💎 Telegram Premium", T);
    await c.pressButton("12 months", T);
    await c.pressButton(/^🙋 To myself/, T);
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toMatch(/Price: ₽[\d,]+\n/);
    await c.pressButton(/^💳 Pay ₽/, T);
    const [invoice] = (await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000)).filter(
      (m) => m.invoice,
    );
    expect(invoice?.invoice?.currency).toBe("RUB");
    expect((invoice?.invoice?.totalAmount ?? 1) % 100).toBe(0);
    const sent = h.telegram.calls("sendInvoice").at(-1)?.payload;
    expect(sent?.provider_token).toBe("provider-test-token");
    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(DELIVERED, 20_000);
  });

  it("CHECKOUT=invoice,wallet: a second invoice paid for the same order is said to go back to the wallet", async () => {
    h = await startAppHarness({ CHECKOUT: "invoice,wallet", PAYMENT_PROVIDER_TOKEN: "provider-test-token" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    await c.pressButton(/^💳 Telegram payment/, { ...T, messageId: card.messageId });
    await c.pressButton(/^💳 Telegram payment/, { ...T, messageId: card.messageId });
    const invoices = (await c.waitFor((msgs) => msgs.filter((m) => m.invoice).length === 2, 10_000)).filter(
      (m) => m.invoice,
    );
    // Both pre-checkouts are answered while the order is still unpaid: both payments go through.
    const paid = await Promise.all(invoices.map((m) => c.payInvoice({ messageId: m.messageId })));
    expect(paid.map((p) => p.ok)).toEqual([true, true]);
    const told = await c.waitForBotMessage(/second payment/, 10_000);
    expect(told.text).toContain("goes back to your wallet in the bot");
    expect(told.text).not.toContain("The shop has been told");
    await c.waitForBotMessage(DELIVERED, 20_000);
  });

  it("CHECKOUT=direct: allowed users confirm once; everyone else is told the shop is closed", async () => {
    const allowed = 640_000_001;
    h = await startAppHarness({ CHECKOUT: "direct", ALLOWED_USER_IDS: String(allowed) });
    const stranger = newAppCustomer(h.telegram);
    await stranger.sendText("/start");
    await stranger.waitForBotMessage(/not open to you/, 10_000);
    expect(stranger.buttons()).toEqual([]);

    const c = h.telegram.user({ id: allowed, username: "trusted_buyer", languageCode: "en" });
    await starsCard(c, 500);
    const card = c.lastBotMessage()!;
    const first = await c.pressButton("✅ Confirm order", { ...T, messageId: card.messageId });
    expect(first.callbackAnswer?.text).toBe("Order confirmed.");
    await c.waitForBotMessage(DELIVERED, 20_000);
    expect(h.telegram.calls("sendInvoice")).toHaveLength(0);
    const [order] = h.sandbox.orders().filter((o) => o.request.recipient_username === "trusted_buyer");
    expect(h.sandbox.stats(order!.customId)).toMatchObject({ creates: 1, pays: 1, charges: 1 });
  });
});

describe("an expired quote", () => {
  it("a stale pay button or an old invoice turns the card into the offer of a new price, adding no message", async () => {
    h = await startAppHarness({ QUOTE_TTL_SECONDS: "10", CHECKOUT: "stars,wallet" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    const rows = (card.replyMarkup as { inline_keyboard: { text: string; callback_data?: string }[][] })
      .inline_keyboard;
    const starsData = rows.flat().find((b) => /^⭐ Telegram Stars/.test(b.text))!.callback_data!;
    await c.pressButton(/^⭐ Telegram Stars/, { ...T, messageId: card.messageId });
    await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    await new Promise((r) => setTimeout(r, 10_500));
    await c.waitFor(
      (msgs) => /price has expired/.test(msgs.find((m) => m.messageId === card.messageId)?.text ?? ""),
      10_000,
    );
    const before = c.botMessages().length;
    // The old invoice is refused, and taps on the card's old Stars button (a copy of the card
    // shown before the price ran out) are answered with an alert: none adds a message.
    expect((await c.payInvoice(T)).ok).toBe(false);
    for (let i = 0; i < 3; i++) await c.pressCallbackData(starsData, card.messageId);
    await new Promise((r) => setTimeout(r, 500));
    expect(c.botMessages()).toHaveLength(before);
    expect(c.buttons(card.messageId)).toEqual(["🔄 Get a new price"]);
    await c.pressButton("🔄 Get a new price", { ...T, messageId: card.messageId });
    await c.waitFor((msgs) => msgs.filter((m) => /Order #/.test(m.text ?? "")).length === 2, 10_000);
  }, 40_000);

  it("is refused politely at payment and a fresh quote is offered", async () => {
    h = await startAppHarness({ QUOTE_TTL_SECONDS: "10" });
    const c = newAppCustomer(h.telegram);
    await quoteStars(c);
    await new Promise((r) => setTimeout(r, 10_500));
    const refused = await c.payInvoice(T);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/expired/);
    await c.pressButton("🔄 Get a new price", T);
    await c.waitFor(
      (msgs) => msgs.filter((m) => m.text?.includes("⏳ Waiting for your payment")).length >= 1,
      10_000,
    );
    await c.pressButton(/^💳 Pay/, T);
    await c.waitFor((msgs) => msgs.filter((m) => m.invoice).length === 2, 10_000);
    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(DELIVERED, 20_000);
  }, 60_000);
});
