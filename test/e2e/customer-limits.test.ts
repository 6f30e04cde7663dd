import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import { INCOMING_LIMIT } from "../../src/bot/index.js";
import { type AppHarness, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };
const LIMIT = /At most 3 unpaid orders may wait for payment at once, and you have 3\./;

/** `create` requests the reseller sandbox processed, whatever their custom_id. */
function createsSeen(hh: AppHarness): number {
  return hh.sandbox.requests().filter((r) => r.method === "POST" && r.path.endsWith("/order/create")).length;
}

/** The Stars flow with a preset amount, to myself; resolves with the card of that amount. */
async function starsCard(c: ChatUser, stars: number): Promise<ChatMessage> {
  await c.sendText("/start");
  await c.pressButton("⭐ Telegram Stars", T);
  await c.pressButton(`${stars.toLocaleString("en-US")} ⭐`, T);
  await c.pressButton(/^🙋 To myself/, T);
  return c.waitForBotMessage(
    new RegExp(`^🧾 Order #[\\s\\S]*⭐ ${stars.toLocaleString("en-US")} Telegram Stars`),
    10_000,
  );
}

/** The Stars flow up to the point where the quote is asked for, without waiting for its answer. */
async function askForStars(c: ChatUser, stars: number): Promise<void> {
  await c.sendText("/start");
  await c.pressButton("⭐ Telegram Stars", T);
  await c.pressButton(`${stars.toLocaleString("en-US")} ⭐`, T);
  await c.pressButton(/^🙋 To myself/, T);
}

const shortIdOf = (card: ChatMessage) => /Order #([0-9a-f]{8})/.exec(card.text ?? "")?.[1] ?? "";

