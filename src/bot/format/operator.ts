import { InlineKeyboard } from "grammy";
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
import type { Translate } from "../context.js";
import { orderCardKeyboard, ordersListKeyboard, refundConfirmKeyboard } from "../menus/operator.js";
import { formatOrderPrice, shortId } from "./card.js";
import { escapeHtml } from "./html.js";
import { formatNumber, formatRub, formatStars } from "./money.js";

/**
 * Texts of the operator tools (HTML parse mode). Everything that came from a customer or the
 * reseller is escaped; times are UTC and say so.
 */

export interface OperatorView {
  text: string;
  reply_markup: InlineKeyboard;
}

/** Telegram's limit for a message text. */
const MAX_TEXT = 4096;

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
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
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

function money(kopecks: number | undefined, locale: Locale): string {
  return kopecks === undefined ? "—" : formatRub(kopecks, locale);
}

function paymentAmount(order: Order, locale: Locale): string {
  if (order.amount === undefined) return "—";
  if (order.currency === "XTR") return formatStars(order.amount, locale);
  if (order.currency === "RUB") return formatRub(order.amount, locale);
  return "—";
}

/** Order parameters as the reseller received them. */
function parameterLines(item: OrderItem): string[] {
  const p: [string, string | number | undefined][] = [
    ["product", item.product],
    ["recipient_username", item.recipient],
    ["quantity", item.quantity],
    ["gift_id", item.giftId],
    ["code", item.code],
    ["product_ref", item.productRef],
    ["game", item.game],
    ["region", item.region],
  ];
  const out = p
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `${k}: <code>${escapeHtml(clip(String(v), 100))}</code>`);
  for (const [k, v] of Object.entries(item.fields ?? {})) {
    out.push(`fields.${escapeHtml(clip(k, 40))}: <code>${escapeHtml(clip(v, 100))}</code>`);
  }
  return out;
}

/** The rail's name for operators (`op-rail-yookassa` …). */
function railLabel(rail: Rail, t: Translate): string {
  return t(`op-rail-${rail}`);
}

/**
 * Where the customer's money went and how it came back, traceable at each provider: the rail and
 * amount paid, the charge ids, every payment page made at YooKassa or Crypto Pay, second payments
 * with their refunds, and the refund with the provider's refund id.
 */
function paymentLines(order: Order, t: Translate, locale: Locale): string[] {
  const lines: string[] = [];
  const paid = order.telegramChargeId !== undefined;
  if (order.currency === "NONE") lines.push(t("op-card-payment-none"));
  else if (paid)
    lines.push(
      t("op-card-payment-rail", {
        currency: order.currency,
        amount: paymentAmount(order, locale),
        rail: railLabel(railOf(order), t),
      }),
    );
  else lines.push(t("op-card-payment", { currency: order.currency, amount: paymentAmount(order, locale) }));
  if (order.telegramChargeId) {
    lines.push(t("op-card-charge-telegram", { id: escapeHtml(order.telegramChargeId) }));
  }
  if (order.providerChargeId) {
    lines.push(t("op-card-charge-provider", { id: escapeHtml(order.providerChargeId) }));
  }
  for (const p of order.payments ?? []) {
    lines.push(
      t("op-card-provider-payment", {
        rail: railLabel(p.rail, t),
        id: escapeHtml(clip(p.id, 80)),
        status: t(`op-payment-${p.settled ?? "open"}`),
      }),
    );
  }
  for (const x of order.extraCharges ?? []) {
    lines.push(t("op-card-extra-charge", extraChargeVars(x, t, locale)));
    if (x.refundRef) lines.push(t("op-card-extra-refund-id", { id: escapeHtml(clip(x.refundRef, 80)) }));
  }
  lines.push(t("op-card-refund", { refund: t(`op-refund-${order.refund}`) }));
  if (order.refundRef) lines.push(t("op-card-refund-id", { id: escapeHtml(clip(order.refundRef, 80)) }));
  return lines;
}

