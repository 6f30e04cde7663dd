import { InlineKeyboard } from "grammy";
import type { Locale, Rail } from "../../config.js";
import { priceIn } from "../../orders/checkout.js";
import { refundRoute } from "../../orders/rails.js";
import type { Order, OrderState } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { CB, type PayRail, RAIL_CODES } from "../keyboards/callbacks.js";
import { escapeHtml } from "./html.js";
import { describeItem, describeRecipient, fieldLabel } from "./item.js";
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
  /** CHECKOUT: the rails a quoted card offers, in order (default: the order's own currency). */
  rails?: readonly Rail[];
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

/** The price on one rail, in its unit: Stars for `stars`, roubles otherwise. */
export function formatRailPrice(order: Order, rail: PayRail, locale: Locale): string {
  if (rail === "stars") return formatStars(priceIn(order, "XTR") ?? 0, locale);
  return formatRub(priceIn(order, "RUB") ?? 0, locale);
}

/** Status word(s) of an order for lists. */
export function statusLabel(state: OrderState, t: Translate): string {
  return t(`status-${state}`);
}

/** What happens to the customer's money after a failed or rejected order. */
export function refundLine(order: Order, opts: FormatOptions): string {
  const { t, locale } = opts;
  const support = opts.supportContact ? escapeHtml(opts.supportContact) : "";
  const route = refundRoute(order);
  // A refund the bot could not make (refund "needed") is the operators' to make: said below.
  if ((route === "wallet" || route === "yookassa") && order.refund !== "needed") {
    const amount = formatRub(order.amount ?? order.priceKopecks ?? 0, locale);
    const key = route === "wallet" ? "refund-wallet" : "refund-card";
    return t(order.refund === "done" ? `${key}-done` : `${key}-auto`, { amount });
  }
  if (order.currency === "XTR") {
    const stars = order.amount ?? 0;
    if (order.refund === "needed") {
      const amount = formatStars(stars, locale);
      return support
        ? t("refund-rub-shop-contact", { amount, contact: support })
        : t("refund-rub-shop", { amount });
    }
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

/**
 * Whether a quoted card offers "Promo code": a paid price (not `direct`), no code applied yet and
 * no provider payment page made (see orders/promo-checkout.ts).
 */
export function promoOffered(order: Order): boolean {
  return (
    order.state === "quoted" &&
    order.currency !== "NONE" &&
    !order.promo &&
    (order.payments ?? []).length === 0 &&
    !order.paymentStart
  );
}

/** The order's status card (HTML) with the buttons its state allows. */
export function renderCard(order: Order, opts: FormatOptions): Rendered {
  const { t, locale } = opts;
  const lines = [t("card-title", { id: shortId(order.id) }), describeItem(order.item, t, locale)];
  const recipient = describeRecipient(order.item);
  if (recipient) lines.push(t(order.item.kind === "steam" ? "card-login" : "card-recipient", { recipient }));
  if (order.item.fields) {
    for (const [k, v] of Object.entries(order.item.fields)) {
      lines.push(`${escapeHtml(fieldLabel(k, t))}: ${escapeHtml(v)}`);
    }
  }
  if (order.priceKopecks !== undefined && order.promo) {
    lines.push(
      t("card-price-promo", {
        old: formatRub(order.promo.originalPriceKopecks, locale),
        price: formatOrderPrice(order, locale),
        code: escapeHtml(order.promo.code),
        discount: formatRub(order.promo.discountKopecks, locale),
      }),
    );
    if (order.promo.clamped) lines.push(t("card-promo-clamped"));
  } else if (order.priceKopecks !== undefined)
    lines.push(t("card-price", { price: formatOrderPrice(order, locale) }));
  lines.push("", ...stateLines(order, opts));

  let keyboard: InlineKeyboard | undefined;
  const payRails = (opts.rails ?? []).filter((r): r is PayRail => r !== "direct");
  if (order.state === "quoted" && payRails.length > 1) {
    // One button per rail, each with the price in its own unit.
    keyboard = new InlineKeyboard();
    for (const rail of payRails) {
      keyboard
        .text(
          t(`btn-pay-${rail}`, { price: formatRailPrice(order, rail, locale) }),
          `${CB.payRail}${RAIL_CODES[rail]}:${order.id}`,
        )
        .row();
    }
    keyboard.text(t("btn-cancel"), CB.cancel + order.id);
    if (promoOffered(order)) keyboard.row().text(t("btn-promo"), CB.promo + order.id);
  } else if (order.state === "quoted") {
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
    if (promoOffered(order)) keyboard.row().text(t("btn-promo"), CB.promo + order.id);
  } else if (order.state === "expired") {
    keyboard = new InlineKeyboard().text(t("btn-requote"), CB.requote + order.id);
  }
  return { text: lines.join("\n"), keyboard };
}
