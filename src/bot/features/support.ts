import type { Composer } from "grammy";
import type { Message } from "grammy/types";
import type { Config } from "../../config.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { escapeHtml } from "../format/html.js";
import { CB } from "../keyboards/callbacks.js";
import type { OperatorMessage, SupportRelay } from "../support-relay.js";
import type { SupportCustomer, SupportStore } from "../support-store.js";
import { answerQuietly, localeOf } from "./shared.js";

/** Writing to support ends by itself when the customer has said nothing for this long. */
export const SUPPORT_IDLE_MS = 24 * 3600 * 1000;

export interface SupportFeatureDeps {
  config: Pick<Config, "operatorIds" | "operatorChatId" | "supportContact">;
  relay: SupportRelay;
  store: SupportStore;
  now?: () => number;
}

const isCommand = (m: Message | undefined) =>
  m?.entities?.[0]?.type === "bot_command" && m.entities[0].offset === 0;

/** What an operator's message carries, or null for what cannot be passed on (stickers, voice…). */
function operatorMessage(m: Message): OperatorMessage | null {
  const base = { chatId: m.chat.id, messageId: m.message_id };
  if (m.text !== undefined) return { ...base, text: m.text, media: false };
  if (m.photo || m.document)
    return { ...base, media: true, ...(m.caption !== undefined ? { caption: m.caption } : {}) };
  return null;
}

/**
 * The support line. A customer chooses to write to support (/support, /paysupport, or the
 * "Contact support" button under a failed or rejected order) and their next messages — text,
 * photos, files — go to the operators (see SupportRelay); /cancel, another command or another
 * button ends it. An operator answers by replying to the customer's message (or its header), or
 * in a forum by writing in the customer's topic; the customer gets "Support: …".
 *
 * Register it after the product flows (a flow in progress takes its own answers) and before the
 * customer's other features. Messages in the operators' group go no further than here.
 */
export function supportFeature(deps: SupportFeatureDeps): Composer<BotContext> {
  const { config, relay, store } = deps;
  const now = deps.now ?? Date.now;
  const operators = new Set(config.operatorIds);
  const c = new FlatComposer<BotContext>();

  // ---------- the operators' side ----------

  /** The customer an operator's message answers: by the message it replies to, else its forum topic. */
  async function customerOf(m: Message): Promise<SupportCustomer | null> {
    const replied = m.reply_to_message;
    const byReply = replied ? await store.byMessage(m.chat.id, replied.message_id) : null;
    if (byReply) return byReply;
    return m.is_topic_message && m.message_thread_id !== undefined
      ? store.byThread(m.message_thread_id)
      : null;
  }

  async function answerCustomer(ctx: BotContext, customer: SupportCustomer, m: Message): Promise<void> {
    const what = operatorMessage(m);
    if (!what) {
      await ctx.reply(ctx.t("op-support-unsupported"), { reply_parameters: { message_id: m.message_id } });
      return;
    }
    const outcome = await relay.toCustomer(customer, what);
    const done = await ctx.reply(
      ctx.t(outcome === "sent" ? "op-support-delivered" : "op-support-unreachable"),
      { reply_parameters: { message_id: m.message_id } },
    );
    // The confirmation belongs to the customer too: a reply to it is an answer as well.
    await store.rememberMessage(done.chat.id, done.message_id, customer);
  }

  const inGroup = (ctx: BotContext) =>
    config.operatorChatId !== undefined && ctx.chat?.id === config.operatorChatId;

  // The operators' group: answers to customers; everything else there stays there.
  c.filter(inGroup, async (ctx) => {
    if (ctx.callbackQuery) return answerQuietly(ctx);
    const m = ctx.message;
    if (!m || isCommand(m) || !ctx.from) return;
    const customer = await customerOf(m);
    if (!customer) return;
    if (!operators.has(ctx.from.id)) {
      await ctx.reply(ctx.t("op-support-not-operator"), { reply_parameters: { message_id: m.message_id } });
      return;
    }
    await answerCustomer(ctx, customer, m);
  });

  // An operator in private replies to a customer's message.
  c.chatType("private").on("message", async (ctx, next) => {
    if (!operators.has(ctx.from.id) || !ctx.message.reply_to_message || isCommand(ctx.message)) return next();
    const customer = await store.byMessage(ctx.chat.id, ctx.message.reply_to_message.message_id);
    if (!customer) return next();
    await answerCustomer(ctx, customer, ctx.message);
  });

  // ---------- the customer's side ----------

  async function start(ctx: BotContext, intro?: string): Promise<void> {
    ctx.session.support = { at: now() };
    ctx.session.walletInput = undefined;
    const contact = config.supportContact
      ? `\n\n${ctx.t("support-contact", { contact: escapeHtml(config.supportContact) })}`
      : "";
    await ctx.reply(`${intro ? `${intro}\n\n` : ""}${ctx.t("support-intro")}${contact}`, {
      parse_mode: "HTML",
    });
  }

  const customers = c.chatType("private");
  customers.command("support", (ctx) => start(ctx));
  customers.command("paysupport", (ctx) => start(ctx, ctx.t("paysupport-text")));
  customers.callbackQuery(CB.support, async (ctx) => {
    await answerQuietly(ctx);
    await start(ctx);
  });

  const writing = (ctx: BotContext) => {
    const s = ctx.session.support;
    return s !== undefined && now() - s.at < SUPPORT_IDLE_MS;
  };

  customers.command("cancel", async (ctx, next) => {
    if (!writing(ctx)) return next();
    ctx.session.support = undefined;
    await ctx.reply(ctx.t("support-left"), { parse_mode: "HTML" });
  });
  // Any other command or button ends writing to support, and does what it does.
  customers.on(["message", "callback_query"], async (ctx, next) => {
    if (ctx.session.support && (ctx.callbackQuery || isCommand(ctx.message) || !writing(ctx))) {
      ctx.session.support = undefined;
    }
    return next();
  });

  customers.on("message", async (ctx, next) => {
    const support = ctx.session.support;
    if (!support || ctx.message.successful_payment) return next();
    const m = ctx.message;
    if (m.text === undefined && !m.photo && !m.document) {
      await ctx.reply(ctx.t("support-unsupported"), { parse_mode: "HTML" });
      return;
    }
    const first = !support.sent;
    const reached = await relay.fromCustomer({
      chatId: ctx.chat.id,
      messageId: m.message_id,
      who: {
        userId: ctx.from.id,
        firstName: ctx.from.first_name,
        ...(ctx.from.username ? { username: ctx.from.username } : {}),
      },
      customer: { userId: ctx.from.id, locale: await localeOf(ctx) },
      first,
    });
    if (!reached) {
      await ctx.reply(ctx.t("support-not-delivered"), { parse_mode: "HTML" });
      return;
    }
    ctx.session.support = { at: now(), sent: true };
    await ctx.reply(ctx.t(first ? "support-sent-first" : "support-sent"), {
      parse_mode: "HTML",
      reply_parameters: { message_id: m.message_id },
    });
  });

  return c;
}
