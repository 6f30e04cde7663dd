import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Bot, webhookCallback } from "grammy";
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

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe("getUpdates", () => {
  let emulator: TelegramEmulator;
  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("hands out updates until an offset confirms them", async () => {
    const customer = emulator.user({ id: 4001, username: "ann_buyer", languageCode: "en" });
    await customer.sendText("/start now");
    await customer.sendText("second");
    const first = await api(emulator, "getUpdates");
    expect(first.result).toHaveLength(2);
    expect(first.result[0].message).toMatchObject({
      message_id: 1,
      from: { id: 4001, is_bot: false, username: "ann_buyer", language_code: "en" },
      chat: { id: 4001, type: "private" },
      text: "/start now",
      entities: [{ type: "bot_command", offset: 0, length: 6 }],
    });
    const again = await api(emulator, "getUpdates", { limit: 1 });
    expect(again.result.map((u: Json) => u.update_id)).toEqual([first.result[0].update_id]);
    const confirmed = await api(emulator, "getUpdates", { offset: first.result[1].update_id + 1 });
    expect(confirmed.result).toEqual([]);
  });

  it("holds a long poll open until an update arrives", async () => {
    const customer = emulator.user({ id: 4002 });
    const poll = api(emulator, "getUpdates", { timeout: 30 });
    await customer.sendText("wake up");
    const answer = await poll;
    expect(answer.result.map((u: Json) => u.message.text)).toEqual(["wake up"]);
  });

  it("ends a long poll with an empty list when the emulator closes", async () => {
    const poll = api(emulator, "getUpdates", { timeout: 30 });
    await expect.poll(() => emulator.calls("getUpdates").length).toBe(1);
    await emulator.close();
    expect((await poll).result).toEqual([]);
  });

  it("answers 409 to the older of two concurrent long polls", async () => {
    const older = api(emulator, "getUpdates", { timeout: 30 });
    await expect.poll(() => emulator.calls("getUpdates").length).toBe(1);
    const newer = api(emulator, "getUpdates", { timeout: 30 });
    expect(await older).toMatchObject({ ok: false, error_code: 409 });
    await emulator.user({ id: 4003 }).sendText("x");
    expect((await newer).ok).toBe(true);
  });

  it("drops update kinds left out of allowed_updates", async () => {
    const customer = emulator.user({ id: 4004 });
    await customer.sendText("text");
    await customer.sendUpdate({ message: { sticker: { file_id: "s1", emoji: "👍" } } });
    await customer.sendUpdate({ message_reaction: { chat: { id: 4004 }, message_id: 1 } });
    await customer.sendUpdate({ inline_query: { id: "q", from: { id: 4004 }, query: "", offset: "" } });
    const defaults = await api(emulator, "getUpdates");
    // message_reaction is not delivered unless asked for, as on Telegram.
    expect(defaults.result.map((u: Json) => Object.keys(u)[1])).toEqual([
      "message",
      "message",
      "inline_query",
    ]);
    expect(defaults.result[1].message).toMatchObject({
      message_id: 2,
      from: { id: 4004 },
      sticker: { file_id: "s1" },
    });

    await customer.sendText("more");
    await customer.sendUpdate({ inline_query: { id: "q2", from: { id: 4004 }, query: "", offset: "" } });
    const onlyMessages = await api(emulator, "getUpdates", {
      offset: defaults.result[2].update_id + 1,
      allowed_updates: ["message"],
    });
    expect(onlyMessages.result.map((u: Json) => u.message?.text)).toEqual(["more"]);
  });
});

describe("webhooks", () => {
  let emulator: TelegramEmulator;
  let receiver: Server | undefined;
  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
  });
  afterEach(async () => {
    await emulator.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve) ?? resolve(undefined));
    receiver = undefined;
  });

  it("POSTs updates in order with the secret header, retries a failing receiver and blocks getUpdates", async () => {
    const received: { headers: IncomingHttpHeaders; update: Json }[] = [];
    let failuresLeft = 2;
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          res.writeHead(500).end();
          return;
        }
        received.push({ headers: req.headers, update: JSON.parse(Buffer.concat(chunks).toString()) });
        res.writeHead(200).end();
      });
    });
    const url = await listen(receiver);
    expect(await api(emulator, "setWebhook", { url, secret_token: "s3cret-Token_1" })).toEqual({
      ok: true,
      result: true,
    });
    expect(emulator.webhook()).toEqual({ url, secretToken: "s3cret-Token_1" });
    expect(await api(emulator, "getUpdates")).toMatchObject({ ok: false, error_code: 409 });

    const customer = emulator.user({ id: 5001 });
    await customer.sendText("one");
    await customer.sendText("two");
    await expect.poll(() => received.length).toBe(2);
    expect(received.map((r) => r.update.message.text)).toEqual(["one", "two"]);
    expect(received[0]?.headers["x-telegram-bot-api-secret-token"]).toBe("s3cret-Token_1");

    const info = await api(emulator, "getWebhookInfo");
    expect(info.result).toMatchObject({ url, pending_update_count: 0 });
    expect(info.result.last_error_message).toMatch(/500/);

    await api(emulator, "deleteWebhook");
    expect(emulator.webhook()).toBeNull();
    expect((await api(emulator, "getUpdates")).ok).toBe(true);
  });

  it("drives a grammY webhookCallback bot, which checks the secret token", async () => {
    const bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    await bot.init();
    receiver = createServer(webhookCallback(bot, "http", { secretToken: "hook_secret" }));
    const url = await listen(receiver);
    await bot.api.setWebhook(url, { secret_token: "hook_secret" });
    const customer = emulator.user({ id: 5002 });
    await customer.sendText("via webhook");
    await customer.waitForBotMessage("echo: via webhook");

    // With the wrong secret grammY answers 401 and the emulator keeps the update and retries.
    await bot.api.setWebhook(url, { secret_token: "wrong_secret" });
    await customer.sendText("lost");
    await expect
      .poll(async () => (await api(emulator, "getWebhookInfo")).result.last_error_message)
      .toMatch(/401/);
    expect((await api(emulator, "getWebhookInfo")).result.pending_update_count).toBe(1);
  });

  it("rejects a webhook URL that is not HTTP(S) and a secret with unallowed characters", async () => {
    expect((await api(emulator, "setWebhook", { url: "ftp://example.com" })).description).toMatch(
      /HTTPS URL/,
    );
    expect(
      (await api(emulator, "setWebhook", { url: "https://example.com", secret_token: "a b" })).description,
    ).toBe("Bad Request: secret token contains unallowed characters");
  });
});
