import { autoRetry } from "@grammyjs/auto-retry";
import { Bot, GrammyError } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import { TOKEN } from "./harness.js";

describe("flood limits", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  beforeEach(async () => {
    emulator = await startTelegramEmulator({
      token: TOKEN,
      rateLimits: { globalPerSecond: 3, perChatPerSecond: 1 },
    });
    bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    for (const id of [6001, 6002, 6003, 6004]) emulator.user({ id }).startChat();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("answers 429 with retry_after when one chat gets a second message right away", async () => {
    await bot.api.sendMessage(6001, "first");
    const error = await bot.api.sendMessage(6001, "second").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(429);
    expect((error as GrammyError).description).toMatch(/^Too Many Requests: retry after \d+$/);
    expect((error as GrammyError).parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect(emulator.stats().rateLimited).toBe(1);
    expect(emulator.calls("sendMessage").map((c) => c.ok)).toEqual([true, false]);
    expect(
      emulator
        .user({ id: 6001 })
        .botMessages()
        .map((m) => m.text),
    ).toEqual(["first"]);
  });

  it("limits sends over all chats and leaves other methods alone", async () => {
    const results = [];
    for (const id of [6001, 6002, 6003, 6004]) {
      results.push(
        await bot.api.sendMessage(id, "news").then(
          () => "sent",
          (e: GrammyError) => e.error_code,
        ),
      );
    }
    expect(results).toEqual(["sent", "sent", "sent", 429]);
    await bot.api.sendChatAction(6004, "typing");
    expect(emulator.stats().rateLimited).toBe(1);
  });

  it("lets @grammyjs/auto-retry get through after waiting retry_after", async () => {
    bot.api.config.use(autoRetry());
    await bot.api.sendMessage(6001, "one");
    await bot.api.sendMessage(6001, "two");
    expect(
      emulator
        .user({ id: 6001 })
        .botMessages()
        .map((m) => m.text),
    ).toEqual(["one", "two"]);
    expect(emulator.stats().rateLimited).toBeGreaterThanOrEqual(1);
  });

  it("stops limiting when the limits are switched off", async () => {
    emulator.setRateLimits(false);
    for (let i = 0; i < 5; i++) await bot.api.sendMessage(6002, `n${i}`);
    expect(emulator.stats().rateLimited).toBe(0);
  });
});

describe("bot commands", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("keeps command lists per scope and language", async () => {
    await bot.api.setMyCommands([{ command: "start", description: "Start" }]);
    await bot.api.setMyCommands([{ command: "start", description: "Начать" }], { language_code: "ru" });
    await bot.api.setMyCommands([{ command: "orders", description: "Operator orders" }], {
      scope: { type: "chat", chat_id: 777 },
    });

    expect(emulator.commands()).toEqual([{ command: "start", description: "Start" }]);
    expect(emulator.commands(undefined, "ru")).toEqual([{ command: "start", description: "Начать" }]);
    expect(emulator.commands({ type: "chat", chat_id: 777 })).toEqual([
      { command: "orders", description: "Operator orders" },
    ]);
    expect(emulator.commands({ type: "all_private_chats" })).toEqual([]);
    expect(await bot.api.getMyCommands({ language_code: "ru" })).toEqual([
      { command: "start", description: "Начать" },
    ]);

    await bot.api.deleteMyCommands({ language_code: "ru" });
    expect(emulator.commands(undefined, "ru")).toEqual([]);
  });

  it("rejects command names Telegram does not allow", async () => {
    const error = await bot.api
      .setMyCommands([{ command: "Start-Now", description: "x" }])
      .catch((e: unknown) => e);
    expect((error as GrammyError).description).toBe("Bad Request: BOT_COMMAND_INVALID");
  });
});
