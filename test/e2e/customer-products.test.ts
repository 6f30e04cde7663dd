import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { type AppHarness, DELIVERED, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

/** Every product kind from /start to the delivered message, over the emulator and the sandbox. */
let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h.close();
});

const T = { timeoutMs: 10_000 };

async function payAndWait(customer: ChatUser, delivered: RegExp = DELIVERED) {
  await customer.pressButton(/^💳 (Pay|Оплатить)/, T);
  await customer.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
  const paid = await customer.payInvoice(T);
  expect(paid.ok).toBe(true);
  return customer.waitForBotMessage(delivered, 20_000);
}

describe("each product kind end to end", () => {
  it("Premium: 3 months for a friend", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("💎 Telegram Premium", T);
    await c.pressButton("3 months", T);
    await c.sendText("t.me/premium_friend");
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("💎 Telegram Premium for 3 months");
    const final = await payAndWait(c);
    expect(final.text).toContain("For: @premium_friend");
  });

  it("Gift: a limited gift shows what is left; sold-out ones are hidden", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("🎁 Gifts", T);
    await c.waitForBotMessage(/Choose a gift/, 10_000);
    const firstPage = c.buttons();
    expect(firstPage.some((b) => b.startsWith("🦄"))).toBe(false);
    expect(firstPage).toContain("1/2");
    await c.pressButton("›", T);
    await c.waitFor(() => c.buttons().some((b) => b.startsWith("🧁")), 10_000);
    expect(c.buttons().find((b) => b.startsWith("🧁"))).toMatch(/· 5 left$/);
    expect(c.buttons().some((b) => b.startsWith("🦄"))).toBe(false);
    await c.pressButton(/^🧁/, T);
    await c.pressButton(/^🙋 To myself/, T);
    await c.waitForBotMessage(/Order #/, 10_000);
    const final = await payAndWait(c);
    expect(final.text).toContain("🎁 Gift 🧁 (250 ⭐)");
  });

  it("Steam: login and amount in roubles", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("🎮 Steam top-up", T);
    await c.waitForBotMessage(/Your Steam login/, 10_000);
    await c.sendText("gaben_fan_1998");
    await c.waitForBotMessage(/How much to top up/, 10_000);
    await c.pressButton("₽500", T);
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("🎮 Steam top-up of ₽500");
    expect(c.lastBotMessage()?.text).toContain("Steam login: gaben_fan_1998");
    await payAndWait(c);
  });

  it("AI services: an item of the neural catalog, no recipient", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("🤖 AI services", T);
    await c.pressButton(/^🤖 ChatGPT Plus/, T);
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).not.toContain("For:");
    const final = await payAndWait(c);
    expect(final.text).toContain("ChatGPT Plus, 1 month");
  });

  it("Games with codes: game, region, package, quantity; codes delivered in <code>", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("🕹 Games", T);
    await c.pressButton("PUBG Mobile", T);
    await c.pressButton("Russia", T);
    await c.pressButton(/^325 UC code/, T);
    await c.pressButton("2", T);
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("🕹 PUBG Mobile · Russia · 325 UC code × 2");
    const final = await payAndWait(c);
    expect(final.html).toMatch(/Your codes:\n<code>[^<]+<\/code>\n<code>[^<]+<\/code>/);
  });

  it("Games with a top-up: one question per field, in Russian", async () => {
    const c = h.telegram.user({ id: 630_000_002, username: "igrok_2", languageCode: "ru" });
    await c.sendText("/start");
    await c.pressButton("🕹 Игры", T);
    await c.pressButton("Genshin Impact", T);
    await c.pressButton("Global", T);
    await c.pressButton(/^60 Genesis Crystals/, T);
    await c.pressButton("1", T);
    await c.waitForBotMessage(/UID/, 10_000);
    await c.sendText("700123456");
    // Field names in Russian, the same on the question and on the card.
    await c.waitForBotMessage(/Сервер/, 10_000);
    await c.sendText("Europe");
    await c.waitForBotMessage(/Заказ #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("UID: 700123456");
    expect(c.lastBotMessage()?.text).toContain("Сервер: Europe");
    await payAndWait(c, /доставлен/);
  });
});
