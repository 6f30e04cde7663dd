import { RedisAdapter } from "@grammyjs/storage-redis";
import { Bot, InputFile, session } from "grammy";
import type { InlineKeyboardMarkup, Update } from "grammy/types";
import type { Redis } from "ioredis";
import type { BotContext, SessionData, Translate } from "../../src/bot/context.js";
import { myOrdersFeature } from "../../src/bot/features/my-orders.js";
import { createOperatorFeature } from "../../src/bot/features/operator.js";
import { operatorExportFeature } from "../../src/bot/features/operator-export.js";
import { operatorPricesFeature } from "../../src/bot/features/operator-prices.js";
import { operatorPromoFeature } from "../../src/bot/features/operator-promo.js";
import { unhandledFeature } from "../../src/bot/features/unhandled.js";
import { createI18n, translator } from "../../src/bot/i18n.js";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { createCatalogService } from "../../src/catalog/service.js";
import { type Config, createConfig } from "../../src/config.js";
import type { OrdersApi } from "../../src/orders/api.js";
import type { ResellerClient } from "../../src/reseller/types.js";
import type { WalletLedger } from "../../src/wallet/ledger.js";
import { API_KEY, type EngineHarness } from "../helpers/engine-harness.js";
import { BOT_INFO } from "./helpers/telegram-recorder.js";

export const OPERATOR_ID = 777_001;
export const CUSTOMER_ID = 888_002;

export interface ApiCall {
  method: string;
  payload: Record<string, unknown>;
}

/** What a sent or edited message looked like, from the recorded payload. */
export interface Shown {
  method: string;
  chatId: number;
  messageId?: number;
  text: string;
  keyboard: { text: string; data: string }[][];
}

