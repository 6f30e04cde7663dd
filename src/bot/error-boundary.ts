import type { I18n } from "@grammyjs/i18n";
import type { BotError } from "grammy";
import type { Config } from "../config.js";
import type { BotContext } from "./context.js";
import { supportedLocale, translator } from "./i18n.js";

/**
 * What happens when an update fails: the log gets the details, the customer a friendly line
 * (in the chat, or as the button's answer).
 */
export async function onError(
  err: BotError<BotContext>,
  i18n: I18n<BotContext>,
  config: Pick<Config, "defaultLocale">,
): Promise<void> {
  const ctx = err.ctx;
  const log = ctx.logger ?? ctx.deps?.logger;
  log?.error({ err: err.error, update_id: ctx.update.update_id }, "update failed");
  const t =
    typeof ctx.t === "function"
      ? (key: string) => ctx.t(key)
      : translator(i18n, supportedLocale(ctx.from?.language_code) ?? config.defaultLocale);
  try {
    if (ctx.callbackQuery) {
      // A button already answered (e.g. inside a flow) cannot be answered again: say it in the chat.
      const answered = await ctx.answerCallbackQuery({ text: t("error-generic") }).then(
        () => true,
        () => false,
      );
      if (!answered && ctx.chat) await ctx.reply(t("error-generic"));
    } else if (ctx.chat && ctx.message) await ctx.reply(t("error-generic"));
  } catch {
    // The customer cannot be told; the log has it.
  }
}
