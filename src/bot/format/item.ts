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

/** Field names resellers commonly use for top-up fields and delivery details, said in the customer's language (`field-<name>`). */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  "uid",
  "user_id",
  "player_id",
  "player_tag",
  "server",
  "zone_id",
  "region",
  "account",
  "login",
  "package",
  "quantity",
  "amount",
  "amount_rub",
]);

/** A field's name as the customer reads it: translated when it is a common one, else {@link humanizeKey}. */
export function fieldLabel(key: string, t: Translate): string {
  const k = key
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return KNOWN_FIELDS.has(k) ? t(`field-${k}`) : humanizeKey(key);
}

export function humanizeKey(key: string): string {
  const s = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim();
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}
