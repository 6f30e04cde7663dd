import type { Locale } from "../../config.js";
import { refundRoute, refundsAutomatically } from "../../orders/rails.js";
import type { ExtraCharge, Order } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { shortId } from "./card.js";
import { formatRub, formatStars } from "./money.js";

/**
 * What the customer is told of a second payment for an order paid already: where the money goes
 * (back as Stars, to the wallet, the way it was paid) or that the shop will give it back by hand.
 * `settled`: the bot has made the refund or given up on it (a refund still `needed` then is the
 * operators' to make); otherwise the bot's own refund is still under way.
 */
export function renderExtraPayment(
  order: Order,
  charge: ExtraCharge,
  opts: { t: Translate; locale: Locale; settled: boolean },
): string {
  const { t, locale } = opts;
  const id = shortId(order.id);
  const amount =
    charge.currency === "XTR" ? formatStars(charge.amount, locale) : formatRub(charge.amount, locale);
  const route = refundRoute(charge);
  const byBot = refundsAutomatically(route) && (charge.refund === "done" || !opts.settled);
  if (!byBot) return t("payment-extra-flagged", { id, amount });
  if (route === "wallet") return t("payment-extra-wallet", { id, amount });
  if (route === "yookassa") return t("payment-extra-card", { id, amount });
  return t("payment-extra-refunded", { id, amount });
}
