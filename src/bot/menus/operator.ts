import { InlineKeyboard } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { Order, OrderFilter } from "../../orders/types.js";
import type { Translate } from "../context.js";

/**
 * Buttons of the operator tools. They are plain inline keyboards whose callback data carries
 * everything a tap needs (`op:<letter>…`), so a button keeps working after a restart, on
 * another process, and while new orders shift the list underneath it.
 *
 *   op:b                 refresh /balance
 *   op:s                 refresh /stats
 *   op:l:<f>:<offset>    a page of /orders; <f> is a filter letter (see FILTER_LETTER)
 *   op:o:<id>            send the order's detail card as a new message
 *   op:c:<id>            redraw the detail card in place
 *   op:r:<id>            Re-check now
 *   op:n:<id>            Resend the customer's notification
 *   op:m:<id>            Mark refunded, asking to confirm
 *   op:y:<id>            Mark refunded, confirmed
 *
 * The longest is op:o:<uuid>, 41 bytes (Telegram allows 64). The customer's own /orders
 * paging uses `op:<digits>`; every operator payload has a letter after `op:`, so the two never
 * overlap (see OPERATOR_CALLBACK).
 */
export const OP_CB = {
  balance: "op:b",
  stats: "op:s",
  list: "op:l:",
  open: "op:o:",
  card: "op:c:",
  recheck: "op:r:",
  resend: "op:n:",
  refundAsk: "op:m:",
  refundConfirm: "op:y:",
} as const;

/** Every operator button payload (and nothing a customer's button sends). */
export const OPERATOR_CALLBACK = /^op:[a-z]/;

/** Order ids as they appear in callback data. */
const ID = "([0-9a-fA-F-]{36})";
export const OP_CB_MATCH = {
  list: /^op:l:([apdfx]):(\d{1,7})$/,
  open: new RegExp(`^op:o:${ID}$`),
  card: new RegExp(`^op:c:${ID}$`),
  recheck: new RegExp(`^op:r:${ID}$`),
  resend: new RegExp(`^op:n:${ID}$`),
  refundAsk: new RegExp(`^op:m:${ID}$`),
  refundConfirm: new RegExp(`^op:y:${ID}$`),
} as const;

export const OPERATOR_PAGE_SIZE = 10;

export const OPERATOR_FILTERS: readonly OrderFilter[] = [
  "all",
  "pending",
  "delivered",
  "failed",
  "attention",
];

export const FILTER_LETTER: Record<OrderFilter, string> = {
  all: "a",
  pending: "p",
  delivered: "d",
  failed: "f",
  attention: "x",
};

export function filterFromLetter(letter: string): OrderFilter | undefined {
  return OPERATOR_FILTERS.find((f) => FILTER_LETTER[f] === letter);
}

export function listData(filter: OrderFilter, offset: number): string {
  return `${OP_CB.list}${FILTER_LETTER[filter]}:${Math.max(0, Math.floor(offset))}`;
}

/** The button that opens an order's card (alerts and list rows). */
export function openOrderButton(orderId: string, t: Translate): InlineKeyboardMarkup {
  return new InlineKeyboard().text(t("op-btn-open"), OP_CB.open + orderId);
}

/**
 * /orders keyboard: a button per row (opens the card), the filters (the current one marked),
 * and paging; the middle paging button redraws the page.
 */
export function ordersListKeyboard(
  rows: { order: Order; label: string }[],
  filter: OrderFilter,
  offset: number,
  total: number,
  t: Translate,
): InlineKeyboard {
  const kb = new InlineKeyboard();
  for (const { order, label } of rows) kb.text(label, OP_CB.open + order.id).row();
  OPERATOR_FILTERS.forEach((f, i) => {
    const name = t(`op-filter-${f}`);
    kb.text(f === filter ? `• ${name}` : name, listData(f, 0));
    if (i === 2) kb.row();
  });
  kb.row();
  const pages = Math.max(1, Math.ceil(total / OPERATOR_PAGE_SIZE));
  const page = Math.min(pages, Math.floor(offset / OPERATOR_PAGE_SIZE) + 1);
  if (offset > 0) kb.text(t("op-btn-prev"), listData(filter, Math.max(0, offset - OPERATOR_PAGE_SIZE)));
  kb.text(t("op-btn-page", { page, pages }), listData(filter, offset));
  if (offset + rows.length < total) kb.text(t("op-btn-next"), listData(filter, offset + OPERATOR_PAGE_SIZE));
  return kb;
}

/** The detail card's actions: only those that can do something for the order's state. */
export function orderCardKeyboard(order: Order, t: Translate): InlineKeyboard {
  const kb = new InlineKeyboard();
  if (order.state === "paid" || order.state === "pending")
    kb.text(t("op-btn-recheck"), OP_CB.recheck + order.id);
  if (order.state === "delivered" || order.state === "failed" || order.state === "rejected") {
    kb.text(t("op-btn-resend"), OP_CB.resend + order.id);
  }
  kb.row();
  if (order.refund === "needed") kb.text(t("op-btn-refunded"), OP_CB.refundAsk + order.id).row();
  kb.text(t("op-btn-refresh"), OP_CB.card + order.id);
  return kb;
}

/** Asked before an order is marked refunded: a stray tap must not hide a debt. */
export function refundConfirmKeyboard(order: Order, t: Translate): InlineKeyboard {
  return new InlineKeyboard()
    .text(t("op-btn-refunded-yes"), OP_CB.refundConfirm + order.id)
    .text(t("op-btn-refunded-no"), OP_CB.card + order.id);
}

export function balanceKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t("op-btn-refresh"), OP_CB.balance);
}

export function statsKeyboard(t: Translate): InlineKeyboard {
  return new InlineKeyboard().text(t("op-btn-refresh"), OP_CB.stats);
}
