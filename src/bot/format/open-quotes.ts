import type { Order } from "../../orders/types.js";
import { type FormatOptions, formatOrderPrice, shortId } from "./card.js";
import { describeItem } from "./item.js";

/**
 * Why a new quote was refused (MAX_OPEN_QUOTES) and the customer's unpaid quotes, oldest first,
 * one line each: what, price, reference.
 */
export function renderOpenQuotes(max: number, open: Order[], opts: FormatOptions): string {
  const { t, locale } = opts;
  const lines = open.map(
    (o, i) =>
      `${i + 1}. ${describeItem(o.item, t, locale)}\n    ${formatOrderPrice(o, locale)} · #${shortId(o.id)}`,
  );
  return [t("quote-limit", { max, count: open.length }), "", ...lines].join("\n");
}
