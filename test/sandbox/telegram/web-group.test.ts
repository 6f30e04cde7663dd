/**
 * The web chat's view of a group chat (the demo's operators' forum): the group listed in the config,
 * its topics and messages, a member writing into a topic or replying, pressing a button there, the
 * event stream, and the refusals that change nothing.
 */
import { Bot, InlineKeyboard } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import type { WebChatGroupSnapshot } from "../../../sandbox/telegram/web/api.js";
import { startPolling, TOKEN } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely inside assertions.
type Json = Record<string, any>;

const GROUP = -1001000000001;
const OPERATOR = 9001;

/** A bot that answers in the group: where a message came from, and a button press by editing its message. */
function createGroupBot(apiRoot: string): Bot {
  const bot = new Bot(TOKEN, { client: { apiRoot } });
  bot.on("message:text", async (ctx) => {
    if (ctx.chat.id !== GROUP) return;
    const where = ctx.message.message_thread_id ?? 0;
    const reply = ctx.message.reply_to_message?.message_id ?? 0;
    await ctx.reply(
      `got "${ctx.message.text}" from ${ctx.from.first_name} in ${where} replying to ${reply}`,
      {
        ...(ctx.message.message_thread_id ? { message_thread_id: ctx.message.message_thread_id } : {}),
      },
    );
  });
  bot.callbackQuery("done", async (ctx) => {
    await ctx.answerCallbackQuery({ text: `done by ${ctx.from.id}` });
    await ctx.editMessageText(`Alert handled by ${ctx.from.first_name}`);
  });
  return bot;
}