function cardText(order: Order, t: Translate, locale: Locale, withPayload: boolean): string {
  const c = order.customer;
  const lines: string[] = [];
  lines.push(t("op-card-title", { ref: orderRef(order.id), id: order.id }));
  lines.push(t("op-card-state", { state: stateLabel(order, t) }));
  lines.push("");
  lines.push(t("op-card-product", { product: productLabel(order.item, t, locale) }));
  const recipient = recipientLabel(order.item);
  if (recipient) lines.push(t("op-card-recipient", { recipient }));
  lines.push(t("op-card-parameters", { params: parameterLines(order.item).join(" · ") }));
  lines.push(
    t("op-card-customer", {
      link: `<a href="tg://user?id=${c.userId}">${escapeHtml(clip(c.firstName ?? c.username ?? String(c.userId), 40))}</a>`,
      id: String(c.userId),
      username: c.username ? `@${escapeHtml(c.username)}` : "—",
      locale: c.locale,
    }),
  );
  if (c.chatId !== c.userId) lines.push(t("op-card-chat", { chat: String(c.chatId) }));
  lines.push("");

  // Money: what the shop paid the reseller, what the customer pays, and the difference.
  const cost = order.chargedKopecks ?? order.wholesaleKopecks;
  lines.push(t("op-card-wholesale", { wholesale: money(order.wholesaleKopecks, locale) }));
  if (order.chargedKopecks !== undefined) {
    lines.push(t("op-card-charged", { charged: money(order.chargedKopecks, locale) }));
  }
  lines.push(t("op-card-price", { price: money(order.priceKopecks, locale) }));
  if (order.promo) {
    lines.push(
      t("op-card-promo", {
        code: escapeHtml(order.promo.code),
        discount: formatRub(order.promo.discountKopecks, locale),
        before: formatRub(order.promo.originalPriceKopecks, locale),
      }),
    );
  }
  if (order.priceKopecks !== undefined && cost !== undefined) {
    lines.push(t("op-card-margin", { margin: formatRub(order.priceKopecks - cost, locale) }));
  }
  lines.push(...paymentLines(order, t, locale));
  lines.push("");

  // What the reseller said.
  lines.push(t("op-card-reseller-status", { status: escapeHtml(clip(order.resellerStatus ?? "—", 40)) }));
  if (order.rejectReason) {
    lines.push(t("op-card-reject-reason", { reason: rejectReasonLabel(order.rejectReason, t) }));
    if (order.rejectBalanceRub !== undefined) {
      lines.push(
        t("op-card-reject-balance", { balance: formatRub(Math.round(order.rejectBalanceRub * 100), locale) }),
      );
    }
  }
  if (order.errorMessage)
    lines.push(t("op-card-error", { error: escapeHtml(clip(order.errorMessage, 500)) }));
  if (order.deliveredPayload) {
    lines.push(t("op-card-payload"));
    lines.push(...(withPayload ? payloadLines(order.deliveredPayload) : [t("op-card-payload-too-long")]));
  }
  lines.push(
    order.finalNotifiedAt !== undefined
      ? t("op-card-notified", { time: formatUtc(order.finalNotifiedAt) })
      : t("op-card-not-notified"),
  );
  lines.push("");

  // Timeline.
  lines.push(t("op-card-timeline"));
  const times = Object.entries(order.times)
    .filter((e): e is [OrderState, number] => typeof e[1] === "number")
    .sort((a, b) => a[1] - b[1]);
  for (const [state, at] of times) lines.push(`<code>${formatUtc(at)}</code> ${t(`op-state-${state}`)}`);
  if (order.expiresAt !== undefined && (order.state === "quoted" || order.state === "draft")) {
    lines.push(t("op-card-expires", { time: formatUtc(order.expiresAt) }));
  }
  lines.push(t("op-card-updated", { time: formatUtc(order.updatedAt) }));
  return lines.join("\n");
}

/** The detail card: every field an operator needs to answer a customer, with the actions. */
export function renderOrderCard(order: Order, t: Translate, locale: Locale): OperatorView {
  let text = cardText(order, t, locale, true);
  if (text.length > MAX_TEXT) text = cardText(order, t, locale, false);
  return { text, reply_markup: orderCardKeyboard(order, t) };
}

/**
 * The card of an order that left Redis for the archive (retention): read-only, so no actions,
 * with a line saying where it is kept (the month file of its creation).
 */
export function renderArchivedCard(order: Order, t: Translate, locale: Locale): OperatorView {
  const note = t("op-archived", { month: new Date(order.createdAt).toISOString().slice(0, 7) });
  let text = `${cardText(order, t, locale, true)}\n\n${note}`;
  if (text.length > MAX_TEXT) text = `${cardText(order, t, locale, false)}\n\n${note}`;
  return { text, reply_markup: new InlineKeyboard() };
}

/** The card with "are you sure?" buttons in place of the actions. */
export function renderRefundConfirm(order: Order, t: Translate, locale: Locale): OperatorView {
  const card = renderOrderCard(order, t, locale);
  return { text: `${card.text}\n\n${t("op-refund-confirm")}`, reply_markup: refundConfirmKeyboard(order, t) };
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
