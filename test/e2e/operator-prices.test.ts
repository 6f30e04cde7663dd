import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { formatStars } from "../../src/bot/format/money.js";
import { INCOMING_LIMIT } from "../../src/bot/index.js";
import { priceKopecks, starsForPrice } from "../../src/orders/pricing.js";
import { APP_OPERATOR_ID, type AppHarness, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

/**
 * /prices end to end: the app as src/main.ts composes it, the operator and customers in the
 * Telegram emulator. A product switched off leaves the menu and stops a flow in progress; an
 * item's markup shows in the customers' pickers.
 */

let h: AppHarness;
let operator: ChatUser;

beforeAll(async () => {
  h = await startAppHarness();
  operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
  operator.startChat();
});

afterAll(async () => {
  await h?.close();
});

/** Stars for a wholesale price in roubles at a markup, as the pickers show them (CHECKOUT=stars, 1.5 ₽ a Star). */
function starsLabel(wholesaleRub: number, markupPercent: number): string {
  const kopecks = priceKopecks(wholesaleRub * 100, { markupPercent, minMarginKopecks: 0, rounding: "rub" });
  return formatStars(starsForPrice(kopecks, 1.5), "en");
}

describe("/prices end to end", () => {
  it("an item's own markup shows in the customers' picker", async () => {
    const before = newAppCustomer(h.telegram);
    await before.sendText("/start");
    await before.pressButton("🤖 AI services", { timeoutMs: 10_000 });
    await before.waitForBotMessage("Choose an AI service", 10_000);
    expect(before.buttons()).toContain(`🤖 ChatGPT Plus, 1 month · ${starsLabel(2190, 10)}`);

    await operator.sendText("/prices");
    await operator.pressButton("🏷 Markup of one item…", { timeoutMs: 10_000 });
    await operator.waitForBotMessage("Send an item and its markup", 10_000);
    await operator.sendText("neural:chatgpt_plus_1m 100");
    await operator.waitForBotMessage("Saved", 10_000);

    const after = newAppCustomer(h.telegram);
    await after.sendText("/start");
    await after.pressButton("🤖 AI services", { timeoutMs: 10_000 });
    await after.waitForBotMessage("Choose an AI service", 10_000);
    const labels = after.buttons();
    expect(labels).toContain(`🤖 ChatGPT Plus, 1 month · ${starsLabel(2190, 100)}`);
    // The other items keep their product's markup.
    expect(labels).toContain(`🧠 ChatGPT Pro, 1 month · ${starsLabel(21900, 10)}`);
  });

  it("a product switched off leaves the menu, and a flow in progress for it is told it is unavailable", async () => {
    const midway = newAppCustomer(h.telegram);
    await midway.sendText("/start");
    await midway.waitForBotMessage("What would you like to buy?", 10_000);
    await midway.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
    await midway.waitFor(() => midway.buttons().includes("50 ⭐"), 10_000);
    // Another customer's menu, drawn before the switch.
    const early = newAppCustomer(h.telegram);
    await early.sendText("/start");
    const menu = await early.waitForBotMessage("What would you like to buy?", 10_000);

    await operator.sendText("/prices");
    await operator.waitForBotMessage("✅ on sale ⭐ Telegram Stars", 10_000);
    // The first "Turn off" is the Stars row's.
    await operator.pressButton("⛔ Turn off", { timeoutMs: 10_000 });
    await operator.waitForBotMessage("⛔ off ⭐ Telegram Stars", 10_000);

    await midway.pressButton("50 ⭐", { timeoutMs: 10_000 });
    await midway.waitForBotMessage("This product has just become unavailable", 10_000);

    const fresh = newAppCustomer(h.telegram);
    await fresh.sendText("/start");
    await fresh.waitForBotMessage("What would you like to buy?", 10_000);
    const buttons = fresh.buttons();
    expect(buttons).not.toContain("⭐ Telegram Stars");
    expect(buttons).toContain("💎 Telegram Premium");

    // The old menu's Stars button is answered, and nothing starts.
    const tap = await early.pressButton("⭐ Telegram Stars", {
      messageId: menu.messageId,
      timeoutMs: 10_000,
    });
    expect(tap.callbackAnswer?.text).toContain("not sold right now");
    expect(early.lastBotMessage()?.messageId).toBe(menu.messageId);

    await operator.pressButton("✅ Turn on", { timeoutMs: 10_000 });
    await operator.waitForBotMessage("✅ on sale ⭐ Telegram Stars", 10_000);
    const back = newAppCustomer(h.telegram);
    await back.sendText("/start");
    await back.waitForBotMessage("What would you like to buy?", 10_000);
    expect(back.buttons()).toContain("⭐ Telegram Stars");
  });

  it("a hundred item markups still leave a screen Telegram takes: the first ones listed, the rest counted", async () => {
    const prices = h.app.orders.prices!;
    const refs = Array.from(
      { length: 100 },
      (_, i) => `game:pubg-global-package-${String(i).padStart(3, "0")}`,
    );
    for (const ref of refs) await prices.setItemMarkup(APP_OPERATOR_ID, ref, 15);
    try {
      await operator.sendText("/prices");
      const screen = await operator.waitForBotMessage(/pubg-global-package-000/, 10_000);
      expect(screen.text).toContain(`• ${refs[0]}: 15%`);
      expect(screen.text).toMatch(/… and \d+ more \(send an item with "-" to remove its markup\)/);
      expect(screen.text!.length).toBeLessThanOrEqual(4096);
      expect(h.telegram.calls().filter((call) => !call.ok)).toEqual([]);
    } finally {
      for (const ref of refs) await prices.setItemMarkup(APP_OPERATOR_ID, ref, null);
    }
  });

  it("with every product switched off, /start says nothing is on sale instead of asking to pick one", async () => {
    /** Products the /prices screen shows switched off (its list's lines, not its log of changes). */
    const offOnScreen = () => (operator.lastBotMessage()?.text?.match(/^⛔ off /gm) ?? []).length;
    // Twelve taps in a row: paced under the bot's limit on one user's updates (INCOMING_LIMIT).
    const pause = () => new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, INCOMING_LIMIT.windowMs));
    await operator.sendText("/prices");
    await operator.waitForBotMessage("Prices and products", 10_000);
    // Each tap switches off the first product still on sale.
    for (let off = 1; off <= 6; off++) {
      await pause();
      await operator.pressButton("⛔ Turn off", { timeoutMs: 10_000 });
      await operator.waitFor(() => offOnScreen() === off, 10_000);
    }
    try {
      const customer = newAppCustomer(h.telegram);
      await customer.sendText("/start");
      const menu = await customer.waitForBotMessage(
        /Nothing is on sale right now|What would you like/,
        10_000,
      );
      expect(menu.text).toContain("Nothing is on sale right now");
      expect(customer.buttons(menu.messageId)).toEqual(["📦 My orders"]);
    } finally {
      for (let off = 5; off >= 0; off--) {
        await pause();
        await operator.pressButton("✅ Turn on", { timeoutMs: 10_000 });
        await operator.waitFor(() => offOnScreen() === off, 10_000);
      }
    }
  });
});