describe("the web chat's group view", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  let stopBot: () => Promise<void>;
  let base: string;
  let topic: number;
  let alertId: number;

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const group = async (): Promise<WebChatGroupSnapshot> =>
    (await (await fetch(`${base}/demo/api/group?id=${GROUP}`)).json()) as WebChatGroupSnapshot;
  const waitForGroup = async (predicate: (g: WebChatGroupSnapshot) => boolean) => {
    const until = Date.now() + 5000;
    for (;;) {
      const snapshot = await group();
      if (predicate(snapshot)) return snapshot;
      if (Date.now() > until) throw new Error(`group never matched: ${JSON.stringify(snapshot, null, 2)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const botSaid = (text: string) => (g: WebChatGroupSnapshot) =>
    g.messages.some((m) => m.from === "bot" && m.text?.includes(text));

  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    base = emulator.apiRoot;
    emulator
      .group({ id: GROUP, title: "Shop operators", forum: true })
      .member({ id: OPERATOR, firstName: "Oleg" });
    bot = createGroupBot(emulator.apiRoot);
    topic = (await bot.api.createForumTopic(GROUP, "Failed deliveries")).message_thread_id;
    alertId = (
      await bot.api.sendMessage(GROUP, "Order #A1 failed", {
        message_thread_id: topic,
        reply_markup: new InlineKeyboard().text("Mark refunded", "done"),
      })
    ).message_id;
    stopBot = await startPolling(bot);
  });

  afterEach(async () => {
    await stopBot();
    await emulator.close();
  });

  it("lists the group in the config and shows its topics and messages, each with its topic", async () => {
    const config = (await (await fetch(`${base}/demo/api/config`)).json()) as Json;
    expect(config.groups).toEqual([{ id: GROUP, title: "Shop operators", isForum: true }]);

    const snapshot = await group();
    expect(snapshot.group).toEqual({ id: GROUP, title: "Shop operators", isForum: true });
    expect(snapshot.topics).toEqual([{ threadId: topic, name: "Failed deliveries" }]);
    expect(snapshot.messages).toMatchObject([
      { id: topic, from: "bot", topicCreated: "Failed deliveries", threadId: topic },
      {
        id: alertId,
        from: "bot",
        text: "Order #A1 failed",
        threadId: topic,
        keyboard: [[{ text: "Mark refunded", type: "callback", data: "done" }]],
      },
    ]);
  });

  it("writes into a topic and replies to a message as a member; the bot gets both with their place", async () => {
    const inTopic = await post("/demo/api/send", {
      user: OPERATOR,
      group: GROUP,
      threadId: topic,
      text: "looking",
    });
    expect(inTopic).toEqual({ status: 200, body: { ok: true } });
    await waitForGroup(botSaid(`got "looking" from Oleg in ${topic} replying to ${topic}`));

    const reply = await post("/demo/api/send", {
      user: OPERATOR,
      group: GROUP,
      replyTo: alertId,
      text: "refunding",
    });
    expect(reply.status).toBe(200);
    const snapshot = await waitForGroup(
      botSaid(`got "refunding" from Oleg in ${topic} replying to ${alertId}`),
    );
    expect(snapshot.messages.find((m) => m.text === "refunding")).toMatchObject({
      from: "user",
      sender: "Oleg",
      threadId: topic,
      replyTo: alertId,
    });

    await post("/demo/api/send", { user: OPERATOR, group: GROUP, text: "hello all" });
    await waitForGroup(botSaid(`got "hello all" from Oleg in 0 replying to 0`));
    expect((await group()).messages.find((m) => m.text === "hello all")?.threadId).toBeUndefined();
  });

  it("presses an inline button of a group message as the member and shows the bot's edit", async () => {
    const pressed = await post("/demo/api/press", {
      user: OPERATOR,
      group: GROUP,
      messageId: alertId,
      data: "done",
    });
    expect(pressed).toEqual({ status: 200, body: { ok: true, answer: { text: `done by ${OPERATOR}` } } });
    const snapshot = await waitForGroup(botSaid("Alert handled by Oleg"));
    expect(snapshot.messages.find((m) => m.id === alertId)).toMatchObject({ edited: true, threadId: topic });
  });

  it("streams the group's snapshot over Server-Sent Events when it changes", async () => {
    const abort = new AbortController();
    const res = await fetch(`${base}/demo/api/events?group=${GROUP}`, { signal: abort.signal });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const nextSnapshot = async (): Promise<WebChatGroupSnapshot> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event);
          if (/^event: chat$/m.test(event) && data) return JSON.parse(data[1]!) as WebChatGroupSnapshot;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the event stream ended");
        buffer += value;
      }
    };
    try {
      expect((await nextSnapshot()).messages).toHaveLength(2);
      await post("/demo/api/send", { user: OPERATOR, group: GROUP, threadId: topic, text: "ping" });
      let snapshot = await nextSnapshot();
      while (!botSaid('got "ping"')(snapshot)) snapshot = await nextSnapshot();
      expect(snapshot.group.id).toBe(GROUP);
    } finally {
      abort.abort();
    }
  });

  it("refuses bad group requests with a status and a reason, and adds nothing to the group", async () => {
    const other = (await bot.api.createForumTopic(GROUP, "Deposit")).message_thread_id;
    const before = (await group()).messages.length;
    const send = (body: Json) => post("/demo/api/send", { user: OPERATOR, group: GROUP, text: "x", ...body });

    expect((await send({ user: 1001 })).status).toBe(403);
    expect((await send({ user: 1001 })).body.error).toMatch(/not a member/);
    expect((await send({ group: -42 })).status).toBe(404);
    expect((await send({ group: 5 })).body.error).toMatch(/group must be a group chat id/);
    expect((await send({ group: "abc" })).status).toBe(400);
    expect((await send({ threadId: 99_999 })).status).toBe(404);
    expect((await send({ threadId: -3 })).status).toBe(400);
    expect((await send({ replyTo: 99_999 })).status).toBe(404);
    const elsewhere = await send({ threadId: other, replyTo: alertId });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatch(/not in topic/);
    const press = (body: Json) =>
      post("/demo/api/press", { user: OPERATOR, group: GROUP, messageId: alertId, data: "done", ...body });
    expect((await press({ user: 1001 })).status).toBe(403);
    expect((await press({ messageId: 99_999 })).status).toBe(404);
    expect((await fetch(`${base}/demo/api/group?id=-42`)).status).toBe(404);
    expect((await fetch(`${base}/demo/api/group?id=7`)).status).toBe(400);
    expect((await fetch(`${base}/demo/api/events?group=-42`)).status).toBe(404);

    const after = await group();
    expect(after.messages).toHaveLength(before);
    expect(after.messages.find((m) => m.id === alertId)?.edited).toBe(false);
  });
});
