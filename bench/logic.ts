import { sequentialize } from "@grammyjs/runner";
import { Bot, type Context, session, type Transformer } from "grammy";
import { Redis } from "ioredis";
import type * as BotModule from "../src/bot/index.js";
import type { TelegramTransport } from "../src/bot/telegram-transport.js";
import type * as ConfigModule from "../src/config.js";
import type * as LoggerModule from "../src/logger.js";
import { FakeOrders, fakeCatalog, fakeReseller } from "../test/bot/helpers/fakes.js";
import { BOT_INFO } from "../test/bot/helpers/telegram-recorder.js";
import { callbackUpdate, type TestUser, textUpdate } from "../test/bot/helpers/updates.js";
import { startPrivateRedis } from "../test/helpers/private-redis.js";

/**
 * The bot's own work per update, without the network: the shop as `createBot` builds it (the
 * built code in dist/, on a private Redis, orders and catalog answered by the tests' fakes) and
 * a bare grammY bot (per-chat `sequentialize`, in-memory sessions, one message per update plus the
 * callback's answer), both with every Bot API call answered in memory. Customers walk one after
 * another: /start, a menu button outside any flow (📦 My orders), /start again, then the Stars flow
 * to the price card. Each action's CPU (`process.cpuUsage`, this process) is summed. The rush
 * measures the shop over HTTP as deployed; this shows what the shop's own middleware, flows,
 * sessions and Redis cost per update, inside a flow and outside one.
 */
export const LOGIC_ACTIONS = [
  "/start",
  "📦 My orders",
  "/start",
  "⭐ Telegram Stars",
  "50 ⭐",
  "🙋 To myself",
] as const;
/** What each action is, for the table. */
export const LOGIC_ACTION_NOTES = [
  "the menu",
  "a menu button outside any flow",
  "the menu again",
  "enters the flow, first question",
  "an answer inside the flow, next question",
  "the last answer: quotes, shows the card",
] as const;
const TO_MYSELF = /^🙋 To myself/;

export interface LogicSide {
  /** CPU per action (ms), in LOGIC_ACTIONS order. */
  perActionMs: number[];
  /** CPU per update over all actions (ms). */
  perUpdateMs: number;
  /** Customers who reached the price card (the shop) or got every answer (the floor). */
  completed: number;
}

export interface LogicResult {
  customers: number;
  shop: LogicSide;
  floor: LogicSide;
}

type Keyboard = { text: string; callback_data?: string }[][];
type Payload = {
  chat_id?: number;
  message_id?: number;
  text?: string;
  reply_markup?: { inline_keyboard?: Keyboard };
};

/** The Bot API answered in memory; remembers each chat's last inline keyboard for the next tap. */
class MemoryApi {
  private readonly keyboards = new Map<number, Keyboard>();
  private messageId = 1000;

  result(method: string, payload: Payload): unknown {
    const chat = payload.chat_id;
    if (chat !== undefined && payload.reply_markup?.inline_keyboard)
      this.keyboards.set(chat, payload.reply_markup.inline_keyboard);
    if (method === "sendMessage" || method === "editMessageText" || method === "sendInvoice") {
      const id = payload.message_id ?? ++this.messageId;
      return { message_id: id, date: 0, chat: { id: chat, type: "private" }, text: payload.text ?? "" };
    }
    return true;
  }

  /** Callback data of the button labelled `label` in `chat`'s last keyboard. */
  button(chat: number, label: string | RegExp): string | undefined {
    for (const row of this.keyboards.get(chat) ?? [])
      for (const b of row)
        if (typeof label === "string" ? b.text === label : label.test(b.text)) return b.callback_data;
    return undefined;
  }

  transformer(): Transformer {
    return async (_prev, method, payload) =>
      ({ ok: true, result: this.result(method, payload as Payload) }) as never;
  }

  /** The shop's transport: its `fetch` serves the Api objects its flows build from client options. */
  transport(): TelegramTransport {
    return {
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        const method = url.slice(url.lastIndexOf("/") + 1);
        const payload = JSON.parse(typeof init?.body === "string" ? init.body : "{}") as Payload;
        return new Response(JSON.stringify({ ok: true, result: this.result(method, payload) }));
      }) as typeof fetch,
      direct: () => this.transformer(),
      close: async () => {},
    };
  }
}

interface Walker {
  api: MemoryApi;
  handle(update: Parameters<Bot["handleUpdate"]>[0]): Promise<void>;
}

