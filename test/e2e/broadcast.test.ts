import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatUser, RecordedCall } from "../../sandbox/telegram/index.js";
import { type App, startApp } from "../../src/main.js";
import { outgoingKeys } from "../../src/outgoing/queue.js";
import {
  APP_OPERATOR_ID,
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  quoteStars,
  startAppHarness,
} from "../helpers/app-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * /broadcast end to end: the app as src/main.ts composes it, the Telegram emulator enforcing
 * Telegram's limits (30 sends/s, 1/s per chat; a send over them is answered 429), the operator
 * composing in the chat. Recipients are simulated users whose chats the registry knows (written
 * through the app's own registry: 2,000 customers tapping /start would only slow the test).
 */

const TEXT = "Big sale: -10% on Stars";
const LIMITS = { globalPerSecond: 30, perChatPerSecond: 1 };

let h: AppHarness | undefined;
let restarted: App | undefined;
afterEach(async () => {
  await restarted?.stop(2_000);
  restarted = undefined;
  await h?.close();
  h = undefined;
});

function operatorOf(harness: AppHarness): ChatUser {
  const op = harness.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
  op.startChat();
  return op;
}

/** Simulated customers with open chats, recorded in the registry as the bot would record them. */
async function customers(
  app: App,
  harness: AppHarness,
  from: number,
  count: number,
  locale: "en" | "ru",
  opts: { blocked?: boolean } = {},
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = from + i;
    const user = harness.telegram.user({ id, languageCode: locale });
    // Blocked before the chat opens: Telegram does not tell the bot, the first send finds out (403).
    if (opts.blocked) user.block();
    user.startChat();
    await app.customers.touch(id, locale);
    ids.push(id);
  }
  return ids;
}

/** Composes a broadcast of TEXT (bold first word, one URL button) up to its preview for `audience`. */
async function compose(op: ChatUser, audience: string | RegExp): Promise<string> {
  await op.sendText("/broadcast");
  await op.waitForBotMessage(/New broadcast/, 10_000);
  await op.sendUpdate({
    message: {
      text: `${TEXT}\nShop - https://example.com/shop`,
      entities: [{ type: "bold", offset: 0, length: 3 }],
    },
  });
  await op.waitForBotMessage(/Who should get it/, 10_000);
  await op.pressButton(audience, { timeoutMs: 10_000 });
  const preview = await op.waitForBotMessage(/Broadcast preview/, 10_000);
  return preview.text ?? "";
}

async function activeId(app: App): Promise<string> {
  const [id] = await app.redis.smembers(`${app.config.redisPrefix}bc:active`);
  if (!id) throw new Error("no active broadcast");
  return id;
}

async function figures(app: App, id: string) {
  const h = await app.redis.hgetall(`${app.config.redisPrefix}bc:${id}`);
  return {
    status: h.status,
    total: Number(h.total),
    sent: Number(h.sent),
    blocked: Number(h.blocked),
    failed: Number(h.failed),
    cursor: Number(h.cursor),
  };
}

/** The broadcast's messages Telegram accepted, in order, by chat. */
function broadcastSends(harness: AppHarness): RecordedCall[] {
  return harness.telegram.calls("sendMessage").filter((c) => c.ok && c.payload.text === TEXT);
}

async function queuedBroadcasts(app: App): Promise<string[]> {
  const { queue, leases } = outgoingKeys(app.config.redisPrefix);
  const [waiting, taken] = await Promise.all([
    app.redis.zrange(queue, 0, -1),
    app.redis.zrange(leases, 0, -1),
  ]);
  return [...waiting, ...taken].filter((m) => m.startsWith("bcast:"));
}

function noButtons(markup: unknown): boolean {
  return markup === undefined || JSON.stringify(markup) === '{"inline_keyboard":[]}';
}

/**
 * Broadcast messages Telegram refused to customers' chats other than `blocked` (a 429 would be
 * one). The operator's own chat is left out: their replies to taps go out at once, not paced.
 */
function refusedSends(harness: AppHarness, blocked: readonly number[] = []): RecordedCall[] {
  return harness.telegram
    .calls("sendMessage")
    .filter(
      (c) =>
        !c.ok &&
        c.payload.text === TEXT &&
        Number(c.payload.chat_id) !== APP_OPERATOR_ID &&
        !blocked.includes(Number(c.payload.chat_id)),
    );
}

const quiet = () =>
  new Writable({
    write(_chunk, _enc, cb) {
      cb();
    },
  });

