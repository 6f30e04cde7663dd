import { Menu } from "@grammyjs/menu";
import type { Locale } from "../../config.js";
import type { BotContext } from "../context.js";

export const LANGUAGE_MENU_ID = "lang";

const LANGUAGES: { locale: Locale; label: string }[] = [
  { locale: "ru", label: "🇷🇺 Русский" },
  { locale: "en", label: "🇬🇧 English" },
];

/** /language: switches between Russian and English; the choice is kept in the session. */
export function createLanguageMenu(): Menu<BotContext> {
  const menu = new Menu<BotContext>(LANGUAGE_MENU_ID, { onMenuOutdated: false });
  for (const { locale, label } of LANGUAGES) {
    menu.text(label, async (ctx) => {
      await ctx.i18n.setLocale(locale);
      ctx.menu.close();
      await ctx.editMessageText(ctx.t("language-set"), { parse_mode: "HTML" });
    });
  }
  return menu;
}
