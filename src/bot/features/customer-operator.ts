import type { Composer, NextFunction } from "grammy";
import type { Config } from "../../config.js";
import { NOTE_MAX_CHARS } from "../../customers/notes.js";
import type { Logger } from "../../logger.js";
import type { BotContext, CustomerRecords } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { renderCustomerFile, renderNoteQuestion } from "../format/customer-operator.js";
import { CB } from "../keyboards/callbacks.js";
import { answerQuietly, hasWritten, leaveFlows, localeOf, showView, tOf } from "./shared.js";

const USER_ID = "(\\d{1,15})";
const MATCH = {
  view: new RegExp(`^${CB.customerOperator}v:${USER_ID}$`),
  note: new RegExp(`^${CB.customerOperator}n:${USER_ID}$`),
  ban: new RegExp(`^${CB.customerOperator}b:${USER_ID}$`),
  unban: new RegExp(`^${CB.customerOperator}u:${USER_ID}$`),
  cancel: new RegExp(`^${CB.customerOperator}x$`),
};
/** Telegram usernames: 5–32 of A–Z, a–z, 0–9 and _, starting with a letter. */
const USERNAME = /^@?([A-Za-z][A-Za-z0-9_]{4,31})$/;
/** Recent orders and notes shown on the card. */
const ORDERS_SHOWN = 5;
const NOTES_SHOWN = 4;
/** A note question waits this long for its typed answer. */
const NOTE_TTL_MS = 3600 * 1000;

/**
 * The operators' /customer <user id or @username>: the customer's recent orders (buttons open
 * the order card), wallet balance, referrals (who referred them, whom they referred, earned),
 * operator notes (who, when; "Add note" asks for a text of at most 500 characters) and Ban /
 * Unban. Only OPERATOR_IDS in a private chat; others' `oc:` buttons are answered with nothing
 * done. Operators cannot be banned. Bans and notes are logged with the operator's id.
 */
