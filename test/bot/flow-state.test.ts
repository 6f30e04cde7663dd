import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FLOW_IDLE_MS, FLOWS_VERSION } from "../../src/bot/flows/flow-state.js";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { ALICE, callbackUpdate, textUpdate } from "./helpers/updates.js";

describe("the flows' state in the session", () => {
  let h: BotHarness;
  beforeEach(async () => {
    h = await startBotHarness({ DEFAULT_LOCALE: "en" });
  });
  afterEach(async () => {
    await h.close();
  });

  const key = () => sessionKey(h.config.redisChatPrefix, ALICE.id);
  const stored = async () => JSON.parse((await h.redis.get(key()))!);

  it("keeps where the flow is and what was answered, not a log of updates", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    await h.send(callbackUpdate(ALICE, h.tg.button("100 ⭐").data));
    expect(h.tg.lastText()).toContain("Who gets it?");
    const { flow } = await stored();
    expect(flow).toMatchObject({ kind: "stars", v: FLOWS_VERSION, step: 1, state: { count: 100 }, waits: 1 });
    expect(flow.ask).toMatchObject({ step: 1, key: "q", page: 0 });
    // The buttons on screen carry the question's number; nothing of the updates is kept.
    expect(h.tg.button(/^🙋 To myself/).data).toBe(`f:${flow.ask.nonce}:c0`);
    expect(JSON.stringify(flow)).not.toContain("update_id");

    await h.send(callbackUpdate(ALICE, h.tg.button("‹ Back").data));
    expect(h.tg.lastText()).toContain("How many stars?");
    // Every press was answered, once, after its screen was shown.
    expect(h.tg.of("answerCallbackQuery")).toHaveLength(3);
    expect(h.tg.calls.at(-1)?.method).toBe("answerCallbackQuery");
    expect((await stored()).flow).toMatchObject({ step: 0, waits: 2 });
  });

  it("answers a press that changes nothing (the page counter) and keeps the record as it was", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("🎁 Gifts").data));
    const before = (await stored()).flow;
    const answered = h.tg.of("answerCallbackQuery").length;
    const sent = h.tg.calls.length;
    await h.send(callbackUpdate(ALICE, h.tg.button("1/2").data));
    expect(h.tg.of("answerCallbackQuery")).toHaveLength(answered + 1);
    expect(h.tg.calls).toHaveLength(sent + 1);
    expect((await stored()).flow).toMatchObject({ ...before, waits: 1, at: expect.any(Number) });
  });

  it("does not take a button of an earlier flow's question as an answer", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    const old = h.tg.button("50 ⭐").data;
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    await h.send(callbackUpdate(ALICE, old));
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toBe("This button is no longer active.");
    expect((await stored()).flow).toMatchObject({ step: 0, state: {} });
  });

  it("shows a list again, as it is now, when it changed between showing and the tap", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("🤖 AI services").data));
    const first = h.tg.lastButtons().map((b) => b.text);
    const tap = h.tg.button(first[0]!).data;
    const original = h.catalog.neural;
    h.catalog.neural = async () => (await original()).slice(1);
    await h.send(callbackUpdate(ALICE, tap));
    // Not quoted from the old list: the new one is on screen, and its first item can be chosen.
    expect(h.orders.quotes).toHaveLength(0);
    const now = h.tg.lastButtons().map((b) => b.text);
    expect(now).toEqual(first.slice(1));
    await h.send(callbackUpdate(ALICE, h.tg.button(now[0]!).data));
    expect(h.orders.quotes).toHaveLength(1);
  });

  it("leaves a flow the customer comes back to after FLOW_IDLE_MS", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    const session = await stored();
    expect(session.flow.at).toBeGreaterThan(Date.now() - 60_000);
    const fifty = h.tg.button("50 ⭐").data;

    // A minute short of the limit the flow still takes the answer.
    await h.redis.set(
      key(),
      JSON.stringify({ ...session, flow: { ...session.flow, at: Date.now() - FLOW_IDLE_MS + 60_000 } }),
    );
    await h.send(callbackUpdate(ALICE, fifty));
    expect(h.tg.lastText()).toContain("Who gets it?");

    // Past the limit the flow is gone: its button answers as a stale one and nothing is quoted.
    const later = await stored();
    await h.redis.set(
      key(),
      JSON.stringify({ ...later, flow: { ...later.flow, at: Date.now() - FLOW_IDLE_MS - 1 } }),
    );
    await h.send(callbackUpdate(ALICE, h.tg.button(/^🙋 To myself/).data));
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toBe("This button is no longer active.");
    expect(h.orders.quotes).toHaveLength(0);
    expect((await stored()).flow).toBeUndefined();
  });

  it("drops a flow kept by an earlier release (another version, or a replay log) when the chat comes back", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    const session = await stored();
    const fifty = h.tg.button("50 ⭐").data;
    await h.redis.set(
      key(),
      JSON.stringify({
        ...session,
        flow: { ...session.flow, v: FLOWS_VERSION - 1 },
        __flows: { state: {} },
        __flowsAt: 1,
      }),
    );
    await h.send(callbackUpdate(ALICE, fifty));
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toBe("This button is no longer active.");
    const left = await stored();
    expect(left.flow).toBeUndefined();
    expect(left.__flows).toBeUndefined();
    expect(left.__flowsAt).toBeUndefined();
  });
});
