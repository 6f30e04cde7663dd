import type { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { Order } from "../../orders/types.js";
import type { BotContext, Translate } from "../context.js";
import { renderCard } from "../format/card.js";
import { isLocale } from "../i18n.js";
import { isNotModified } from "../telegram-errors.js";

/** The negotiated locale of this update as one of ours (else `fallback`, the configured default). */
export async function localeOf(
  ctx: BotContext,
  fallback: Locale = ctx.deps.config.defaultLocale,
): Promise<Locale> {
  const l = await ctx.i18n.getLocale();
  return isLocale(l) ? l : fallback;
}

export const tOf =
  (ctx: BotContext): Translate =>
  (key, vars) =>
    ctx.t(key, vars);

/** The words and number formats to answer in: the update's (`speechOf`) or an order's customer's. */
export interface Speech {
  t: Translate;
  locale: Locale;
}

export async function speechOf(ctx: BotContext): Promise<Speech> {
  return { t: tOf(ctx), locale: await localeOf(ctx) };
}

/**
 * Shows an order's card in the customer's chat: edits the given message when possible, else
 * sends it, in the update's language unless `speech` says another. Returns the message id.
 */
export async function showCard(
  ctx: BotContext,
  order: Order,
  editMessageId?: number,
  speech?: Speech,
): Promise<number | undefined> {
  const { t, locale } = speech ?? (await speechOf(ctx));
  const card = renderCard(order, {
    t,
    locale,
    supportContact: ctx.deps.config.supportContact,
    rails: ctx.deps.config.checkout,
  });
  const other = { parse_mode: "HTML" as const, reply_markup: card.keyboard ?? { inline_keyboard: [] } };
  if (editMessageId !== undefined) {
    try {
      await ctx.api.editMessageText(order.customer.chatId, editMessageId, card.text, other);
      return editMessageId;
    } catch (err) {
      if (isNotModified(err)) return editMessageId;
      ctx.logger.debug({ err }, "could not edit card; sending it");
    }
  }
  const sent = await ctx.api.sendMessage(order.customer.chatId, card.text, {
    parse_mode: "HTML",
    reply_markup: card.keyboard,
  });
  return sent.message_id;
}

export async function answerQuietly(ctx: BotContext, text?: string, alert = false): Promise<void> {
  if (!ctx.callbackQuery) return;
  await ctx.answerCallbackQuery(text ? { text, show_alert: alert } : undefined).catch(() => undefined);
}

/** Edits the message of the pressed button into `view` when `edit`, else (or when it cannot) sends it. */
export async function showView(
  ctx: BotContext,
  view: { text: string; keyboard?: InlineKeyboard },
  edit: boolean,
): Promise<void> {
  const other = { parse_mode: "HTML" as const, reply_markup: view.keyboard };
  if (edit && ctx.callbackQuery?.message) {
    try {
      await ctx.editMessageText(view.text, other);
      return;
    } catch (err) {
      if (isNotModified(err)) return;
      ctx.logger.debug({ err }, "could not edit the message; sending it");
    }
  }
  await ctx.reply(view.text, other);
}

/** Leaves the product flow in progress, if any, so that the next typed message reaches a wallet question. */
export async function leaveFlows(ctx: BotContext): Promise<void> {
  ctx.flows?.leave();
}

/**
 * Whether a user id has ever written to the bot (the customer registry has it): an operator's
 * tools show a warning for one that has not, where a mistyped id would ban or credit nobody.
 * Unknown when there is no registry.
 */
export async function hasWritten(ctx: BotContext, userId: number): Promise<boolean> {
  const registry = ctx.deps.registry;
  if (!registry) return true;
  return (await registry.get(userId)) !== null;
}