describe("a customer with too many unpaid quotes", () => {
  it("is refused the fourth, told why with the open ones listed, and goes on after cancelling one", async () => {
    h = await startAppHarness();
    const c = newAppCustomer(h.telegram);
    const cards = [await starsCard(c, 50), await starsCard(c, 100), await starsCard(c, 250)];
    const ids = cards.map(shortIdOf);
    expect(new Set(ids).size).toBe(3);
    const creates = createsSeen(h);
    expect(creates).toBe(3);

    // Three flows are as many updates as the bot takes from one person in its flood window.
    await sleep(INCOMING_LIMIT.windowMs + 200);
    await askForStars(c, 500);
    const refusal = await c.waitForBotMessage(LIMIT, 10_000);
    expect(refusal.text).toContain("Pay one of them, or cancel one to go on with this order.");
    for (const id of ids) expect(refusal.text).toContain(`#${id}`);
    expect(refusal.text).toContain("⭐ 50 Telegram Stars");
    expect(c.buttons(refusal.messageId)).toEqual([
      ...ids.map((id) => `✖️ Cancel #${id}`),
      "🔄 Try again",
      "‹ Back",
      "✖️ Cancel",
    ]);
    expect(createsSeen(h)).toBe(creates);

    // Trying again without cancelling is refused again, still without a create.
    await c.pressButton("🔄 Try again", { ...T, messageId: refusal.messageId });
    await c.waitFor(
      (msgs) => msgs.some((m) => m.messageId === refusal.messageId && m.edits > refusal.edits),
      10_000,
    );
    expect(c.messages().find((m) => m.messageId === refusal.messageId)?.text).toMatch(LIMIT);
    expect(createsSeen(h)).toBe(creates);

    // Cancelling the oldest lets the new order through, in the same message.
    await c.pressButton(`✖️ Cancel #${ids[0]}`, { ...T, messageId: refusal.messageId });
    const card = await c.waitForBotMessage(/^🧾 Order #[\s\S]*⭐ 500 Telegram Stars/, 10_000);
    expect(card.messageId).toBe(refusal.messageId);
    expect(createsSeen(h)).toBe(creates + 1);
    const mine = await h.app.orders.listByChat(c.id, 0, 10);
    expect(mine.items.find((o) => o.id.startsWith(ids[0]!))?.state).toBe("cancelled");
    // The cancelled quote's own card says so.
    await c.waitFor(
      (msgs) => msgs.some((m) => m.messageId === cards[0]!.messageId && /✖️ Cancelled\./.test(m.text ?? "")),
      10_000,
    );
  });

  it("speaks Russian to a Russian customer", async () => {
    h = await startAppHarness({ MAX_OPEN_QUOTES: "1" });
    const c = h.telegram.user({ id: 620_100_001, username: "pokupatel_limit", languageCode: "ru" });
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.pressButton("50 ⭐", T);
    await c.pressButton(/^🙋 Себе/, T);
    await c.waitForBotMessage(/Заказ #/, 10_000);
    const creates = createsSeen(h);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.pressButton("100 ⭐", T);
    await c.pressButton(/^🙋 Себе/, T);
    const refusal = await c.waitForBotMessage(/не больше 1 неоплаченного заказа, а у вас их 1\./, 10_000);
    expect(refusal.text).toContain("Оплатите один из них или отмените один");
    expect(c.buttons(refusal.messageId)[0]).toMatch(/^✖️ Отменить #[0-9a-f]{8}$/);
    expect(createsSeen(h)).toBe(creates);
  });
});

describe("an expired quote", () => {
  it("no longer counts: the refused order goes through once the old quote expired; a new price for it is limited too", async () => {
    h = await startAppHarness({ QUOTE_TTL_SECONDS: "10", MAX_OPEN_QUOTES: "1" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    await askForStars(c, 500);
    const refusal = await c.waitForBotMessage(
      /At most 1 unpaid order may wait for payment at once, and you have 1\./,
      10_000,
    );
    expect(refusal.text).toContain(`#${shortIdOf(card)}`);
    const creates = createsSeen(h);
    // The quote expires (its card says so), then the same order is asked for again.
    await c.waitFor(
      (msgs) => msgs.some((m) => m.messageId === card.messageId && /price has expired/.test(m.text ?? "")),
      30_000,
    );
    await c.pressButton("🔄 Try again", { ...T, messageId: refusal.messageId });
    const second = await c.waitForBotMessage(/^🧾 Order #[\s\S]*⭐ 500 Telegram Stars/, 10_000);
    expect(createsSeen(h)).toBe(creates + 1);

    // A new price for the expired quote counts too: refused, with the open one to cancel from there.
    await c.pressButton("🔄 Get a new price", { ...T, messageId: card.messageId });
    const again = await c.waitForBotMessage(/At most 1 unpaid order may wait/, 10_000);
    expect(again.messageId).not.toBe(refusal.messageId);
    expect(c.buttons(again.messageId)).toEqual([`✖️ Cancel #${shortIdOf(second)}`]);
    expect(createsSeen(h)).toBe(creates + 1);
    await c.pressButton(`✖️ Cancel #${shortIdOf(second)}`, { ...T, messageId: again.messageId });
    await c.waitFor(
      (msgs) => msgs.some((m) => m.messageId === second.messageId && /✖️ Cancelled\./.test(m.text ?? "")),
      10_000,
    );
    await c.pressButton("🔄 Get a new price", { ...T, messageId: card.messageId });
    await c.waitFor(
      (msgs) =>
        msgs.filter((m) => /^🧾 Order #[\s\S]*⭐ 50 Telegram Stars[\s\S]*Waiting/.test(m.text ?? ""))
          .length === 1,
      10_000,
    );
    expect(createsSeen(h)).toBe(creates + 2);
  });
});

describe("an over-long typed answer", () => {
  it("gets the rule and the same question again, changes nothing and sends no create", async () => {
    h = await startAppHarness();
    const c = newAppCustomer(h.telegram);
    const creates = createsSeen(h);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.waitForBotMessage(/How many stars\?/, 10_000);
    await c.sendText("9".repeat(300));
    const amount = await c.waitForBotMessage(/That is too long: at most 256 characters, please\./, 10_000);
    expect(amount.text).toContain("How many stars?");
    await c.sendText("75");
    await c.waitForBotMessage(/Who gets it\?/, 10_000);
    await c.sendText(`@${"a".repeat(300)}`);
    await c.waitFor(
      (msgs) =>
        msgs.filter((m) => /That is too long: at most 256 characters/.test(m.text ?? "")).length === 2,
      10_000,
    );
    expect(c.lastBotMessage()?.text).toContain("Who gets it?");
    expect(createsSeen(h)).toBe(creates);
    // The flow kept its answers: the next good one completes the same order.
    await c.sendText("@good_friend");
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("⭐ 75 Telegram Stars");
    expect(c.lastBotMessage()?.text).toContain("For: @good_friend");
    expect(createsSeen(h)).toBe(creates + 1);
  });
});
