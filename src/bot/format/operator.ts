import type { InlineKeyboard } from "grammy";
import type { Locale, Rail } from "../../config.js";
import { railOf } from "../../orders/rails.js";
import type {
  Customer,
  ExtraCharge,
  Order,
  OrderFilter,
  OrderItem,
  OrderState,
  Page,
} from "../../orders/types.js";
import type { ResellerErrorKind } from "../../reseller/errors.js";
import { premiumMonths } from "../../reseller/types.js";
import { cutText } from "../../util/text.js";
import type { Translate } from "../context.js";
import { ordersListKeyboard } from "../menus/operator.js";
import { formatOrderPrice, shortId } from "./card.js";
import { escapeHtml } from "./html.js";
import { formatNumber, formatRub, formatStars } from "./money.js";
import { paged } from "./page-range.js";

/**
 * Texts of the operator tools (HTML parse mode). Everything that came from a customer or the
 * reseller is escaped; times are UTC and say so.
 */

export interface OperatorView {
  text: string;
  reply_markup: InlineKeyboard;
}

/** Telegram's limit for a message text. */
/** Telegram's longest message text. */
export const MAX_TEXT = 4096;

const STATE_ICON: Record<OrderState, string> = {
  draft: "📝",
  quoted: "🧾",
  paid: "💳",
  pending: "⏳",
  delivered: "✅",
  failed: "❌",
  rejected: "⛔",
  expired: "⌛",
  cancelled: "🚫",
};

export function clip(value: string, max: number): string {
  return value.length > max ? `${cutText(value, max - 1)}…` : value;
}

/** `2025-11-22 03:14:05` (UTC). */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** `11-22 03:14` (UTC), for list rows. */
export function formatUtcShort(ms: number): string {
  return new Date(ms).toISOString().slice(5, 16).replace("T", " ");
}

/** Short human reference of an order, as customers see it on their cards: `#` + 8 characters. */
export function orderRef(orderId: string): string {
  return `#${shortId(orderId)}`;
}

/** What was bought, one line of HTML: `⭐ Stars ×50`, `🎮 PUBG Mobile · 60 UC ×2`. */
export function productLabel(item: OrderItem, t: Translate, locale: Locale): string {
  const title = (fallback: string | undefined) => escapeHtml(clip(item.title ?? fallback ?? "", 100));
  switch (item.kind) {
    case "stars":
      return t("op-product-stars", { qty: formatNumber(item.quantity ?? 0, locale) });
    case "premium":
      return t("op-product-premium", { months: premiumMonths(item.product) ?? 0 });
    case "gift":
      return t("op-product-gift", { emoji: escapeHtml(item.emoji ?? "🎁"), title: title(item.giftId) });
    case "steam":
      return t("op-product-steam", { amount: formatRub((item.quantity ?? 0) * 100, locale) });
    case "neural":
      return t("op-product-neural", { emoji: escapeHtml(item.emoji ?? "🤖"), title: title(item.code) });
    case "game":
      return t("op-product-game", {
        title: title(item.productRef),
        qty: formatNumber(item.quantity ?? 1, locale),
      });
  }
}

/** The recipient as the reseller gets it (`@user`, or the game-platform login), HTML. */
export function recipientLabel(item: OrderItem): string | undefined {
  if (!item.recipient) return undefined;
  const r = escapeHtml(clip(item.recipient, 64));
  return item.kind === "steam" ? r : `@${r}`;
}

/** The customer in one short plain form: `@username`, else the first name, else the id. */
export function customerShort(customer: Customer): string {
  if (customer.username) return `@${escapeHtml(customer.username)}`;
  if (customer.firstName) return escapeHtml(clip(customer.firstName, 40));
  return `id ${customer.userId}`;
}

/**
 * The lines naming an order's payment for an operator (`<prefix>-charge-telegram`, `-provider`,
 * `-payment`): a Telegram charge id only for a payment made in Telegram (Stars, a provider
 * invoice); a YooKassa or Crypto Pay payment by the provider's id, a wallet payment by its ref.
 */
export function chargeLines(order: Order, t: Translate, prefix: "op-card" | "op-alert"): string[] {
  const rail = railOf(order);
  const inTelegram = rail === "stars" || rail === "invoice";
  const lines: string[] = [];
  if (order.telegramChargeId && inTelegram) {
    lines.push(t(`${prefix}-charge-telegram`, { id: escapeHtml(order.telegramChargeId) }));
  }
  if (order.providerChargeId) {
    lines.push(t(`${prefix}-charge-provider`, { id: escapeHtml(order.providerChargeId) }));
  } else if (order.telegramChargeId && !inTelegram) {
    lines.push(t(`${prefix}-charge-payment`, { id: escapeHtml(order.telegramChargeId) }));
  }
  return lines;
}

