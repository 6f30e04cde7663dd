import type { Locale } from "../../config.js";

const intlLocale = (locale: Locale) => (locale === "ru" ? "ru-RU" : "en-US");

/** Intl formatters are costly to build and safe to share: one per locale and kind. */
const formatters = new Map<string, Intl.NumberFormat>();
function formatter(locale: Locale, kind: "rub" | "rub-kopecks" | "number"): Intl.NumberFormat {
  const key = `${locale}:${kind}`;
  let f = formatters.get(key);
  if (!f) {
    f =
      kind === "number"
        ? new Intl.NumberFormat(intlLocale(locale))
        : new Intl.NumberFormat(intlLocale(locale), {
            style: "currency",
            currency: "RUB",
            currencyDisplay: "narrowSymbol",
            minimumFractionDigits: kind === "rub" ? 0 : 2,
            maximumFractionDigits: 2,
          });
    formatters.set(key, f);
  }
  return f;
}

/**
 * Roubles for a customer: `1 234,50 ₽` (ru) / `₽1,234.50` (en); whole amounts drop the kopecks
 * (`1 235 ₽`, `₽1,235`). Spacing is what Intl gives for the locale.
 */
export function formatRub(kopecks: number, locale: Locale): string {
  return formatter(locale, kopecks % 100 === 0 ? "rub" : "rub-kopecks").format(kopecks / 100);
}

/** A plain number with the locale's grouping: `1 000 000` / `1,000,000`. */
export function formatNumber(n: number, locale: Locale): string {
  return formatter(locale, "number").format(n);
}

/** Telegram Stars as a price: `1 234 ⭐`. */
export function formatStars(stars: number, locale: Locale): string {
  return `${formatNumber(stars, locale)} ⭐`;
}
