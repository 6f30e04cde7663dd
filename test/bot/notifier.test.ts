import { Api } from "grammy";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configureApi } from "../../src/bot/api.js";
import { createNotifier } from "../../src/bot/notifier.js";
import { createConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import type { Notifier } from "../../src/orders/types.js";
import { order } from "../helpers/orders.js";
import { testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { TelegramRecorder } from "./helpers/telegram-recorder.js";

let tg: TelegramRecorder;
let redis: Redis;
let notifier: Notifier;
let prefix: string;

beforeAll(async () => {
  tg = await new TelegramRecorder().start();
  redis = new Redis(testRedisUrl());
  prefix = uniquePrefix("notifier");
  const config = createConfig({
    BOT_TOKEN: "1:T",
    TELEGRAM_API_ROOT: tg.url,
    RESELLER_API_URL: "http://127.0.0.1:9",
    RESELLER_API_KEY: "k",
    OPERATOR_IDS: "7001,7002",
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: prefix,
    DEFAULT_LOCALE: "ru",
  });
  const logger = createLogger({ level: "silent" });
  const api = new Api(config.botToken, { apiRoot: config.telegramApiRoot });
  configureApi(api);
  notifier = createNotifier({ api, config, logger, redis });
});
afterAll(async () => {
  await tg.stop();
  await redis.quit();
});
beforeEach(() => tg.reset());

describe("the notifier", () => {
  it("edits the card in place and removes its buttons", async () => {
    const id = await notifier.updateCard(order({ cardMessageId: 55 }));
    expect(id).toBe(55);
    const edit = tg.last("editMessageText")!.payload;
    expect(edit).toMatchObject({
      chat_id: 5001,
      message_id: 55,
      parse_mode: "HTML",
      reply_markup: { inline_keyboard: [] },
    });
    expect(edit.text).toContain("🚚 Being delivered…");
  });

  it("treats 'message is not modified' as done", async () => {
    tg.fail("editMessageText", 400, "Bad Request: message is not modified");
    expect(await notifier.updateCard(order({ cardMessageId: 55 }))).toBe(55);
    expect(tg.of("sendMessage")).toHaveLength(0);
  });

  it("sends a new card when the old one is gone or there is none", async () => {
    tg.fail("editMessageText", 400, "Bad Request: message to edit not found");
    const replaced = await notifier.updateCard(order({ cardMessageId: 55 }));
    expect(replaced).toBeTypeOf("number");
    expect(replaced).not.toBe(55);
    expect(await notifier.updateCard(order())).toBeTypeOf("number");
    expect(tg.of("sendMessage")).toHaveLength(2);
  });

  it("sends the final message with the delivered payload", async () => {
    await notifier.sendFinal(order({ state: "delivered", deliveredPayload: { tx_hash: "abc" } }));
    expect(tg.last("sendMessage")?.payload.text).toContain("Transaction: <code>abc</code>");
  });

  it("sends a final message Telegram refuses for its HTML again as plain text, and the card too", async () => {
    const o = order({ state: "delivered", deliveredPayload: { tx_hash: "abc" } });
    tg.fail(
      "sendMessage",
      400,
      'Bad Request: can\'t parse entities: unsupported start tag "x" at byte offset 9',
    );
    await notifier.sendFinal(o);
    const [refused, plain] = tg.of("sendMessage");
    expect(refused?.payload.parse_mode).toBe("HTML");
    expect(plain?.payload.parse_mode).toBeUndefined();
    expect(plain?.payload.text).toContain("Transaction: abc");
    expect(plain?.payload.text).not.toContain("<code>");

    tg.reset();
    tg.fail("editMessageText", 400, "Bad Request: MESSAGE_TOO_LONG");
    expect(await notifier.updateCard(order({ cardMessageId: 55 }))).toBe(55);
    const [, edited] = tg.of("editMessageText");
    expect(edited?.payload.parse_mode).toBeUndefined();
    expect(edited?.payload.text).toContain("Being delivered…");
    expect(edited?.payload.reply_markup).toEqual({ inline_keyboard: [] });
  });

  it("tells a refusal of the call (400) from a blocked chat", async () => {
    tg.fail("sendMessage", 400, "Bad Request: BUTTON_DATA_INVALID");
    const refused = await notifier.sendFinal(order({ state: "delivered" })).catch((err: unknown) => err);
    expect(notifier.refused?.(refused)).toBe(true);
    tg.fail("sendMessage", 403, "Forbidden: bot was blocked by the user");
    const blocked = await notifier.sendFinal(order({ state: "delivered" })).catch((err: unknown) => err);
    expect(blocked).toBeInstanceOf(Error);
    expect(notifier.refused?.(blocked)).toBe(false);
    expect(notifier.unreachable?.(blocked)).toBe(true);
  });

  it("refunds Stars and treats an already refunded charge as done", async () => {
    await notifier.refundStars(5001, "ch-1");
    expect(tg.last("refundStarPayment")?.payload).toEqual({
      user_id: 5001,
      telegram_payment_charge_id: "ch-1",
    });
    tg.fail("refundStarPayment", 400, "Bad Request: CHARGE_ALREADY_REFUNDED");
    await expect(notifier.refundStars(5001, "ch-1")).resolves.toBeUndefined();
  });

  it("alerts every operator in their language and survives one who blocked the bot", async () => {
    await redis.set(`${prefix}session:7002`, JSON.stringify({ __language_code: "en" }));
    tg.fail("sendMessage", 403, "Forbidden: bot was blocked by the user");
    await notifier.alert({ kind: "delivery_failed", orderId: "x", details: { reason: "<boom>" } }, order());
    const sends = tg.of("sendMessage");
    expect(sends).toHaveLength(2);
    const toSecond = sends.find((s) => s.payload.chat_id === 7002)!;
    expect(toSecond.payload.text).toContain("<b>Delivery failed.</b>");
    expect(toSecond.payload.text).toContain("Reason: <i>&lt;boom&gt;</i>");
    expect(toSecond.payload.text).toContain("id <code>5001</code>");
    // Each alert opens the order's detail card.
    expect(JSON.stringify(toSecond.payload.reply_markup)).toContain(`op:o:`);
  });

  it("alerts an operator who never chose a language in the one their chat is answered in", async () => {
    // Operator 7001 chose nothing with /language; the bot answers them in English (their
    // Telegram language), as the customer registry recorded. The shop's default is Russian.
    await redis.del(`${prefix}session:7001`, `${prefix}session:7002`);
    await redis.hset(`${prefix}cust:7001`, "locale", "en");
    await notifier.alert({ kind: "delivery_failed", orderId: "x", details: { reason: "boom" } }, order());
    const to = (chat: number) =>
      String(tg.of("sendMessage").find((s) => s.payload.chat_id === chat)?.payload.text);
    expect(to(7001)).toContain("<b>Delivery failed.</b>");
    expect(to(7002)).not.toContain("Delivery failed.");
  });
});
