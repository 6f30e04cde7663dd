/**
 * The framework's floor for the throughput benchmark: a bare grammY bot (runner, per-chat
 * sequentialize, in-memory sessions) that answers every update with one sendMessage.
 * `BARE_SENDS` (e.g. "1,2,2,2,2,1,3") makes it send that many messages for a chat's first,
 * second, … update instead (the last one the answer, `reply <n>`): a bot making as many Bot API
 * calls per purchase as the shop, with nothing else to do.
 *
 * With `BARE_REDIS_URL` and `BARE_REDIS_OPS` it also makes that many Redis commands for each
 * update (a GET and a SET of a session-sized value in turn, one after another, auto-pipelined as
 * the shop's client is), and with `BARE_HTTP_URL` and `BARE_HTTP_CALLS` that many JSON POSTs to
 * that server (the reseller's create, pay, the re-read of an order): a bot making the shop's
 * calls to Telegram, Redis and the reseller, and nothing else. `BARE_TRANSPORT` sends its Bot API
 * calls through the shop's own transport (the built dist/bot/telegram-transport.js) rather than
 * grammY's: the shop's calls made the shop's way.
 *
 * `BARE_PACED` (e.g. "2") sends that many of a purchase's last update's messages later, as the
 * shop sends what it sends on its own (src/outgoing/dispatcher.ts, its `SEND_GROUP` and the queue's
 * pace loaded from dist/): started in groups of six every 204 ms (30/s), final messages before card updates, a chat's card at least a second after its
 * final message. The shop's final message and its card saying delivered go that way; here both are
 * sendMessage (the shop edits the card).
 */
import { run, sequentialize } from "@grammyjs/runner";
import { Bot, type Context, type SessionFlavor, session } from "grammy";
import { Redis } from "ioredis";
import { Pool } from "undici";
import type * as DispatcherModule from "../src/outgoing/dispatcher.js";
import type * as QueueModule from "../src/outgoing/queue.js";

type Ctx = Context & SessionFlavor<{ count: number }>;
const perUpdate = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",").map(Number);
const SENDS = perUpdate("BARE_SENDS", "1");
const REDIS_OPS = perUpdate("BARE_REDIS_OPS", "0");
const HTTP_CALLS = perUpdate("BARE_HTTP_CALLS", "0");
const PACED = Number(process.env.BARE_PACED ?? "0");
const nth = (list: number[], n: number) => list[(n - 1) % list.length] ?? 0;

const redis = process.env.BARE_REDIS_URL
  ? new Redis(process.env.BARE_REDIS_URL, { enableAutoPipelining: true })
  : undefined;
const http = process.env.BARE_HTTP_URL ? new Pool(process.env.BARE_HTTP_URL, { connections: 16 }) : undefined;
/** About the size of the shop's session record inside a flow. */
const VALUE = JSON.stringify({
  flow: { kind: "stars", v: 5, at: 0, locale: "en", step: 2, nonce: 1234567, waits: 3, state: { qty: 50 } },
  ask: { step: 2, key: "q", nonce: 1234567, page: 0, bad: 0, sig: "a1b2c3d4" },
});

async function sideCalls(chat: number, n: number): Promise<void> {
  for (let i = 0; redis && i < nth(REDIS_OPS, n); i++) {
    const key = `bare:${chat}:${i % 3}`;
    if (i % 2 === 0) await redis.get(key);
    else await redis.set(key, VALUE, "EX", 3600);
  }
  for (let i = 0; http && i < nth(HTTP_CALLS, n); i++) {
    const res = await http.request({
      path: "/order",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ custom_id: `${chat}-${n}-${i}`, product: "stars", quantity: 50 }),
    });
    JSON.parse(await res.body.text());
  }
}

const bot = new Bot<Ctx>(process.env.BOT_TOKEN ?? "", { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });
if (process.env.BARE_TRANSPORT) {
  const dist = new URL("../../dist/bot/", import.meta.url).href;
  const { createTelegramTransport } = await import(`${dist}telegram-transport.js`);
  const { TelegramHolds } = await import(`${dist}telegram-holds.js`);
  const quiet = { warn() {}, info() {}, debug() {}, error() {} };
  const transport = createTelegramTransport(new TelegramHolds(undefined, "", quiet));
  bot.api.config.use(transport.direct(bot.token, process.env.TELEGRAM_API_ROOT));
}
/** The paced sends waiting: final messages, then card updates (each due a second after its final). */
const finals: { chat: number; text: string }[] = [];
const cards: { chat: number; text: string; at: number }[] = [];
let pacer: NodeJS.Timeout | undefined;
// The shop's own grid and pace (built dist/), so that this floor keeps up with changes to them.
const outgoing = new URL("../../dist/outgoing/", import.meta.url).href;
const { SEND_GROUP } = PACED
  ? ((await import(`${outgoing}dispatcher.js`)) as typeof DispatcherModule)
  : { SEND_GROUP: 0 };
const { DEFAULT_PACE } = PACED
  ? ((await import(`${outgoing}queue.js`)) as typeof QueueModule)
  : { DEFAULT_PACE: { globalPerSecond: 30 } };
const TICK_MS = SEND_GROUP * Math.ceil(1000 / DEFAULT_PACE.globalPerSecond);

function pace(chat: number, n: number, count: number): void {
  for (let i = 1; i <= count; i++) {
    const text = `paced ${n}.${i}`;
    if (i === 1) finals.push({ chat, text });
    else cards.push({ chat, text, at: Date.now() + 1000 * (i - 1) + TICK_MS });
  }
  pacer ??= setInterval(tick, TICK_MS);
}

function tick(): void {
  for (let started = 0; started < SEND_GROUP; started++) {
    const card = cards[0];
    const next = finals.shift() ?? (card && card.at <= Date.now() ? cards.shift() : undefined);
    if (!next) break;
    void bot.api.sendMessage(next.chat, next.text).catch(() => undefined);
  }
  if (finals.length === 0 && cards.length === 0) {
    clearInterval(pacer);
    pacer = undefined;
  }
}

bot.use(sequentialize((ctx) => ctx.chat?.id.toString()));
bot.use(session({ initial: () => ({ count: 0 }) }));
bot.on("message", async (ctx) => {
  ctx.session.count += 1;
  const n = ctx.session.count;
  await sideCalls(ctx.chat.id, n);
  // A purchase's last update: its last PACED messages go out later, at the shop's pace.
  const paced = n % SENDS.length === 0 ? Math.min(PACED, nth(SENDS, n) - 1) : 0;
  for (let i = 1; i < nth(SENDS, n) - paced; i++) await ctx.reply(`before reply ${n}`);
  await ctx.reply(`reply ${n}`);
  if (paced > 0) pace(ctx.chat.id, n, paced);
});
const runner = run(bot);
process.stdout.write("bare bot running\n");
const stop = () => {
  void runner.stop().then(() => {
    redis?.disconnect();
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
