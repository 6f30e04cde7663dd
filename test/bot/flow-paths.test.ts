import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_WAITS } from "../../src/bot/flows/kit.js";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { ResellerApiError } from "../../src/reseller/errors.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { ALICE, callbackUpdate, textUpdate } from "./helpers/updates.js";

/*
 * The flows' ways out of the straight path, step by step through the session's flow record:
 * a catalog that does not answer, a refused quote, bad answers, Cancel and Back.
 */

let h: BotHarness;
beforeEach(async () => {
  h = await startBotHarness({ DEFAULT_LOCALE: "en" });
});
afterEach(async () => {
  await h.close();
});

const press = (label: string | RegExp) => h.send(callbackUpdate(ALICE, h.tg.button(label).data));
const flowRecord = async () =>
  JSON.parse((await h.redis.get(sessionKey(h.config.redisChatPrefix, ALICE.id))) ?? "{}").flow;

/** Makes the gift catalog fail `times` times, then answer as before. */
function failGifts(times: number): void {
  const original = h.catalog.gifts;
  let left = times;
  h.catalog.gifts = async () => {
    if (left-- > 0) throw new Error("catalog down");
    return original();
  };
}

describe("a catalog that does not answer inside a flow", () => {
  it("offers Retry, and Retry reads the catalog again and shows the list", async () => {
    failGifts(1);
    await h.send(textUpdate(ALICE, "/start"));
    await press("🎁 Gifts");
    expect(h.tg.lastText()).toContain("not answering right now");
    expect(h.tg.lastButtons().map((b) => b.text)).toEqual(["🔄 Try again", "✖️ Cancel"]);
    await press("🔄 Try again");
    expect(h.tg.lastText()).toContain("Choose a gift");
    // A gift from the list shown after Retry is quoted.
    await press(h.tg.lastButtons()[0]!.text);
    await press(/^🙋 To myself/);
    expect(h.orders.quotes).toHaveLength(1);
    expect(h.orders.quotes[0]!.item.kind).toBe("gift");
  });

  it("gives up after three failed reads in a row and leaves the flow", async () => {
    failGifts(3);
    await h.send(textUpdate(ALICE, "/start"));
    await press("🎁 Gifts");
    await press("🔄 Try again");
    expect(h.tg.lastText()).toContain("not answering right now");
    await press("🔄 Try again");
    expect(h.tg.lastText()).toContain("still not answering");
    expect(await flowRecord()).toBeUndefined();
  });

  it("takes Cancel on the Retry question as Cancel, without reading the catalog again", async () => {
    failGifts(1);
    await h.send(textUpdate(ALICE, "/start"));
    await press("🎁 Gifts");
    const reads = h.catalog.reads.length;
    await press("✖️ Cancel");
    expect(h.tg.lastText()).toContain("Cancelled. Nothing was ordered.");
    expect(h.catalog.reads).toHaveLength(reads);
    expect(await flowRecord()).toBeUndefined();
  });
});

describe("a refused quote", () => {
  it("is retried under a new order id (one that failed for now keeps its id: stars-flow.test.ts)", async () => {
    h.orders.quoteErrors.push(
      new ResellerApiError({
        kind: "bad_request",
        endpoint: "POST /api/reseller/order/create",
        message: "refused",
      }),
    );
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press(/^🙋 To myself/);
    expect(h.tg.lastText()).toContain("The supplier did not accept this order.");
    expect((await flowRecord()).ask).toMatchObject({ key: "quote", refused: true });
    await press("🔄 Try again");
    expect(h.orders.quotes).toHaveLength(2);
    expect(h.orders.quotes[1]!.orderId).not.toBe(h.orders.quotes[0]!.orderId);
    expect(h.tg.lastText()).toContain("Order #");
    expect(await flowRecord()).toBeUndefined();
  });
});

