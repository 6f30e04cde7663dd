import { InlineKeyboard } from "grammy";
import type { Order, Page } from "../../orders/types.js";
import { CB } from "../keyboards/callbacks.js";
import { type FormatOptions, formatOrderPrice, shortId, statusLabel } from "./card.js";
import { describeItem } from "./item.js";
import { paged } from "./page-range.js";

export const ORDERS_PAGE_SIZE = 5;

/** A customer's /orders page: newest first, a button per order, and paging. */
export function renderOrdersPage(
  page: Page<Order>,
  offset: number,
  opts: FormatOptions,
): { text: string; keyboard?: InlineKeyboard } {
  const { t, locale } = opts;
  if (page.total === 0) return { text: t("orders-empty") };
  const from = offset + 1;
  const to = offset + page.items.length;
  const lines = [
    t("orders-title", { from, to, total: page.total, paged: paged(offset, page.items.length, page.total) }),
    "",
  ];
  const kb = new InlineKeyboard();
  page.items.forEach((o, i) => {
    lines.push(
      `${offset + i + 1}. ${describeItem(o.item, t, locale)}\n    ${statusLabel(o.state, t)} · ${formatOrderPrice(o, locale)} · #${shortId(o.id)}`,
    );
    kb.text(`${offset + i + 1}. #${shortId(o.id)} · ${statusLabel(o.state, t)}`, CB.orderView + o.id).row();
  });
  const prev = offset > 0;
  const next = offset + page.items.length < page.total;
  if (prev) kb.text(t("btn-prev"), `${CB.ordersPage}${Math.max(0, offset - ORDERS_PAGE_SIZE)}`);
  if (next) kb.text(t("btn-next"), `${CB.ordersPage}${offset + ORDERS_PAGE_SIZE}`);
  return { text: lines.join("\n"), keyboard: kb };
}
