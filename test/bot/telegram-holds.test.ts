import { Api, GrammyError } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator } from "../../sandbox/telegram/index.js";
import { TelegramHolds } from "../../src/bot/telegram-holds.js";
import { createTelegramTransport } from "../../src/bot/telegram-transport.js";
import { createLogger } from "../../src/logger.js";
import { eventually } from "../helpers/recording-notifier.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
let a: Redis;
let b: Redis;
beforeAll(() => {
  a = testRedis();
  b = testRedis();
});
afterAll(async () => {
  await Promise.all([a.quit(), b.quit()]);
});

describe("Telegram's 429 holds", () => {
  it("holds back another process's sends into a chat once one process was told to wait", async () => {
    const prefix = uniquePrefix("holds");
    const first = new TelegramHolds(a, prefix, logger);
    const second = new TelegramHolds(b, prefix, logger);
    first.start();
    second.start();
    try {
      await eventually(
        async () => (await a.pubsub("NUMSUB", `${prefix}tg-holds`))[1] === 2,
        5000,
        "both listening",
      );
      const before = Date.now();
      first.note(42, 3);
      await eventually(async () => second.until(42) > before, 5000, "the other process to learn of the hold");
      expect(second.until(42)).toBeGreaterThanOrEqual(before + 3000);
      // Another chat is not held; a chat-less call is not either.
      expect(second.until(43)).toBe(0);
      expect(second.until(undefined)).toBe(0);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it("holds every chat when Telegram answers 429 in several chats at once", async () => {
    const holds = new TelegramHolds(undefined, uniquePrefix("holds"), logger);
    holds.note(1, 2);
    holds.note(2, 2);
    expect(holds.until(3)).toBe(0);
    holds.note(3, 2);
    expect(holds.until(99)).toBeGreaterThan(Date.now());
  });

  it("records the retry_after of a 429 from Telegram as a hold on that chat, and sends again after it", async () => {
    const token = "123456:HoldsTestToken";
    const emulator = await startTelegramEmulator({
      token,
      rateLimits: { globalPerSecond: 30, perChatPerSecond: 1 },
    });
    const holds = new TelegramHolds(undefined, uniquePrefix("holds"), logger);
    const transport = createTelegramTransport(holds);
    const api = new Api(token, { apiRoot: emulator.apiRoot, fetch: transport.fetch });
    const customer = emulator.user({ id: 77, username: "held_buyer", languageCode: "en" });
    await customer.sendText("/start");
    try {
      await api.sendMessage(77, "first");
      const refused = await api.sendMessage(77, "second").catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(GrammyError);
      expect((refused as GrammyError).error_code).toBe(429);
      const heldUntil = holds.until(77);
      expect(heldUntil).toBeGreaterThan(Date.now());
      expect(holds.until(78)).toBe(0);
      // The next send into that chat waits out the hold by itself, and then goes through.
      const sent = await api.sendMessage(77, "third");
      expect(sent.text).toBe("third");
      expect(Date.now()).toBeGreaterThanOrEqual(heldUntil);
    } finally {
      await transport.close();
      await emulator.close();
    }
  });
});
