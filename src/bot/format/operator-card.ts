import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import { railOf } from "../../orders/rails.js";
import type { Order, OrderItem, OrderState } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { orderCardKeyboard, refundConfirmKeyboard } from "../menus/operator.js";
import { escapeHtml } from "./html.js";
import { formatRub, formatStars } from "./money.js";
import {
  chargeLines,
  clip,
  extraChargeVars,
  formatUtc,
  MAX_TEXT,
  type OperatorView,
  orderRef,
  payloadLines,
  productLabel,
  railLabel,
  recipientLabel,
  rejectReasonLabel,
  stateLabel,
} from "./operator.js";

/** States in which an order earns the shop nothing: its card shows no margin. */
const EARNS_NOTHING: readonly OrderState[] = ["failed", "rejected", "cancelled", "expired"];

/**
 * The operators' card of one order (/order, the buttons of /orders and of alerts): what was
 * bought and for whom, the customer's payment and the reseller's charge, the state's history,
 * and the actions that fit the state (HTML parse mode; customer and reseller text escaped).
 */

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
  lines.push(...chargeLines(order, t, "op-card"));
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
  // An order that did not go through earns nothing (as /stats and the export count it).
  if (order.priceKopecks !== undefined && cost !== undefined && !EARNS_NOTHING.includes(order.state)) {
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
