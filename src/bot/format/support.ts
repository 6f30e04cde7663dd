import type { InlineKeyboardMarkup } from "grammy/types";
import type { Locale } from "../../config.js";
import type { Order } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";
import { formatOrderPrice } from "./card.js";
import { escapeHtml } from "./html.js";
import { clip, formatUtcShort, orderRef, productLabel, stateLabel } from "./operator.js";

/** Orders listed under a customer's first support message. */
export const SUPPORT_ORDERS_SHOWN = 5;

/** Who writes to support, as Telegram named them in the update. */
export interface SupportSender {
  userId: number;
  firstName?: string;
  username?: string;
}

/** "✉️ Contact support" under a failed or rejected order's final message (and wherever support is offered). */
export function supportKeyboard(t: Translate): InlineKeyboardMarkup {
  return { inline_keyboard: [[{ text: t("support-btn"), callback_data: CB.support }]] };
}

/** The forum topic of one customer's support line: their name, @username and id. */
export function supportTopicName(who: SupportSender): string {
  const first = who.firstName?.trim();
  const parts = [first ? clip(first, 40) : undefined, who.username ? `@${who.username}` : undefined];
  const name = parts.filter(Boolean).join(" ");
  return name ? `${name} · ${who.userId}` : String(who.userId);
}

/**
 * The operators' header of a customer's support conversation: who writes, their latest orders
 * (newest first, at most {@link SUPPORT_ORDERS_SHOWN}) and how to answer. HTML, operator texts.
 */
export function renderSupportHeader(
  who: SupportSender,
  orders: Order[],
  t: Translate,
  locale: Locale,
): string {
  const name = escapeHtml(clip(who.firstName?.trim() || "—", 60));
  const username = who.username ? ` @${escapeHtml(who.username)}` : "";
  const lines = [t("op-support-header", { name, username, id: String(who.userId) })];
  if (orders.length === 0) lines.push(t("op-support-no-orders"));
  else {
    lines.push(t("op-support-orders"));
    for (const o of orders.slice(0, SUPPORT_ORDERS_SHOWN)) {
      lines.push(
        `• <code>${orderRef(o.id)}</code> ${formatUtcShort(o.createdAt)} · ${productLabel(o.item, t, locale)} · ${formatOrderPrice(o, locale)} · ${stateLabel(o, t)}`,
      );
    }
  }
  lines.push("", t("op-support-how-to-answer"));
  return lines.join("\n");
}