export function customerOperatorFeature(deps: {
  config: Pick<Config, "operatorIds">;
  logger: Logger;
  customers: CustomerRecords;
}): Composer<BotContext> {
  const { customers } = deps;
  const log = deps.logger.child({ component: "customer-operator" });
  const operators = new Set(deps.config.operatorIds);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.customerOperator}`), async (ctx, next) => {
    if (isOperator(ctx)) return next();
    log.warn(
      { userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) },
      "customer button from a non-operator",
    );
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);

  op.command("customer", async (ctx) => {
    const arg = ctx.match.trim();
    if (/^\d{1,15}$/.test(arg) && Number(arg) > 0) {
      await show(ctx, Number(arg), false);
      return;
    }
    const name = USERNAME.exec(arg)?.[1];
    if (!name) {
      await ctx.reply(ctx.t("op-customer-usage"), { parse_mode: "HTML" });
      return;
    }
    const userId = await customers.usernames.resolve(name);
    if (userId === undefined) {
      await ctx.reply(ctx.t("op-customer-unknown-name", { name }), { parse_mode: "HTML" });
      return;
    }
    await show(ctx, userId, false);
  });

  op.callbackQuery(MATCH.view, async (ctx) => {
    await answerQuietly(ctx);
    await show(ctx, Number(ctx.match[1]), true);
  });

  op.callbackQuery(MATCH.note, async (ctx) => {
    const userId = Number(ctx.match[1]);
    await leaveFlows(ctx);
    ctx.session.walletInput = undefined;
    ctx.session.customerNote = { userId, at: Date.now() };
    await answerQuietly(ctx);
    await showView(ctx, renderNoteQuestion(userId, tOf(ctx)), false);
  });

  op.callbackQuery(MATCH.cancel, async (ctx) => {
    ctx.session.customerNote = undefined;
    await answerQuietly(ctx);
    await showView(ctx, { text: ctx.t("op-customer-note-cancelled") }, true);
  });

  op.callbackQuery(MATCH.ban, async (ctx) => {
    const userId = Number(ctx.match[1]);
    if (operators.has(userId)) {
      await answerQuietly(ctx, ctx.t("op-customer-ban-operator"), true);
      return;
    }
    const banned = await customers.bans.ban(userId, ctx.from.id);
    log.info({ userId, operatorId: ctx.from.id, changed: banned }, "customer banned");
    await answerQuietly(ctx, ctx.t(banned ? "op-customer-ban-done" : "op-customer-ban-already"));
    await show(ctx, userId, true);
  });

  op.callbackQuery(MATCH.unban, async (ctx) => {
    const userId = Number(ctx.match[1]);
    const lifted = await customers.bans.unban(userId);
    log.info({ userId, operatorId: ctx.from.id, changed: lifted }, "customer unbanned");
    await answerQuietly(ctx, ctx.t(lifted ? "op-customer-unban-done" : "op-customer-unban-already"));
    await show(ctx, userId, true);
  });

  op.on("message:text", async (ctx, next) => {
    const input = ctx.session.customerNote;
    if (!input) return next();
    const text = ctx.message.text.trim();
    const t = tOf(ctx);
    if (text.length === 0 || text.length > NOTE_MAX_CHARS) {
      const notice = ctx.t("op-customer-note-length", { max: NOTE_MAX_CHARS, got: text.length });
      await showView(ctx, renderNoteQuestion(input.userId, t, notice), false);
      return;
    }
    ctx.session.customerNote = undefined;
    await customers.notes.add(input.userId, { by: ctx.from.id, at: Date.now(), text });
    log.info({ userId: input.userId, operatorId: ctx.from.id }, "operator note added");
    await show(ctx, input.userId, false, ctx.t("op-customer-note-saved"));
  });
  // A sticker, photo or voice note while the note is awaited gets the rule and the question again.
  op.on("message", async (ctx, next) => {
    const input = ctx.session.customerNote;
    if (!input || ctx.message.text !== undefined || ctx.message.successful_payment) return next();
    await showView(ctx, renderNoteQuestion(input.userId, tOf(ctx), ctx.t("op-rule-text-only")), false);
  });

  return root;

  async function show(ctx: BotContext, userId: number, edit: boolean, notice?: string): Promise<void> {
    const { wallet, referrals, orders } = ctx.deps;
    const [known, profile, ban, balanceKopecks, page, stats, notes] = await Promise.all([
      hasWritten(ctx, userId),
      customers.usernames.profile(userId),
      customers.bans.record(userId),
      wallet?.balance(userId),
      orders.listByChat(userId, 0, ORDERS_SHOWN),
      referrals?.stats(userId),
      customers.notes.latest(userId, NOTES_SHOWN),
    ]);
    const referrerName =
      stats?.referredBy === undefined
        ? undefined
        : (await customers.usernames.profile(stats.referredBy)).username;
    const view = renderCustomerFile(
      {
        userId,
        unknown: !known,
        ...profile,
        operator: operators.has(userId),
        ban,
        balanceKopecks,
        orders: page,
        referrals: stats && { ...stats, referrerName },
        notes,
      },
      tOf(ctx),
      await localeOf(ctx),
    );
    const text = notice ? `${notice}\n\n${view.text}` : view.text;
    await showView(ctx, { text, keyboard: view.reply_markup }, edit);
  }
}

/**
 * Forgets a note question no longer being answered: after a command, another button, or when it
 * is older than an hour. Installed right after the session, with the wallet's.
 */
export function forgetCustomerNote(ctx: BotContext, next: NextFunction): Promise<void> {
  const input = ctx.chat === undefined ? undefined : ctx.session.customerNote;
  if (input) {
    const data = ctx.callbackQuery?.data;
    const command =
      ctx.message?.entities?.[0]?.type === "bot_command" && ctx.message.entities[0].offset === 0;
    const otherButton = data !== undefined && !data.startsWith(CB.customerOperator);
    if (command || otherButton || Date.now() - input.at > NOTE_TTL_MS) ctx.session.customerNote = undefined;
  }
  return next();
}
