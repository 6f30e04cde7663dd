import type { Menu } from "@grammyjs/menu";
import { Composer } from "grammy";
import type { BotContext } from "../context.js";

export function languageFeature(menu: Menu<BotContext>): Composer<BotContext> {
  const c = new Composer<BotContext>();
  c.command("language", (ctx) => ctx.reply(ctx.t("language-choose"), { reply_markup: menu }));
  return c;
}
