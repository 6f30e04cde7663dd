import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { BanRecord } from "../../customers/bans.js";
import type { CustomerNote } from "../../customers/notes.js";
import type { Order, Page } from "../../orders/types.js";
import type { ReferralStats } from "../../referrals/referrals.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";
import { OP_CB } from "../menus/operator.js";
import { escapeHtml } from "./html.js";
import { formatNumber, formatRub } from "./money.js";
import { clip, formatUtc, type OperatorView, orderButtonLabel, orderRow } from "./operator.js";

/** What an operator's /customer shows about one customer. */
export interface CustomerFile {
  userId: number;
  username?: string;
  firstName?: string;
  operator: boolean;
  ban: BanRecord | null;
  /** Absent when the shop offers no wallet. */
  balanceKopecks?: number;
  orders: Page<Order>;
  /** Absent when referrals are off. */
  referrals?: ReferralStats & { referrerName?: string };
  notes: { notes: CustomerNote[]; total: number };
  /** The id never wrote to the bot (a mistyped id would ban or credit nobody). */
  unknown?: boolean;
}

/** The customer card of /customer: who, ban state, wallet, recent orders, referrals, notes; and its buttons. */
export function renderCustomerFile(f: CustomerFile, t: Translate, locale: Locale): OperatorView {
  const lines: string[] = [
    t("op-customer-title", {
      id: String(f.userId),
      name: f.username ? `@${escapeHtml(f.username)}` : "—",
      first: f.firstName ? escapeHtml(clip(f.firstName, 64)) : "—",
    }),
  ];
  if (f.unknown) lines.push(t("op-unknown-user"));
  if (f.ban) {
    lines.push(t("op-customer-banned", { by: String(f.ban.by), time: formatUtc(f.ban.at) }));
  }
  if (f.balanceKopecks !== undefined) {
    lines.push(t("op-customer-balance", { balance: formatRub(f.balanceKopecks, locale) }));
  }
  lines.push(
    "",
    f.orders.total === 0
      ? t("op-customer-orders-none")
      : t("op-customer-orders", { total: formatNumber(f.orders.total, locale) }),
  );
  f.orders.items.forEach((o, i) => {
    lines.push(orderRow(o, i + 1, t, locale));
  });
  if (f.referrals) {
    const r = f.referrals;
    lines.push(
      "",
      t("op-customer-referrals", {
        by:
          r.referredBy === undefined
            ? "—"
            : `${r.referrerName ? `@${escapeHtml(r.referrerName)} ` : ""}id <code>${r.referredBy}</code>`,
        joined: formatNumber(r.joined, locale),
        orders: formatNumber(r.orders, locale),
        earned: formatRub(r.earnedKopecks, locale),
      }),
    );
  }
  lines.push(
    "",
    f.notes.total === 0
      ? t("op-customer-notes-none")
      : t("op-customer-notes", { total: formatNumber(f.notes.total, locale) }),
  );
  for (const n of f.notes.notes) {
    lines.push(
      t("op-customer-note", {
        time: formatUtc(n.at),
        by: String(n.by),
        text: escapeHtml(n.text),
      }),
    );
  }
  const kb = new InlineKeyboard();
  f.orders.items.forEach((o, i) => {
    kb.text(orderButtonLabel(o, i + 1), `${OP_CB.open}${o.id}`).row();
  });
  kb.text(t("op-customer-add-note"), `${CB.customerOperator}n:${f.userId}`);
  if (!f.operator) {
    kb.text(
      t(f.ban ? "op-customer-unban" : "op-customer-ban"),
      `${CB.customerOperator}${f.ban ? "u" : "b"}:${f.userId}`,
    );
  }
  kb.row();
  if (f.balanceKopecks !== undefined) kb.text(t("op-customer-wallet"), `${CB.walletOperator}p:${f.userId}:0`);
  kb.text(t("op-customer-refresh"), `${CB.customerOperator}v:${f.userId}`);
  return { text: lines.join("\n"), reply_markup: kb };
}

/** The question for a note. */
export function renderNoteQuestion(userId: number, t: Translate, notice?: string): OperatorView {
  const text = [notice, t("op-customer-note-ask", { id: String(userId), max: 500 })]
    .filter(Boolean)
    .join("\n\n");
  return {
    text,
    reply_markup: new InlineKeyboard().text(t("op-customer-note-cancel"), `${CB.customerOperator}x`),
  };
}
