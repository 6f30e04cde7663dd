import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { Order, OrderState } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";
import { escapeHtml } from "./html.js";
import { describeItem, describeRecipient } from "./item.js";
import { formatRub, formatStars } from "./money.js";

export interface Rendered {
  text: string;
  keyboard?: InlineKeyboard;
}

export interface FormatOptions {
  t: Translate;
  locale: Locale;
  /** SUPPORT_CONTACT, shown where a customer may need a person. */
  supportContact?: string;
}

/** Short human reference of an order: the first 8 characters of its id. */
export function shortId(orderId: string): string {
  return orderId.slice(0, 8);
}

/** What the customer pays: `83 ⭐ (125 ₽)` for Stars, `125 ₽` otherwise, `—` before a quote. */
export function formatOrderPrice(order: Order, locale: Locale): string {
  const rub = order.priceKopecks !== undefined ? formatRub(order.priceKopecks, locale) : "—";
  if (order.currency === "XTR" && order.amount !== undefined)
    return `${formatStars(order.amount, locale)} (${rub})`;
  return rub;
}

/** Status word(s) of an order for lists. */
export function statusLabel(state: OrderState, t: Translate): string {
  return t(`status-${state}`);
}

/** What happens to the customer's money after a failed or rejected order. */
export function refundLine(order: Order, opts: FormatOptions): string {
  const { t, locale } = opts;
  const support = opts.supportContact ? escapeHtml(opts.supportContact) : "";
  if (order.currency === "XTR") {
    const stars = order.amount ?? 0;
    return order.refund === "done" ? t("refund-stars-done", { stars }) : t("refund-stars-auto", { stars });
  }
  if (order.currency === "RUB") {
    const amount = formatRub(order.amount ?? order.priceKopecks ?? 0, locale);
    if (order.refund === "done") return t("refund-rub-done", { amount });
    return support
      ? t("refund-rub-shop-contact", { amount, contact: support })
      : t("refund-rub-shop", { amount });
  }
  return t("refund-none-charged");
}

function stateLines(order: Order, opts: FormatOptions): string[] {
  const { t } = opts;
  switch (order.state) {
    case "draft":
      return [t("card-status-draft")];
    case "quoted": {
      const ttlMs =
        order.expiresAt !== undefined ? order.expiresAt - (order.times.quoted ?? order.createdAt) : 0;
      const minutes = Math.max(1, Math.round(ttlMs / 60_000));
      return [
        order.currency === "NONE"
          ? t("card-status-quoted-direct", { minutes })
          : t("card-status-quoted", { minutes }),
      ];
    }
    case "paid":
      return [t("card-status-paid")];
    case "pending":
      return [t("card-status-pending")];
    case "delivered":
      return [t("card-status-delivered")];
    case "failed":
      return [t("card-status-failed"), refundLine(order, opts)];
    case "rejected":
      return [t("card-status-rejected"), refundLine(order, opts)];
    case "expired":
      return [t("card-status-expired")];
    case "cancelled":
      return [t("card-status-cancelled")];
  }
}

/** The order's status card (HTML) with the buttons its state allows. */
export function renderCard(order: Order, opts: FormatOptions): Rendered {
  const { t, locale } = opts;
  const lines = [t("card-title", { id: shortId(order.id) }), describeItem(order.item, t, locale)];
  const recipient = describeRecipient(order.item);
  if (recipient) lines.push(t(order.item.kind === "steam" ? "card-login" : "card-recipient", { recipient }));
  if (order.item.fields) {
    for (const [k, v] of Object.entries(order.item.fields)) lines.push(`${escapeHtml(k)}: ${escapeHtml(v)}`);
  }
  if (order.priceKopecks !== undefined)
    lines.push(t("card-price", { price: formatOrderPrice(order, locale) }));
  lines.push("", ...stateLines(order, opts));

  let keyboard: InlineKeyboard | undefined;
  if (order.state === "quoted") {
    const payLabel =
      order.currency === "NONE"
        ? t("btn-confirm")
        : t("btn-pay", {
            price:
              order.currency === "XTR"
                ? formatStars(order.amount ?? 0, locale)
                : formatRub(order.amount ?? 0, locale),
          });
    keyboard = new InlineKeyboard()
      .text(payLabel, CB.pay + order.id)
      .text(t("btn-cancel"), CB.cancel + order.id);
  } else if (order.state === "expired") {
    keyboard = new InlineKeyboard().text(t("btn-requote"), CB.requote + order.id);
  }
  return { text: lines.join("\n"), keyboard };
}
