import type { Locale } from "../../config.js";

const intlLocale = (locale: Locale) => (locale === "ru" ? "ru-RU" : "en-US");

/**
 * Roubles for a customer: `1 234,50 ₽` (ru) / `₽1,234.50` (en); whole amounts drop the kopecks
 * (`1 235 ₽`, `₽1,235`). Spacing is what Intl gives for the locale.
 */
export function formatRub(kopecks: number, locale: Locale): string {
  const whole = kopecks % 100 === 0;
  return new Intl.NumberFormat(intlLocale(locale), {
    style: "currency",
    currency: "RUB",
    currencyDisplay: "narrowSymbol",
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(kopecks / 100);
}

/** A plain number with the locale's grouping: `1 000 000` / `1,000,000`. */
export function formatNumber(n: number, locale: Locale): string {
  return new Intl.NumberFormat(intlLocale(locale)).format(n);
}

/** Telegram Stars as a price: `1 234 ⭐`. */
export function formatStars(stars: number, locale: Locale): string {
  return `${formatNumber(stars, locale)} ⭐`;
}