/** Variables of a line about a second payment for an order (`op-card-extra-charge`, `op-alert-extra-charge`). */
export function extraChargeVars(x: ExtraCharge, t: Translate, locale: Locale): Record<string, string> {
  return {
    amount: x.currency === "XTR" ? formatStars(x.amount, locale) : formatRub(x.amount, locale),
    id: escapeHtml(x.telegramChargeId),
    refund: t(`op-refund-${x.refund}`),
    rail: railLabel(railOf(x), t),
  };
}

/** `✅ delivered`, with the stuck and refund flags when they apply. */
export function stateLabel(order: Order, t: Translate): string {
  const parts = [t(`op-state-${order.state}`)];
  if (order.stuck) parts.push(t("op-flag-stuck"));
  if (order.refund === "needed") parts.push(t("op-flag-refund-needed"));
  return parts.join(" · ");
}

/** One /orders row: time, product and quantity, recipient, customer, price, state. */
export function orderRow(order: Order, n: number, t: Translate, locale: Locale): string {
  const recipient = recipientLabel(order.item);
  const what = `${productLabel(order.item, t, locale)}${recipient ? ` → ${recipient}` : ""}`;
  return (
    `${n}. <code>${formatUtcShort(order.createdAt)}</code> · ${what}\n` +
    `    👤 ${customerShort(order.customer)} · ${formatOrderPrice(order, locale)} · ${stateLabel(order, t)}`
  );
}

/** Plain-text label of a row's button. */
export function orderButtonLabel(order: Order, n: number): string {
  const qty = order.item.quantity !== undefined ? ` ×${order.item.quantity}` : "";
  return `${n}. ${STATE_ICON[order.state]} ${orderRef(order.id)} · ${order.item.product}${qty}`;
}

/** A page of /orders (newest first) with its keyboard. */
export function renderOrdersList(
  page: Page<Order>,
  filter: OrderFilter,
  offset: number,
  t: Translate,
  locale: Locale,
): OperatorView {
  const filterName = t(`op-filter-${filter}`);
  const rows = page.items.map((order, i) => ({ order, label: orderButtonLabel(order, offset + i + 1) }));
  const reply_markup = ordersListKeyboard(rows, filter, offset, page.total, t);
  if (page.items.length === 0) {
    return {
      text:
        page.total === 0
          ? t("op-orders-empty", { filter: filterName })
          : t("op-orders-past-end", { filter: filterName }),
      reply_markup,
    };
  }
  const header = t("op-orders-title", {
    filter: filterName,
    from: String(offset + 1),
    to: String(offset + page.items.length),
    total: String(page.total),
    paged: paged(offset, page.items.length, page.total),
  });
  const lines = page.items.map((o, i) => orderRow(o, offset + i + 1, t, locale));
  return { text: [header, t("op-times-utc"), "", lines.join("\n\n")].join("\n"), reply_markup };
}

/** Delivered payload as lines: codes and ids in `<code>`, unknown shapes as JSON. */
export function payloadLines(payload: Record<string, unknown>, maxLines = 25): string[] {
  const lines: string[] = [];
  const value = (v: unknown) =>
    `<code>${escapeHtml(clip(typeof v === "string" ? v : JSON.stringify(v), 300))}</code>`;
  for (const [k, v] of Object.entries(payload)) {
    const key = escapeHtml(clip(k, 60));
    if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")) {
      lines.push(`• ${key}:`);
      for (const x of v) lines.push(`   ${value(x)}`);
    } else {
      lines.push(`• ${key}: ${value(v)}`);
    }
  }
  if (lines.length > maxLines) return [...lines.slice(0, maxLines), "• …"];
  return lines;
}

/** The rail's name for operators (`op-rail-yookassa` …). */
export function railLabel(rail: Rail, t: Translate): string {
  return t(`op-rail-${rail}`);
}

export function rejectReasonLabel(kind: string, t: Translate): string {
  const known: string[] = [
    "insufficient_funds",
    "auth",
    "not_found",
    "bad_request",
    "rate_limited",
    "server",
    "network",
    "timeout",
    "bad_response",
  ] satisfies ResellerErrorKind[];
  return known.includes(kind) ? t(`op-reason-${kind}`) : escapeHtml(kind);
}
