import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import { TOKEN } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: raw Bot API answers are read loosely inside assertions.
type Json = Record<string, any>;

async function api(emulator: TelegramEmulator, method: string, body: Json = {}): Promise<Json> {
  const response = await fetch(`${emulator.apiRoot}/bot${TOKEN}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Json;
}

async function updates(emulator: TelegramEmulator): Promise<Json[]> {
  const got = await api(emulator, "getUpdates");
  const list = got.result as Json[];
  if (list.length > 0) await api(emulator, "getUpdates", { offset: list.at(-1)!.update_id + 1 });
  return list;
}

describe("group chats", () => {
  let emulator: TelegramEmulator;
  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("a plain supergroup: the bot writes, a member replies, the bot gets the reply with the message replied to", async () => {
    const group = emulator.group({ id: -1001234, title: "Ops" });
    const ann = group.member({ id: 501, firstName: "Ann", username: "ann_ops" });
    const sent = await api(emulator, "sendMessage", { chat_id: -1001234, text: "an alert" });
    expect(sent.result.chat).toEqual({ id: -1001234, type: "supergroup", title: "Ops" });

    await ann.sendText("on it", { replyTo: sent.result.message_id });
    const [update] = await updates(emulator);
    expect(update!.message).toMatchObject({
      from: { id: 501, first_name: "Ann", username: "ann_ops" },
      chat: { id: -1001234, type: "supergroup" },
      text: "on it",
      reply_to_message: { message_id: sent.result.message_id, text: "an alert", from: { is_bot: true } },
    });
    expect(group.messages().map((m) => [m.from, m.text, m.senderId])).toEqual([
      ["bot", "an alert", undefined],
      ["user", "on it", 501],
    ]);
    // A thread id in a chat that is not a forum names nothing.
    const bad = await api(emulator, "sendMessage", { chat_id: -1001234, text: "x", message_thread_id: 5 });
    expect(bad).toMatchObject({ ok: false, description: "Bad Request: message thread not found" });
    expect(await api(emulator, "createForumTopic", { chat_id: -1001234, name: "t" })).toMatchObject({
      ok: false,
      description: "Bad Request: the chat is not a forum",
    });
  });

  it("a forum: topics, messages in a topic, copies and forwards, a deleted topic", async () => {
    const group = emulator.group({ id: -1005678, forum: true });
    const bob = group.member({ id: 502, firstName: "Bob" });
    const customer = emulator.user({ id: 9001, firstName: "Cid" });
    await customer.sendText("hello shop");
    await updates(emulator);

    const topic = await api(emulator, "createForumTopic", { chat_id: -1005678, name: "Alerts" });
    const threadId = topic.result.message_thread_id as number;
    expect(topic.result.name).toBe("Alerts");
    expect(group.topics()).toEqual([{ threadId, name: "Alerts", deleted: false }]);

    const inTopic = await api(emulator, "sendMessage", {
      chat_id: -1005678,
      text: "low balance",
      message_thread_id: threadId,
    });
    expect(inTopic.result).toMatchObject({ message_thread_id: threadId, is_topic_message: true });
    const copy = await api(emulator, "copyMessage", {
      chat_id: -1005678,
      from_chat_id: 9001,
      message_id: 1,
      message_thread_id: threadId,
    });
    const forward = await api(emulator, "forwardMessage", {
      chat_id: -1005678,
      from_chat_id: 9001,
      message_id: 1,
    });
    expect(forward.result.forward_origin).toMatchObject({ sender_user: { id: 9001 } });
    expect(group.messages(threadId).map((m) => m.text)).toEqual([undefined, "low balance", "hello shop"]);
    expect(group.messages(threadId)[2]!.messageId).toBe(copy.result.message_id);
    expect(group.messages(0).map((m) => [m.text, m.forwarded])).toEqual([["hello shop", true]]);

    // A member's message in the topic replies to the topic's creation, as Telegram delivers it.
    await bob.sendText("seen", { threadId });
    const [update] = await updates(emulator);
    expect(update!.message).toMatchObject({
      message_thread_id: threadId,
      is_topic_message: true,
      reply_to_message: { message_id: threadId, forum_topic_created: { name: "Alerts" } },
    });

    group.deleteTopic(threadId);
    const gone = await api(emulator, "sendMessage", {
      chat_id: -1005678,
      text: "x",
      message_thread_id: threadId,
    });
    expect(gone).toMatchObject({ ok: false, description: "Bad Request: message thread not found" });
    expect(group.topics()[0]!.deleted).toBe(true);
  });

  it("a member presses a button in the group: the callback names the member and the group message", async () => {
    const group = emulator.group({ id: -1009999 });
    const eve = group.member({ id: 503 });
    const sent = await api(emulator, "sendMessage", {
      chat_id: -1009999,
      text: "alert",
      reply_markup: { inline_keyboard: [[{ text: "Open", callback_data: "op:o:1" }]] },
    });
    const press = eve.pressButton("Open", { timeoutMs: 1_000 });
    let query: Json | undefined;
    for (let i = 0; i < 50 && !query; i++) {
      query = (await updates(emulator)).find((u) => u.callback_query)?.callback_query;
      if (!query) await new Promise((r) => setTimeout(r, 20));
    }
    expect(query).toMatchObject({
      from: { id: 503 },
      data: "op:o:1",
      message: { message_id: sent.result.message_id, chat: { id: -1009999, type: "supergroup" } },
    });
    await api(emulator, "answerCallbackQuery", { callback_query_id: query!.id, text: "ok" });
    expect((await press).callbackAnswer).toEqual({ text: "ok" });
  });
});
