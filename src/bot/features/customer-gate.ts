import type { I18n } from "@grammyjs/i18n";
import type { NextFunction } from "grammy";
import type { Config } from "../../config.js";
import type { BotContext, CustomerRecords } from "../context.js";
import { supportedLocale, translator } from "../i18n.js";

/**
 * Installed early (before the rate limit and the session): a banned customer is told once that
 * the shop no longer serves them and every later update of theirs is dropped. The check is
 * answered from the ban list's per-process copy (customers/bans.ts), so it costs no Redis call
 * per update. Operators are never stopped, and a successful payment always goes on (a paid order
 * is never dropped); a banned customer's pre-checkout is declined.
 */
export function banGate(
  customers: CustomerRecords,
  i18n: I18n<BotContext>,
  config: Pick<Config, "operatorIds" | "defaultLocale">,
) {
  const operators = new Set(config.operatorIds);
  return async (ctx: BotContext, next: NextFunction): Promise<void> => {
    const userId = ctx.from?.id;
    if (userId === undefined || operators.has(userId) || ctx.message?.successful_payment) return next();
    if (!(await customers.bans.isBanned(userId))) return next();
    const t = translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
    if (ctx.preCheckoutQuery) {
      await ctx.answerPreCheckoutQuery(false, t("banned")).catch(() => undefined);
      return;
    }
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
    if (ctx.chat?.type === "private" && (await customers.bans.tellOnce(userId))) {
      ctx.logger.info({ userId }, "banned customer told");
      await ctx.reply(t("banned")).catch(() => undefined);
    }
  };
}

/** Keeps the username index of /customer @name up to date (a Redis write only when a name changed). */
export function recordCustomer(customers: CustomerRecords) {
  return (ctx: BotContext, next: NextFunction): Promise<void> => {
    const from = ctx.from;
    if (from && !from.is_bot) {
      // Not awaited: the customer's answer does not wait for the operators' username index.
      customers.usernames.seen(from).catch((err) => ctx.logger.warn({ err }, "username index not updated"));
    }
    return next();
  };
}

/**
 * The shop lives in private chats. In any other chat (a group the bot was added to, a channel;
 * the operators' group excepted) nothing is sold and nothing of anyone's is shown: a command meant
 * for this bot is answered with where to find the shop, a button press with the same words, and
 * everything else is left alone. A successful payment always goes on (a paid order is never dropped).
 */
export function privateOnly(
  i18n: I18n<BotContext>,
  config: Pick<Config, "operatorChatId" | "defaultLocale">,
) {
  return async (ctx: BotContext, next: NextFunction): Promise<void> => {
    const chat = ctx.chat;
    if (chat === undefined || chat.type === "private" || chat.id === config.operatorChatId) return next();
    if (ctx.message?.successful_payment) return next();
    const t = translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
    const text = t("private-only", { bot: ctx.me.username });
    if (ctx.callbackQuery) {
      await ctx.answerCallbackQuery({ text, show_alert: true }).catch(() => undefined);
      return;
    }
    const m = ctx.message;
    const command = m?.entities?.[0]?.type === "bot_command" && m.entities[0].offset === 0;
    if (!m || !command || ctx.from?.is_bot) return;
    const addressee = /^\/[^\s@]+@(\S+)/.exec(m.text ?? "")?.[1];
    if (addressee !== undefined && addressee.toLowerCase() !== ctx.me.username.toLowerCase()) return;
    await ctx.reply(text, { reply_parameters: { message_id: m.message_id } }).catch(() => undefined);
  };
}
