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