/** One customer's walk; adds each action's CPU (µs) to `cpu`. Returns whether every step found its button. */
async function walk(w: Walker, id: number, cpu: number[]): Promise<boolean> {
  const user: TestUser = { id, first_name: "Bench", username: `bench_${id}`, language_code: "en" };
  for (const [i, action] of LOGIC_ACTIONS.entries()) {
    let update: Parameters<Bot["handleUpdate"]>[0];
    if (action.startsWith("/")) update = textUpdate(user, action);
    else {
      const data = w.api.button(id, action === "🙋 To myself" ? TO_MYSELF : action);
      if (data === undefined) return false;
      update = callbackUpdate(user, data);
    }
    const before = process.cpuUsage();
    await w.handle(update);
    const used = process.cpuUsage(before);
    cpu[i] = (cpu[i] ?? 0) + used.user + used.system;
  }
  return true;
}

async function measure(w: Walker, customers: number, warmUp: number, firstId: number): Promise<LogicSide> {
  const cpu: number[] = [];
  for (let i = 0; i < warmUp; i++) await walk(w, firstId + i, cpu);
  cpu.length = 0;
  let completed = 0;
  for (let i = 0; i < customers; i++) if (await walk(w, firstId + warmUp + i, cpu)) completed += 1;
  const perActionMs = LOGIC_ACTIONS.map((_, i) => (cpu[i] ?? 0) / 1000 / Math.max(1, customers));
  return {
    perActionMs,
    perUpdateMs: perActionMs.reduce((a, b) => a + b, 0) / LOGIC_ACTIONS.length,
    completed,
  };
}

/** A bare grammY bot: every update gets one message (a callback also its answer). */
function bareWalker(): Walker {
  const api = new MemoryApi();
  const bot = new Bot<Context & { session: { n: number } }>("1:bench", { botInfo: BOT_INFO });
  bot.api.config.use(api.transformer());
  bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));
  bot.use(session({ initial: () => ({ n: 0 }) }));
  // Every message carries a button for each tap of the walk.
  const keyboard = {
    reply_markup: {
      inline_keyboard: LOGIC_ACTIONS.filter((a) => !a.startsWith("/")).map((a) => [
        { text: a === "🙋 To myself" ? "🙋 To myself (@bench)" : a, callback_data: a },
      ]),
    },
  };
  bot.command("start", (ctx) => ctx.reply("menu", keyboard));
  bot.on("callback_query:data", async (ctx) => {
    ctx.session.n += 1;
    await ctx.answerCallbackQuery();
    await ctx.editMessageText("next", keyboard);
  });
  return { api, handle: (u) => bot.handleUpdate(u) };
}

export async function logicPerUpdate(
  customers: number,
  warmUp = Math.min(100, customers),
): Promise<LogicResult> {
  // The built shop, as the rush runs it (tsx would add its own helpers to every function).
  const dist = new URL("../dist/", import.meta.url).href;
  const { createBot } = (await import(`${dist}bot/index.js`)) as typeof BotModule;
  const { createConfig } = (await import(`${dist}config.js`)) as typeof ConfigModule;
  const { createLogger } = (await import(`${dist}logger.js`)) as typeof LoggerModule;
  const redis = await startPrivateRedis();
  const client = new Redis(redis.url);
  try {
    const floor = await measure(bareWalker(), customers, warmUp, 3_000_000);
    const api = new MemoryApi();
    const config = createConfig({
      BOT_TOKEN: "123456:BENCH-logic",
      RESELLER_API_URL: "http://127.0.0.1:9",
      RESELLER_API_KEY: "bench",
      OPERATOR_IDS: "7001",
      REDIS_URL: redis.url,
      REDIS_PREFIX: "logic:",
      DEFAULT_LOCALE: "en",
    });
    const orders = new FakeOrders("XTR");
    const bot = createBot(
      {
        config,
        logger: createLogger({ level: "silent" }),
        redis: client,
        orders,
        catalog: fakeCatalog(),
        reseller: fakeReseller,
      },
      { botInfo: BOT_INFO, transport: api.transport(), incoming: { updates: 1_000_000, windowMs: 1000 } },
    );
    const shop = await measure({ api, handle: (u) => bot.handleUpdate(u) }, customers, warmUp, 4_000_000);
    return { customers, shop, floor };
  } finally {
    client.disconnect();
    await redis.stop();
  }
}
