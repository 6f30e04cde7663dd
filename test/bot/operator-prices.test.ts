import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRub } from "../../src/bot/format/money.js";
import { ProductUnavailableError } from "../../src/orders/api.js";
import type { OrdersEngine } from "../../src/orders/engine.js";
import { priceKopecks } from "../../src/orders/pricing.js";
import type { OrderItem } from "../../src/orders/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { allData, CUSTOMER_ID, OPERATOR_ID, OperatorBot } from "./operator-harness.js";

/**
 * /prices: an operator changes prices and products through the bot of one process; the quotes
 * of another engine on the same Redis (another process) use them at once.
 */

let h: EngineHarness;
let bot: OperatorBot;
/** Another process's orders engine on the same Redis and prefix. */
let other: OrdersEngine;

beforeAll(async () => {
  h = await startEngineHarness();
  bot = new OperatorBot(h);
  other = h.addEngine();
});

afterAll(async () => {
  await h?.close();
});

async function quoteOn(engine: OrdersEngine, item: OrderItem) {
  const order = await engine.quote({ orderId: newOrderId(), item, customer: newCustomer() });
  expect(order.state).toBe("quoted");
  return order;
}

/** Presses a button on the /prices screen, then types `text` as the answer. */
async function typeSetting(data: string, text: string) {
  await bot.press(OPERATOR_ID, data);
  return OperatorBot.one(await bot.send(OPERATOR_ID, text));
}

