import type { ConversationData, VersionedState } from "@grammyjs/conversations";
import type { Update } from "grammy/types";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactFlowState, FLOW_IDLE_MS } from "../../src/bot/conversations/flow-state.js";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { ALICE, callbackUpdate, textUpdate } from "./helpers/updates.js";

/** A button's update as Telegram sends it: the whole message the button was on. */
function richTap(data: string, messageId: number): Update {
  const u = callbackUpdate(ALICE, data, messageId);
  const message = u.callback_query!.message!;
  return {
    ...u,
    callback_query: {
      ...u.callback_query!,
      message: {
        ...message,
        from: { id: 123456, is_bot: true, first_name: "Shop" },
        text: "⭐ How many stars?\nPick an amount or type any whole number from 50 to 1,000,000.",
        entities: [{ type: "bold", offset: 2, length: 15 }],
        reply_markup: { inline_keyboard: [[{ text: "50 ⭐", callback_data: "f:1:c0" }]] },
      } as typeof message,
    },
  };
}

function stateWith(receive: unknown[]): VersionedState<ConversationData> {
  return {
    version: [0, 3],
    state: {
      stars: [
        {
          args: "[]",
          interrupts: [1],
          replay: {
            send: receive.map(() => ({ payload: "wait" })),
            receive: receive.map((r, send) => ({ send, returnValue: r })),
          },
        },
      ],
    },
  };
}

describe("compactFlowState", () => {
  it("keeps of a button's message only which message it was, and typed answers whole", () => {
    const tap = richTap("f:1:c0", 42);
    const typed = textUpdate(ALICE, "750");
    const compacted = compactFlowState(stateWith([tap, typed, 1_700_000_000_000]));
    const [a, b, c] = compacted.state.stars![0]!.replay.receive.map((r) => r.returnValue) as [
      Update,
      Update,
      number,
    ];
    expect(a.callback_query?.message).toEqual({
      message_id: 42,
      date: tap.callback_query!.message!.date,
      chat: tap.callback_query!.message!.chat,
    });
    expect(a.callback_query?.data).toBe("f:1:c0");
    expect(a.callback_query?.from).toEqual(tap.callback_query!.from);
    expect(b).toEqual(typed);
    expect(c).toBe(1_700_000_000_000);
    // The state given is not changed, and a compacted state comes back as it is.
    expect((tap.callback_query!.message as { text?: string }).text).toContain("How many stars?");
    expect(compactFlowState(compacted)).toBe(compacted);
  });
});

describe("the flows' state in the session", () => {
  let h: BotHarness;
  beforeEach(async () => {
    h = await startBotHarness({ DEFAULT_LOCALE: "en" });
  });
  afterEach(async () => {
    await h.close();
  });

  it("logs a question and the answer to the press that led to it as one step", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    await h.send(callbackUpdate(ALICE, h.tg.button("100 ⭐").data));
    await h.send(callbackUpdate(ALICE, h.tg.button("‹ Back").data));
    expect(h.tg.lastText()).toContain("How many stars?");
    // Every press was answered, once, after its screen was shown.
    expect(h.tg.of("answerCallbackQuery")).toHaveLength(3);
    expect(h.tg.calls.at(-1)?.method).toBe("answerCallbackQuery");
    const stored = JSON.parse((await h.redis.get(sessionKey(h.config.redisChatPrefix, ALICE.id)))!);
    const ops = (stored.__flows.state.stars[0].replay.send as { payload: string }[]).map((o) => o.payload);
    // Replayed at every later step: the answers are not steps of their own.
    expect(ops).not.toContain("answerCallbackQuery");
    expect(ops.filter((o) => o === "wait")).toHaveLength(4);
  });

  it("answers a press that changes nothing (the page counter) without a Bot API step in the log", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("🎁 Gifts").data));
    const answered = h.tg.of("answerCallbackQuery").length;
    await h.send(callbackUpdate(ALICE, h.tg.button("1/2").data));
    expect(h.tg.of("answerCallbackQuery")).toHaveLength(answered + 1);
    const stored = JSON.parse((await h.redis.get(sessionKey(h.config.redisChatPrefix, ALICE.id)))!);
    const ops = (stored.__flows.state.gift[0].replay.send as { payload: string }[]).map((o) => o.payload);
    expect(ops.filter((o) => o !== "wait" && o !== "external")).toEqual([]);
  });

  it("leaves a flow the customer comes back to after FLOW_IDLE_MS, and logs no clock reads", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(callbackUpdate(ALICE, h.tg.button("⭐ Telegram Stars").data));
    const key = sessionKey(h.config.redisChatPrefix, ALICE.id);
    const session = JSON.parse((await h.redis.get(key))!);
    expect(session.__flowsAt).toBeGreaterThan(Date.now() - 60_000);
    const ops = (session.__flows.state.stars[0].replay.send as { payload: string }[]).map((o) => o.payload);
    // The flow's first question: the onSale read and the message, no clock reads around the wait.
    expect(ops).toEqual(["wait", "external", "external", "wait"]);
    const fifty = h.tg.button("50 ⭐").data;

    // A minute short of the limit the flow still takes the answer.
    await h.redis.set(key, JSON.stringify({ ...session, __flowsAt: Date.now() - FLOW_IDLE_MS + 60_000 }));
    await h.send(callbackUpdate(ALICE, fifty));
    expect(h.tg.lastText()).toContain("Who gets it?");

    // Past the limit the flow is gone: its button answers as a stale one and nothing is quoted.
    const later = JSON.parse((await h.redis.get(key))!);
    await h.redis.set(key, JSON.stringify({ ...later, __flowsAt: Date.now() - FLOW_IDLE_MS - 1 }));
    await h.send(callbackUpdate(ALICE, h.tg.button(/^🙋 To myself/).data));
    expect(h.tg.last("answerCallbackQuery")?.payload.text).toBe("This button is no longer active.");
    expect(h.orders.quotes).toHaveLength(0);
    const left = JSON.parse((await h.redis.get(key))!);
    expect(left.__flows).toBeUndefined();
    expect(left.__flowsAt).toBeUndefined();
  });

  it("is stored without the buttons' messages and replays from there to the quote", async () => {
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(richTap(h.tg.button("⭐ Telegram Stars").data, 100));
    await h.send(richTap(h.tg.button("100 ⭐").data, 100));
    const stored = await h.redis.get(sessionKey(h.config.redisChatPrefix, ALICE.id));
    expect(stored).toContain('"f:1:c');
    expect(stored).not.toContain("inline_keyboard");
    expect(stored).not.toContain("How many stars?");
    // The flow goes on from the stored log: the recipient question was asked, the quote follows.
    expect(h.tg.lastText()).toContain("Who gets it?");
    await h.send(richTap(h.tg.button(/^🙋 To myself/).data, 100));
    expect(h.orders.quotes).toHaveLength(1);
    expect(h.orders.quotes[0]!.item).toMatchObject({ kind: "stars", quantity: 100 });
  });
});