describe("answers the flow does not take", () => {
  it("answers every bad answer with the rule and the question again, however many, and keeps the flow", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    const before = await flowRecord();
    for (let i = 0; i < 12; i++) {
      await h.send(textUpdate(ALICE, "ten"));
      expect(h.tg.lastText()).toContain("How many stars?");
      expect(h.tg.lastText()).toContain("⚠️");
    }
    expect((await flowRecord())?.ask).toEqual(before?.ask);
    await h.send(textUpdate(ALICE, "75"));
    expect(h.tg.lastText()).toContain("Who gets it?");
    for (let i = 0; i < 12; i++) await h.send(textUpdate(ALICE, "@a"));
    expect(h.tg.lastText()).toContain("Who gets it?");
    expect(h.orders.quotes).toHaveLength(0);
    await h.send(textUpdate(ALICE, "@alice_friend"));
    expect(h.orders.quotes).toHaveLength(1);
  });

  it("takes no command it does not know as an answer: the rule and the question again", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    for (const typo of ["/menu", "/foo@other_bot", "/balance"]) {
      await h.send(textUpdate(ALICE, typo));
      expect(h.tg.lastText()).toContain("command I do not know");
      expect(h.tg.lastText()).toContain("Who gets it?");
    }
    expect(h.orders.quotes).toHaveLength(0);
    await h.send(textUpdate(ALICE, "@alice_friend"));
    expect(h.orders.quotes).toHaveLength(1);
  });

  it("answers /help, /orders and /language beside the flow, which goes on from its question", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    for (const command of ["/help", "/orders", "/paysupport"]) {
      await h.send(textUpdate(ALICE, command));
      expect(await flowRecord()).toBeDefined();
    }
    // The question's buttons still answer it, and so does a typed answer.
    await press("100 ⭐");
    expect(h.tg.lastText()).toContain("Who gets it?");
    await h.send(textUpdate(ALICE, "/language"));
    await h.send(textUpdate(ALICE, "@alice_friend"));
    expect(h.orders.quotes).toHaveLength(1);
    // /start and /cancel still leave it.
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await h.send(textUpdate(ALICE, "/start"));
    expect(await flowRecord()).toBeUndefined();
  });

  it(`stops a flow that has taken ${MAX_WAITS} updates`, async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    const key = sessionKey(h.config.redisChatPrefix, ALICE.id);
    const session = JSON.parse((await h.redis.get(key))!);
    await h.redis.set(key, JSON.stringify({ ...session, flow: { ...session.flow, waits: MAX_WAITS - 1 } }));
    await press("‹ Back");
    expect(h.tg.lastText()).toContain("What would you like to buy?");
    await press("⭐ Telegram Stars");
    const again = JSON.parse((await h.redis.get(key))!);
    await h.redis.set(key, JSON.stringify({ ...again, flow: { ...again.flow, waits: MAX_WAITS } }));
    await press("100 ⭐");
    expect(h.tg.lastText()).toContain("took too many steps");
    expect(await flowRecord()).toBeUndefined();
  });

  it("answers a photo with the rule that the question wants text", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    const photo = textUpdate(ALICE, "x");
    const message = photo.message as unknown as Record<string, unknown>;
    delete message.text;
    message.photo = [{ file_id: "p", file_unique_id: "p", width: 1, height: 1 }];
    await h.send(photo);
    expect(h.tg.lastText()).toMatch(/^⚠️/);
    expect(h.tg.lastText()).toContain("How many stars?");
  });
});

describe("a question that cannot be shown", () => {
  it("tells the customer on the button and keeps the flow where it was, so the same tap works again", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    const before = await flowRecord();
    const hundred = h.tg.button("100 ⭐").data;
    h.tg.fail("editMessageText", 400, "Bad Request: message to edit not found");
    h.tg.fail("sendMessage", 400, "Bad Request: something else");
    const tap = callbackUpdate(ALICE, hundred);
    await h.send(tap);
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toContain("Something went wrong");
    // Answered once, by the error boundary: the flow did not answer it first.
    expect(
      h.tg.of("answerCallbackQuery").filter((c) => c.payload.callback_query_id === tap.callback_query!.id),
    ).toHaveLength(1);
    expect(await flowRecord()).toEqual(before);
    await h.send(callbackUpdate(ALICE, hundred));
    expect(h.tg.lastText()).toContain("Who gets it?");
  });
});

describe("Cancel and Back", () => {
  it("Cancel leaves the flow with nothing ordered", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    await press("100 ⭐");
    await press("✖️ Cancel");
    expect(h.tg.lastText()).toContain("Cancelled. Nothing was ordered.");
    expect(await flowRecord()).toBeUndefined();
    expect(h.orders.quotes).toHaveLength(0);
  });

  it("Back on the first question shows the main menu in its place and leaves the flow", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await press("⭐ Telegram Stars");
    const question = h.tg.last("editMessageText")!.payload.message_id;
    await press("‹ Back");
    expect(h.tg.lastText()).toContain("What would you like to buy?");
    expect(h.tg.last("editMessageText")!.payload.message_id).toBe(question);
    expect(await flowRecord()).toBeUndefined();
  });
});
