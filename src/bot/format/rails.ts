import type { Locale } from "../../config.js";
import { starsForPrice } from "../../orders/pricing.js";
import type { Translate } from "../context.js";
import { TOP_UP_RAILS, type TopUpRail } from "../keyboards/callbacks.js";
import { formatRub, formatStars } from "./money.js";

/** The rails a customer can pay with (`direct` is not a payment). */
export type PaymentRail = TopUpRail | "wallet";

/** A rail's name on a button, as on the order card: `⭐ Telegram Stars`, `💳 Card or SBP`, … (keys `rail-<rail>`). */
export function railLabel(rail: PaymentRail, t: Translate): string {
  return t(`rail-${rail}`);
}

/**
 * The rails of CHECKOUT a wallet can be topped up on, in CHECKOUT's order: all but `wallet` and
 * `direct`. Takes CHECKOUT as one mode or as the list of rails.
 */
export function topUpRails(checkout: string | readonly string[]): TopUpRail[] {
  const listed = typeof checkout === "string" ? checkout.split(",").map((s) => s.trim()) : checkout;
  return listed.filter((r): r is TopUpRail => (TOP_UP_RAILS as readonly string[]).includes(r));
}

/** What a top-up of `amountKopecks` costs on `rail`: Stars (ceil(roubles ÷ STAR_PRICE_RUB)) or roubles. */
export function topUpPrice(
  rail: TopUpRail,
  amountKopecks: number,
  starPriceRub: number,
  locale: Locale,
): string {
  return rail === "stars"
    ? formatStars(starsForPrice(amountKopecks, starPriceRub), locale)
    : formatRub(amountKopecks, locale);
}