export function buttonsOf(markup: unknown): { text: string; data: string }[][] {
  const kb = (markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
  return kb.map((row) =>
    row.map((b) => ({ text: b.text, data: "callback_data" in b ? (b.callback_data ?? "") : "" })),
  );
}

export function translatorFor(locale: "ru" | "en"): Translate {
  return translator(createI18n({ defaultLocale: "en" }), locale);
}

/**
 * A grammY bot built like src/bot/index.ts does it (session in Redis, i18n, ctx.deps), with the
 * operator feature, the customer's /orders and the catch-all after it. Every Bot API call is
 * recorded by a transformer and answered with a plausible result; updates go in through
 * `bot.handleUpdate`.
 */
export class OperatorBot {
  readonly bot: Bot<BotContext>;
  readonly calls: ApiCall[] = [];
  /** Files sent with sendDocument, with their bytes. */
  readonly documents: { name: string; data: Buffer }[] = [];
  readonly config: Config;
  private updateId = 1;
  private messageId = 100;

  constructor(
    h: EngineHarness,
    opts: {
      orders?: OrdersApi;
      reseller?: Pick<ResellerClient, "balance">;
      env?: Record<string, string>;
      /** The customers' wallets, when the test offers them. */
      wallet?: WalletLedger;
      /** The export's clock (its preset periods). */
      now?: () => number;
    } = {},
  ) {
    this.config = createConfig({
      BOT_TOKEN: "123456:TEST-token",
      RESELLER_API_URL: h.sandbox.url,
      RESELLER_API_KEY: API_KEY,
      OPERATOR_IDS: `${OPERATOR_ID},777003`,
      DEFAULT_LOCALE: "en",
      LOW_BALANCE_RUB: "1000",
      REDIS_PREFIX: h.prefix,
      ...opts.env,
    });
    const config = this.config;
    const orders = opts.orders ?? h.engine;
    const bot = new Bot<BotContext>(config.botToken, { botInfo: BOT_INFO });
    bot.api.config.use(async (_prev, method, payload) => {
      const p = (payload ?? {}) as Record<string, unknown>;
      // An uploaded file is read as it is sent (the sender may delete it afterwards).
      if (p.document instanceof InputFile) {
        this.documents.push({ name: p.document.filename ?? "", data: await readInputFile(p.document) });
      }
      this.calls.push({ method, payload: p });
      return { ok: true, result: this.fakeResult(method, p) } as never;
    });
    const reseller = opts.reseller ?? h.client;
    // Everything BotDeps names; the catalog is the sandbox's (/prices checks items against it).
    const botDeps = {
      config,
      logger: h.logger,
      redis: h.redis,
      orders,
      reseller,
      catalog: createCatalogService({ client: h.client, ttlSeconds: 30, logger: h.logger }),
      wallet: opts.wallet,
    };
    bot.use((ctx, next) => {
      ctx.deps = botDeps;
      ctx.logger = h.logger;
      return next();
    });
    bot.use(
      session<SessionData, BotContext>({
        initial: () => ({}),
        getSessionKey: (ctx) =>
          ctx.chat === undefined ? undefined : sessionKey(config.redisPrefix, ctx.chat.id),
        storage: new RedisAdapter<SessionData>({ instance: h.redis as Redis }),
      }),
    );
    bot.use(createI18n(config).middleware());
    bot.use(
      createOperatorFeature({
        config,
        logger: h.logger,
        orders,
        reseller,
      }),
    );
    bot.use(operatorExportFeature({ config, logger: h.logger, orders, now: opts.now }));
    bot.use(operatorPricesFeature({ config, logger: h.logger, orders }));
    bot.use(operatorPromoFeature({ config, logger: h.logger, orders }));
    bot.use(myOrdersFeature());
    bot.use(unhandledFeature());
    this.bot = bot;
  }

  private fakeResult(method: string, p: Record<string, unknown>): unknown {
    const chat = { id: Number(p.chat_id ?? 0), type: "private", first_name: "X" };
    if (method === "sendMessage") {
      return { message_id: ++this.messageId, date: Math.floor(Date.now() / 1000), chat, text: p.text };
    }
    if (method === "editMessageText") {
      return { message_id: p.message_id, date: Math.floor(Date.now() / 1000), chat, text: p.text };
    }
    return true;
  }

  private user(id: number, language: string) {
    return { id, is_bot: false, first_name: id === OPERATOR_ID ? "Olga" : "Carl", language_code: language };
  }

  /** Sends a text (a command when it starts with "/") from `from`; returns the calls it caused. */
  async send(from: number, text: string, opts: { language?: string; chatType?: "private" | "group" } = {}) {
    const before = this.calls.length;
    const command = /^\/\w+/.exec(text)?.[0];
    const chat =
      opts.chatType === "group"
        ? { id: -100_500, type: "group" as const, title: "Staff" }
        : { id: from, type: "private" as const, first_name: "X" };
    const update: Update = {
      update_id: this.updateId++,
      message: {
        message_id: ++this.messageId,
        date: Math.floor(Date.now() / 1000),
        chat,
        from: this.user(from, opts.language ?? "en"),
        text,
        entities: command ? [{ type: "bot_command", offset: 0, length: command.length }] : undefined,
      },
    };
    await this.bot.handleUpdate(update);
    return this.calls.slice(before);
  }

  /** Presses an inline button with `data` on message `messageId`; returns the calls it caused. */
  async press(from: number, data: string, messageId = 1, opts: { language?: string } = {}) {
    const before = this.calls.length;
    const update: Update = {
      update_id: this.updateId++,
      callback_query: {
        id: `cq${this.updateId}`,
        from: this.user(from, opts.language ?? "en"),
        chat_instance: "ci",
        data,
        message: {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: from, type: "private", first_name: "X" },
          from: { id: BOT_INFO.id, is_bot: true, first_name: BOT_INFO.first_name },
          text: "…",
        },
      },
    };
    await this.bot.handleUpdate(update);
    return this.calls.slice(before);
  }

  /** The messages (sent or edited) among `calls`, newest last. */
  static shown(calls: ApiCall[]): Shown[] {
    return calls
      .filter((c) => c.method === "sendMessage" || c.method === "editMessageText")
      .map((c) => ({
        method: c.method,
        chatId: Number(c.payload.chat_id),
        messageId: c.payload.message_id as number | undefined,
        text: String(c.payload.text),
        keyboard: buttonsOf(c.payload.reply_markup),
      }));
  }

  /** The one message shown by `calls` (fails the test when there is not exactly one). */
  static one(calls: ApiCall[]): Shown {
    const shown = OperatorBot.shown(calls);
    if (shown.length !== 1) {
      throw new Error(
        `expected one message, got ${shown.length}: ${JSON.stringify(calls.map((c) => c.method))}`,
      );
    }
    return shown[0]!;
  }

  static callbackAnswer(calls: ApiCall[]): Record<string, unknown> | undefined {
    return calls.find((c) => c.method === "answerCallbackQuery")?.payload;
  }
}

/** The bytes of a file grammY is about to upload. */
async function readInputFile(file: InputFile): Promise<Buffer> {
  const raw = await file.toRaw();
  if (raw instanceof Uint8Array) return Buffer.from(raw);
  const parts: Buffer[] = [];
  for await (const part of raw as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

/** Every callback_data of a keyboard, flattened. */
export function allData(keyboard: { data: string }[][]): string[] {
  return keyboard.flat().map((b) => b.data);
}

/** The button with this label (exact, or containing it). */
export function button(
  keyboard: { text: string; data: string }[][],
  label: string,
): { text: string; data: string } {
  const all = keyboard.flat();
  const b = all.find((x) => x.text === label) ?? all.find((x) => x.text.includes(label));
  if (!b) throw new Error(`no button "${label}" among ${all.map((x) => x.text).join(" | ")}`);
  return b;
}
