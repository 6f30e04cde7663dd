import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createBot } from "../../src/bot/index.js";
import { startBot } from "../../src/bot/lifecycle.js";
import { WebhookIntake } from "../../src/bot/webhook-intake.js";
import { type Config, createConfig } from "../../src/config.js";
import { telegramWebhookHandler } from "../../src/http/telegram-webhook.js";
import { createLogger } from "../../src/logger.js";
import { testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { FakeOrders, fakeCatalog, fakeReseller } from "./helpers/fakes.js";
import { BOT_INFO, TelegramRecorder } from "./helpers/telegram-recorder.js";
import { ALICE, textUpdate } from "./helpers/updates.js";

const logger = createLogger({ level: "silent" });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function setup(env: Record<string, string>) {
  const tg = await new TelegramRecorder().start();
  cleanups.push(() => tg.stop());
  const config: Config = createConfig({
    BOT_TOKEN: "123456:TEST",
    TELEGRAM_API_ROOT: tg.url,
    RESELLER_API_URL: "http://127.0.0.1:9",
    RESELLER_API_KEY: "k",
    OPERATOR_IDS: "7001",
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: uniquePrefix("start"),
    ...env,
  });
  const redis = new Redis(config.redisUrl);
  cleanups.push(() => redis.quit());
  const bot = createBot(
    { config, logger, redis, orders: new FakeOrders(), catalog: fakeCatalog(), reseller: fakeReseller },
    { botInfo: BOT_INFO },
  );
  return { tg, config, bot, redis };
}

describe("starting the bot", () => {
  it("registers customer commands in both languages and operator commands only in operators' chats", async () => {
    const { tg, config, bot } = await setup({
      BOT_MODE: "webhook",
      BOT_WEBHOOK_URL: "https://shop.example/webhooks/telegram",
      BOT_WEBHOOK_SECRET: "s3cret-token",
    });
    const handle = await startBot(bot, { config, logger });
    cleanups.push(() => handle.stop());
    const sets = tg.of("setMyCommands").map((c) => c.payload);
    const ru = sets.find((p) => p.language_code === "ru" && !p.scope)!;
    const en = sets.find((p) => p.language_code === "en" && !p.scope)!;
    expect((ru.commands as { command: string }[]).map((c) => c.command)).toEqual([
      "start",
      "orders",
      "language",
      "cancel",
      "help",
      "support",
      "paysupport",
    ]);
    expect((en.commands as { description: string }[])[1]?.description).toBe("My orders");
    expect((ru.commands as { description: string }[])[1]?.description).toBe("Мои заказы");
    const operator = sets.filter((p) => (p.scope as { chat_id?: number } | undefined)?.chat_id === 7001);
    expect(operator.length).toBeGreaterThan(0);
    expect((operator[0]!.commands as { command: string }[]).map((c) => c.command)).toContain("balance");
    expect(
      sets
        .filter((p) => !p.scope)
        .every((p) => !(p.commands as { command: string }[]).some((c) => c.command === "balance")),
    ).toBe(true);
    expect(tg.last("setWebhook")?.payload).toMatchObject({
      url: "https://shop.example/webhooks/telegram",
      secret_token: "s3cret-token",
      allowed_updates: ["message", "callback_query", "pre_checkout_query", "my_chat_member"],
    });
  });
});

describe("the Telegram webhook route", () => {
  async function serve(handler: ReturnType<typeof telegramWebhookHandler>): Promise<string> {
    const server: Server = createServer(handler);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/telegram`;
  }

  it("refuses a request without the right secret token and handles one with it", async () => {
    const { tg, config, bot, redis } = await setup({
      BOT_MODE: "webhook",
      BOT_WEBHOOK_URL: "https://shop.example/webhooks/telegram",
      BOT_WEBHOOK_SECRET: "s3cret-token",
    });
    const intake = new WebhookIntake({ redis, prefix: config.redisPrefix, receiver: bot, logger });
    intake.start();
    cleanups.push(() => intake.stop());
    const url = await serve(telegramWebhookHandler(intake, config));
    const body = JSON.stringify(textUpdate(ALICE, "/help"));
    const headers = { "content-type": "application/json" };
    expect((await fetch(url, { method: "POST", body, headers })).status).toBe(401);
    const wrong = await fetch(url, {
      method: "POST",
      body,
      headers: { ...headers, "x-telegram-bot-api-secret-token": "nope" },
    });
    expect(wrong.status).toBe(401);
    expect(tg.of("sendMessage")).toHaveLength(0);
    const bad = await fetch(url, {
      method: "POST",
      body: "{",
      headers: { ...headers, "x-telegram-bot-api-secret-token": "s3cret-token" },
    });
    expect(bad.status).toBe(400);
    // With the right secret, an update Telegram would never send is refused too, and nothing runs.
    for (const shape of [
      { update_id: 7_000_005, message: {} },
      { update_id: 7_000_006, message: "text" },
      { update_id: 7_000_007, my_chat_member: {} },
      { update_id: 7_000_008, callback_query: { id: "1", from: { id: 5 }, message: {} } },
      { update_id: 7_000_009, callback_query: { id: "1", from: "alice" } },
      [1, 2],
      { message: { chat: { id: 1 } } },
    ]) {
      const res = await fetch(url, {
        method: "POST",
        body: JSON.stringify(shape),
        headers: { ...headers, "x-telegram-bot-api-secret-token": "s3cret-token" },
      });
      expect(res.status, JSON.stringify(shape)).toBe(400);
    }
    const ok = await fetch(url, {
      method: "POST",
      body,
      headers: { ...headers, "x-telegram-bot-api-secret-token": "s3cret-token" },
    });
    expect(ok.status).toBe(200);
    const deadline = Date.now() + 5_000;
    while (tg.of("sendMessage").length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(String(tg.last("sendMessage")?.payload.text)).toContain("How it works");
  });
});