describe("/prices", () => {
  it("shows markups, products, margin, rounding and changes, with buttons", async () => {
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/prices"));
    expect(shown.text).toContain("Prices and products");
    expect(shown.text).toContain("Telegram Stars: markup 10%");
    expect(shown.text).toContain(`Minimum margin: ${formatRub(0, "en")}`);
    expect(allData(shown.keyboard)).toEqual(
      expect.arrayContaining(["pp:m:stars", "pp:t:gift:0", "pp:i", "pp:g", "pp:r:ten", "pp:v"]),
    );
  });

  it("a kind's markup typed in one process prices the next quote in another", async () => {
    const before = await quoteOn(other, sampleItems().steam!);
    expect(before.priceKopecks).toBe(
      priceKopecks(before.wholesaleKopecks!, { markupPercent: 10, minMarginKopecks: 0, rounding: "rub" }),
    );
    // A bad answer: the rule and the question again, nothing changed.
    const bad = await typeSetting("pp:m:steam", "a lot");
    expect(bad.text).toContain("A markup is a number of percent");
    expect(bad.text).toContain("Send the markup of");
    expect((await h.engine.prices!.current()).markup.steam).toBe(10);
    const tooMuch = OperatorBot.one(await bot.send(OPERATOR_ID, "5000"));
    expect(tooMuch.text).toContain("A markup is a number of percent");

    const saved = OperatorBot.one(await bot.send(OPERATOR_ID, "25,5 %"));
    expect(saved.text).toContain("Saved");
    expect(saved.text).toContain("Steam top-up: markup 25.5%");
    const after = await quoteOn(other, sampleItems().steam!);
    expect(after.wholesaleKopecks).toBe(before.wholesaleKopecks);
    expect(after.priceKopecks).toBe(
      priceKopecks(after.wholesaleKopecks!, { markupPercent: 25.5, minMarginKopecks: 0, rounding: "rub" }),
    );
    expect(after.priceKopecks).toBeGreaterThan(before.priceKopecks!);
    // Stars are computed from the new price.
    expect(after.starsAmount).toBe(Math.ceil(after.priceKopecks! / 150));
  });

  it("an item's own markup applies to that item only", async () => {
    const saved = await typeSetting("pp:i", "neural:chatgpt_plus_1m 50");
    expect(saved.text).toContain("neural:chatgpt_plus_1m</code>: 50%");
    const neural = await quoteOn(other, sampleItems().neural!);
    expect(neural.priceKopecks).toBe(
      priceKopecks(neural.wholesaleKopecks!, { markupPercent: 50, minMarginKopecks: 0, rounding: "rub" }),
    );
    const bad = await typeSetting("pp:i", "chatgpt 50");
    expect(bad.text).toContain("Send the item");
    // Well formed but not in the catalog: refused, nothing saved.
    const unknown = OperatorBot.one(await bot.send(OPERATOR_ID, "neural:chatgpt_plus_1y 30"));
    expect(unknown.text).toContain("The catalog has no such item now");
    expect((await other.prices?.current())?.items["neural:chatgpt_plus_1y"]).toBeUndefined();
    expect(other.prices).toBeDefined();
    const removed = OperatorBot.one(await bot.send(OPERATOR_ID, "neural:chatgpt_plus_1m -"));
    expect(removed.text).toContain("Saved");
    const back = await quoteOn(other, sampleItems().neural!);
    expect(back.priceKopecks).toBe(
      priceKopecks(back.wholesaleKopecks!, { markupPercent: 10, minMarginKopecks: 0, rounding: "rub" }),
    );
  });

  it("the minimum margin and the rounding apply to the next quote in another process", async () => {
    const bad = await typeSetting("pp:g", "-5");
    expect(bad.text).toContain("A margin is a number of roubles");
    const saved = OperatorBot.one(await bot.send(OPERATOR_ID, "1000"));
    expect(saved.text).toContain("Saved");
    await bot.press(OPERATOR_ID, "pp:r:ten");
    const stars = await quoteOn(other, sampleItems().stars!);
    // 50 Stars cost far less than 1 000 ₽ wholesale: the margin decides, rounded up to 10 ₽.
    const expected = Math.ceil((stars.wholesaleKopecks! + 100_000) / 1000) * 1000;
    expect(stars.priceKopecks).toBe(expected);
    await bot.press(OPERATOR_ID, "pp:r:rub");
    await typeSetting("pp:g", "0");
  });

  it("a product switched off is refused by the next quote in another process; on again, it sells", async () => {
    const shown = OperatorBot.one(await bot.press(OPERATOR_ID, "pp:t:gift:0"));
    expect(shown.text).toContain("⛔ off 🎁 Gifts");
    expect(allData(shown.keyboard)).toContain("pp:t:gift:1");
    await expect(quoteOn(other, sampleItems().gift!)).rejects.toBeInstanceOf(ProductUnavailableError);
    // A second tap on the same button changes and logs nothing.
    const again = await bot.press(OPERATOR_ID, "pp:t:gift:0");
    expect(OperatorBot.callbackAnswer(again)?.text).toContain("Nothing changed");
    await bot.press(OPERATOR_ID, "pp:t:gift:1");
    await quoteOn(other, sampleItems().gift!);
  });

  it("logs every change with who and when, newest first, and shows them", async () => {
    const changes = await other.prices!.recentChanges(50);
    const gift = changes.filter((c) => c.field === "on:gift");
    expect(gift.map((c) => [c.from, c.to])).toEqual([
      ["0", "1"],
      [null, "0"],
    ]);
    expect(changes.every((c) => c.by === OPERATOR_ID && c.at > 0)).toBe(true);
    expect(changes.find((c) => c.field === "markup:steam")).toMatchObject({ from: null, to: "25.5" });
    expect(changes.find((c) => c.field === "item:neural:chatgpt_plus_1m")?.to).toBeNull();
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/prices"));
    expect(shown.text).toContain("Recent changes");
    expect(shown.text).toContain(`${OPERATOR_ID} · 🎁 Gifts: ⛔ off → ✅ on sale`);
  });

  it("a customer's /prices and pp: buttons change nothing", async () => {
    const before = await h.redis.llen(`${h.prefix}prices:log`);
    await bot.send(CUSTOMER_ID, "/prices");
    const tap = await bot.press(CUSTOMER_ID, "pp:t:stars:0");
    expect(OperatorBot.shown(tap)).toEqual([]);
    expect((await h.engine.prices!.current()).enabled.stars).toBe(true);
    expect(await h.redis.llen(`${h.prefix}prices:log`)).toBe(before);
  });
});
