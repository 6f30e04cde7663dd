import { fileURLToPath } from "node:url";
import { I18n } from "@grammyjs/i18n";
import type { Config, Locale } from "../config.js";
import { LOCALES } from "../config.js";
import type { BotContext, Translate } from "./context.js";

/** locales/ at the project root, from both src/bot (tsx) and dist/bot (built). */
export const LOCALES_DIR = fileURLToPath(new URL("../../locales", import.meta.url));

/** Maps a Telegram `language_code` ("ru", "en-US", …) to a supported locale, if any. */
export function supportedLocale(code: string | undefined): Locale | undefined {
  if (!code) return undefined;
  const base = code.toLowerCase().split(/[-_]/)[0];
  return (LOCALES as readonly string[]).includes(base ?? "") ? (base as Locale) : undefined;
}

export function isLocale(v: unknown): v is Locale {
  return typeof v === "string" && (LOCALES as readonly string[]).includes(v);
}

/**
 * The Fluent translations of the bot. The locale of an update is the one chosen with /language
 * (kept in the session), else the user's Telegram language when supported, else DEFAULT_LOCALE.
 */
export function createI18n(config: Pick<Config, "defaultLocale">): I18n<BotContext> {
  const i18n = new I18n<BotContext>({
    defaultLocale: config.defaultLocale,
    directory: LOCALES_DIR,
    useSession: true,
    fluentBundleOptions: { useIsolating: false },
    localeNegotiator: async (ctx) => {
      // Updates without a chat (pre_checkout_query) have no session.
      if (ctx.chat !== undefined) {
        const session = await ctx.session;
        if (isLocale(session?.__language_code)) return session.__language_code;
      }
      return supportedLocale(ctx.from?.language_code) ?? config.defaultLocale;
    },
  });
  rememberBundleChoice(i18n);
  return i18n;
}

/**
 * Every translation asks Fluent which bundles fit the locale (`negotiateLanguages` over every
 * bundle), about fifty times per order. The bundles are fixed once the locales are loaded, so the
 * answer for a locale is remembered.
 */
function rememberBundleChoice(i18n: I18n<BotContext>): void {
  const fluent = i18n.fluent as unknown as { matchBundles?: (locales: string[]) => unknown };
  const match = fluent.matchBundles;
  if (typeof match !== "function") return;
  const chosen = new Map<string, unknown>();
  fluent.matchBundles = (locales: string[]) => {
    const key = locales.join(",");
    let bundles = chosen.get(key);
    if (bundles === undefined) {
      bundles = match.call(fluent, locales);
      chosen.set(key, bundles);
    }
    return bundles;
  };
}

/** A translator bound to one locale, for the product flows, the notifier and pure builders. */
export function translator(i18n: I18n<BotContext>, locale: Locale): Translate {
  return (key, vars) => i18n.t(locale, key, vars);
}
