import type { Menu } from "@grammyjs/menu";
import type { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";

export function languageFeature(menu: Menu<BotContext>): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.command("language", (ctx) => ctx.reply(ctx.t("language-choose"), { reply_markup: menu }));
  return c;
}
