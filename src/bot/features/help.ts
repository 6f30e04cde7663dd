import type { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { escapeHtml } from "../format/html.js";

/** /help. (/paysupport, which Telegram expects from bots that take Stars, leads to support: features/support.ts.) */
export function helpFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  const contact = (ctx: BotContext) => {
    const s = ctx.deps.config.supportContact;
    return s ? ctx.t("support-contact", { contact: escapeHtml(s) }) : ctx.t("support-no-contact");
  };
  c.command("help", (ctx) => {
    // The wallet's line only where the shop offers one.
    const wallet = ctx.deps.config.checkout.includes("wallet") ? `\n${ctx.t("help-wallet")}` : "";
    return ctx.reply(`${ctx.t("help-text")}${wallet}\n\n${contact(ctx)}`, { parse_mode: "HTML" });
  });
  return c;
}
