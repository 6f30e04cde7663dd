import type { Locale } from "../../config.js";
import type { OrderItem } from "../../orders/types.js";
import { premiumMonths } from "../../reseller/types.js";
import type { Translate } from "../context.js";
import { escapeHtml } from "./html.js";
import { formatRub } from "./money.js";

/** One line naming what was bought (HTML, reseller-provided parts escaped). */
export function describeItem(item: OrderItem, t: Translate, locale: Locale): string {
  switch (item.kind) {
    case "stars":
      return t("item-stars", { count: item.quantity ?? 0 });
    case "premium":
      return t("item-premium", { months: premiumMonths(item.product) ?? 0 });
    case "gift":
      return t("item-gift", { emoji: escapeHtml(item.emoji ?? "🎁"), title: escapeHtml(item.title ?? "") });
    case "steam":
      return t("item-steam", { amount: formatRub((item.quantity ?? 0) * 100, locale) });
    case "neural":
      return t("item-neural", { emoji: escapeHtml(item.emoji ?? "🤖"), title: escapeHtml(item.title ?? "") });
    case "game":
      return t("item-game", { title: escapeHtml(item.title ?? ""), count: item.quantity ?? 1 });
  }
}

/** "for whom" line value, or undefined when the product has no recipient. */
export function describeRecipient(item: OrderItem): string | undefined {
  if (!item.recipient) return undefined;
  return item.kind === "steam" ? escapeHtml(item.recipient) : `@${escapeHtml(item.recipient)}`;
}