describe("/broadcast", () => {
  it("sends 2,000 customers one message each at Telegram's pace, across a restart, behind a buyer's final message, and skips those who blocked the bot next time", async () => {
    h = await startAppHarness();
    const app1 = h.app;
    h.telegram.setRateLimits(LIMITS);
    const op = operatorOf(h);
    const english = await customers(app1, h, 820_000_001, 2_000, "en");
    const blocked = await customers(app1, h, 830_000_001, 3, "ru", { blocked: true });
    const russian = await customers(app1, h, 840_000_001, 2, "ru");

    // Everyone the registry knows: the customers and the operator, recorded by the bot itself.
    const preview = await compose(op, "Everyone");
    expect(preview).toContain("2,006 customers");

    await op.pressButton("🧪 Send me a test");
    const test = await op.waitForBotMessage(TEXT, 10_000);
    expect(test.replyMarkup).toEqual({
      inline_keyboard: [[{ text: "Shop", url: "https://example.com/shop" }]],
    });
    expect(broadcastSends(h)).toHaveLength(1);

    await op.pressButton(/^📣 Send to 2,?006/);
    const id = await activeId(app1);
    const key = `${app1.config.redisPrefix}bc:${id}`;

    // The queue holds a window of the broadcast, not all of it.
    await eventually(async () => (await figures(app1, id)).sent >= 100, 30_000, "first sends");
    const queued = await queuedBroadcasts(app1);
    expect(queued.length).toBeGreaterThan(0);
    expect(queued.length).toBeLessThanOrEqual(200);

    // A customer buys meanwhile: broadcast messages queued before the payment wait behind the final message.
    const buyer = newAppCustomer(h.telegram);
    await quoteStars(buyer);
    const queuedBeforePayment = await app1.redis.zrangebyscore(
      outgoingKeys(app1.config.redisPrefix).queue,
      3e13,
      "+inf",
    );
    expect(queuedBeforePayment.length).toBeGreaterThan(50);
    const paid = await buyer.payInvoice({ timeoutMs: 10_000 });
    expect(paid.ok).toBe(true);
    await buyer.waitForBotMessage(DELIVERED, 30_000);
    // Once every message that waited at the payment went out: some of them went after the final one.
    const waitingChats = new Set(queuedBeforePayment.map((m) => Number(m.split(":")[1])));
    await eventually(
      () =>
        broadcastSends(h!).filter((c) => waitingChats.has(Number(c.payload.chat_id))).length >=
        waitingChats.size,
      30_000,
      "the messages queued before the payment sent",
    );
    const calls = h.telegram.calls("sendMessage");
    const finalAt = calls.findIndex(
      (c) => c.ok && Number(c.payload.chat_id) === buyer.id && DELIVERED.test(String(c.payload.text)),
    );
    expect(finalAt).toBeGreaterThan(0);
    const sentAfterFinal = calls
      .slice(finalAt + 1)
      .filter((c) => c.ok && c.payload.text === TEXT && waitingChats.has(Number(c.payload.chat_id)));
    expect(sentAfterFinal.length).toBeGreaterThan(0);

    // A restart mid-way: the queue and each recipient's outcome are in Redis.
    await eventually(async () => (await figures(app1, id)).sent >= 700, 60_000, "700 sent");
    await app1.stop(5_000);
    restarted = await startApp(h.env, {
      logDestination: quiet(),
      engine: { leaseMs: 5_000, idleDelayMs: 20 },
    });
    const app2 = restarted;
    // Restarted mid-way.
    expect((await figures(app2, id)).sent).toBeLessThan(2_000);

    await eventually(async () => (await figures(app2, id)).status === "done", 150_000, "the broadcast done");
    expect(await figures(app2, id)).toMatchObject({ total: 2_006, sent: 2_003, blocked: 3, failed: 0 });
    expect(await app2.redis.exists(key)).toBe(1);

    // Each recipient once (the operator also got the test), none twice, none lost.
    const perChat = new Map<number, number>();
    for (const c of broadcastSends(h))
      perChat.set(Number(c.payload.chat_id), (perChat.get(Number(c.payload.chat_id)) ?? 0) + 1);
    for (const chat of [...english, ...russian]) expect(perChat.get(chat), `chat ${chat}`).toBe(1);
    expect(perChat.get(APP_OPERATOR_ID)).toBe(2);
    for (const chat of blocked) expect(perChat.get(chat)).toBeUndefined();
    // Paced: Telegram refused no broadcast message (no 429) but to those who blocked the bot.
    expect(refusedSends(h, blocked)).toEqual([]);

    // The operator's message shows the final figures, without buttons.
    const progress = await op.waitFor(
      (msgs) => msgs.some((m) => /finished/.test(m.text ?? "") && /Blocked the bot: 3/.test(m.text ?? "")),
      10_000,
    );
    const final = progress.find((m) => /finished/.test(m.text ?? ""));
    expect(final?.text).toMatch(/Sent: 2,003/);
    expect(final?.text).toMatch(/Failed: 0/);
    expect(noButtons(final?.replyMarkup)).toBe(true);

    // The blocked customers are marked, and the next broadcast leaves them out.
    expect(await app2.customers.blocked()).toEqual(new Set(blocked));
    const attemptsBefore = h.telegram
      .calls("sendMessage")
      .filter((c) => blocked.includes(Number(c.payload.chat_id))).length;
    const next = await compose(op, "Language: ru");
    expect(next).toContain("2 customers");
    await op.pressButton(/^📣 Send to 2/);
    const second = await op.waitFor(
      (msgs) => msgs.some((m) => (/Broadcast ([0-9a-f]{12})/.exec(m.text ?? "")?.[1] ?? id) !== id),
      10_000,
    );
    const secondId = second
      .map((m) => /Broadcast ([0-9a-f]{12})/.exec(m.text ?? "")?.[1])
      .find((x) => x !== undefined && x !== id);
    await eventually(async () => (await figures(app2, secondId ?? "")).status === "done", 30_000, "2nd done");
    expect(await figures(app2, secondId ?? "")).toMatchObject({ total: 2, sent: 2, blocked: 0, failed: 0 });
    const attemptsAfter = h.telegram
      .calls("sendMessage")
      .filter((c) => blocked.includes(Number(c.payload.chat_id))).length;
    expect(attemptsAfter).toBe(attemptsBefore);
    for (const chat of russian)
      expect(broadcastSends(h).filter((c) => Number(c.payload.chat_id) === chat)).toHaveLength(2);
  }, 300_000);

  it("pauses, resumes and cancels: nothing goes out while paused, nothing after the cancel", async () => {
    h = await startAppHarness({}, { broadcasts: { window: 10 } });
    const app = h.app;
    h.telegram.setRateLimits(LIMITS);
    const op = operatorOf(h);
    const recipients = await customers(app, h, 850_000_001, 150, "en");
    await compose(op, "Everyone");
    await op.pressButton(/^📣 Send to 151/);
    const id = await activeId(app);

    await eventually(async () => (await figures(app, id)).sent >= 15, 30_000, "15 sent");
    // A customer's forged Pause is answered with nothing done.
    const answered = () => h!.telegram.calls("answerCallbackQuery").length;
    const answersBefore = answered();
    await h.telegram.user({ id: recipients[0]! }).pressCallbackData(`bc:p:${id}`, 1);
    await eventually(() => answered() > answersBefore, 10_000, "the forged tap answered");
    expect((await figures(app, id)).status).toBe("running");
    await op.pressButton("⏸ Pause");
    expect((await figures(app, id)).status).toBe("paused");
    // Every recipient in flight at the pause ends sent or kept for the resume; none stays queued.
    const againKey = `${app.config.redisPrefix}bc:${id}:again`;
    await eventually(
      async () => {
        const f = await figures(app, id);
        const kept = await app.redis.llen(againKey);
        return (
          (await queuedBroadcasts(app)).length === 0 && f.cursor - f.sent - f.blocked - f.failed === kept
        );
      },
      10_000,
      "the pause settled",
    );
    const paused = await figures(app, id);
    const sendsAtPause = broadcastSends(h).length;
    expect(sendsAtPause).toBe(paused.sent);
    // The loop's next turns feed nothing while paused.
    await app.broadcasts.tick();
    await app.broadcasts.tick();
    expect(await queuedBroadcasts(app)).toEqual([]);
    expect((await figures(app, id)).cursor).toBe(paused.cursor);
    await op.waitFor(
      (msgs) => msgs.some((m) => /paused/.test(m.text ?? "") && /Resume/.test(JSON.stringify(m.replyMarkup))),
      10_000,
    );

    await op.pressButton("▶️ Resume");
    await eventually(async () => (await figures(app, id)).sent >= paused.sent + 20, 30_000, "sending again");
    await op.pressButton("✖️ Cancel broadcast");
    expect((await figures(app, id)).status).toBe("cancelled");
    await eventually(async () => (await queuedBroadcasts(app)).length === 0, 10_000, "the queue emptied");
    await eventually(
      async () => (await app.redis.zcard(`${app.config.redisPrefix}bc:${id}:fly`)) === 0,
      10_000,
      "sends in flight ended",
    );
    const cancelled = await figures(app, id);
    await app.broadcasts.tick();
    expect(await queuedBroadcasts(app)).toEqual([]);
    // Over once nothing is in flight: no longer among the active broadcasts.
    expect(await app.redis.smembers(`${app.config.redisPrefix}bc:active`)).toEqual([]);
    expect(cancelled.sent).toBeLessThan(151);
    const sends = broadcastSends(h);
    expect(sends).toHaveLength(cancelled.sent);
    expect(new Set(sends.map((c) => Number(c.payload.chat_id))).size).toBe(sends.length);
    expect(
      sends.every(
        (c) =>
          recipients.includes(Number(c.payload.chat_id)) || Number(c.payload.chat_id) === APP_OPERATOR_ID,
      ),
    ).toBe(true);
    const shown = await op.waitFor((msgs) => msgs.some((m) => /cancelled/.test(m.text ?? "")), 10_000);
    const message = shown.find((m) => /cancelled/.test(m.text ?? ""));
    expect(noButtons(message?.replyMarkup)).toBe(true);
    expect(refusedSends(h)).toEqual([]);
  }, 120_000);

  it("is no command for customers, refuses a button to a bad address, and sends a photo test", async () => {
    h = await startAppHarness();
    const op = operatorOf(h);
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/start");
    await customer.waitForBotMessage(/./, 10_000);
    await customer.sendText("/broadcast");
    // A customer's /broadcast is not a command for them.
    await customer.waitFor((msgs) => msgs.filter((m) => m.from === "bot").length >= 2, 10_000);
    expect(customer.botMessages().some((m) => /New broadcast/.test(m.text ?? ""))).toBe(false);

    // /cancel drops a broadcast being composed: the next text is no broadcast.
    await op.sendText("/broadcast");
    await op.waitForBotMessage(/New broadcast/, 10_000);
    await op.sendText("/cancel");
    await op.waitForBotMessage(/^✖️ Cancelled: I am no longer waiting for that answer/, 10_000);
    await op.sendText("Just a message");
    await op.waitFor(
      (msgs) => msgs.at(-1)?.from === "bot" && !/^✖️ Cancelled/.test(msgs.at(-1)?.text ?? ""),
      10_000,
    );
    expect(op.botMessages().some((m) => /Who should get it/.test(m.text ?? ""))).toBe(false);

    await op.sendText("/broadcast");
    await op.waitForBotMessage(/New broadcast/, 10_000);
    // A sticker is no broadcast: the rule, and the question again.
    await op.sendUpdate({
      message: {
        sticker: {
          file_id: "st-1",
          file_unique_id: "st",
          width: 512,
          height: 512,
          is_animated: false,
          is_video: false,
          type: "regular",
        },
      },
    });
    const sticker = await op.waitForBotMessage(/a text or a photo with a caption/, 10_000);
    expect(sticker.text).toContain("New broadcast");
    await op.sendText("Hello\nPay - ftp://example.com/x");
    const refused = await op.waitForBotMessage(/must start with http/, 10_000);
    expect(refused.text).toContain("New broadcast");
    expect(await h.app.redis.smembers(`${h.app.config.redisPrefix}bc:active`)).toEqual([]);

    // A photo with a caption and a button; the test goes to the operator as customers will see it.
    await op.sendUpdate({
      message: {
        photo: [{ file_id: "promo-photo", file_unique_id: "promo", width: 800, height: 600 }],
        caption: "New gifts\nOpen - https://example.com/gifts",
      },
    });
    await op.waitForBotMessage(/Who should get it/, 10_000);
    await op.pressButton("Everyone");
    await op.waitForBotMessage(/a photo, 1 URL button/, 10_000);
    await op.pressButton("🧪 Send me a test");
    const photo = await op.waitFor((msgs) => msgs.some((m) => m.media === "photo"), 10_000);
    const sent = photo.find((m) => m.media === "photo");
    expect(sent?.text).toBe("New gifts");
    expect(sent?.replyMarkup).toEqual({
      inline_keyboard: [[{ text: "Open", url: "https://example.com/gifts" }]],
    });
    await op.pressButton("✖️ Cancel");
    await op.waitForBotMessage(/dropped/, 10_000);
  });

  it("marks a customer who blocks the bot, and forgets it when they unblock", async () => {
    h = await startAppHarness();
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/start");
    await customer.waitForBotMessage(/./, 10_000);
    await eventually(
      async () => (await h!.app.customers.get(customer.id))?.locale === "en",
      10_000,
      "recorded",
    );
    customer.block();
    await eventually(() => h!.app.customers.isBlocked(customer.id), 10_000, "marked blocked");
    customer.unblock();
    await eventually(async () => !(await h!.app.customers.isBlocked(customer.id)), 10_000, "unblocked");
  });
});
