import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { WalletPage } from "../../wallet/types.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";
import { ADJUST_NOTE_MAX } from "../validate.js";
import { escapeHtml } from "./html.js";
import { formatRub } from "./money.js";
import { paged } from "./page-range.js";
import { entryLine, formatSignedRub, pagingRow, type WalletView } from "./wallet.js";

/** Callback data of the operators' wallet buttons (see CB.walletOperator). */
export const walletOpData = {
  page: (userId: number, offset: number) => `${CB.walletOperator}p:${userId}:${offset}`,
  adjust: (userId: number) => `${CB.walletOperator}a:${userId}`,
  confirm: (userId: number, uuid: string) => `${CB.walletOperator}y:${userId}:${uuid}`,
  cancel: `${CB.walletOperator}x`,
};

/** `/wallet <user id>`: a customer's balance and entries (with who made each correction), paging, Adjust. */
export function renderOperatorWallet(
  userId: number,
  page: WalletPage,
  offset: number,
  t: Translate,
  locale: Locale,
  notice?: string,
  /** The id never wrote to the bot: said under the title (a mistyped id credits nobody). */
  unknown = false,
): WalletView {
  const lines = [
    ...(notice ? [notice, ""] : []),
    t("op-wallet-title", { user: String(userId) }),
    ...(unknown ? [t("op-unknown-user")] : []),
    t("op-wallet-balance", { balance: formatRub(page.balanceKopecks, locale) }),
    "",
  ];
  if (page.entries.length === 0) lines.push(t(page.total === 0 ? "op-wallet-empty" : "wallet-past-end"));
  else {
    lines.push(
      t("op-wallet-entries", {
        from: offset + 1,
        to: offset + page.entries.length,
        total: page.total,
        paged: paged(offset, page.entries.length, page.total),
      }),
    );
    for (const e of page.entries) {
      const by = e.by !== undefined ? ` · ${t("op-wallet-by", { operator: String(e.by) })}` : "";
      lines.push(`${entryLine(e, t, locale)}${by} · <code>${escapeHtml(e.ref)}</code>`);
    }
  }
  const kb = new InlineKeyboard();
  pagingRow(kb, page, offset, (o) => walletOpData.page(userId, o), t);
  kb.text(t("op-wallet-btn-adjust"), walletOpData.adjust(userId));
  kb.text(t("op-btn-refresh"), walletOpData.page(userId, offset));
  return { text: lines.join("\n"), keyboard: kb };
}

const cancelKeyboard = (t: Translate) =>
  new InlineKeyboard().text(t("op-wallet-btn-cancel"), walletOpData.cancel);
const withNotice = (notice: string | undefined, text: string) => (notice ? `⚠️ ${notice}\n\n${text}` : text);

/** Adjust, first question: the signed amount in roubles. */
export function renderAdjustAmount(
  userId: number,
  balanceKopecks: number,
  t: Translate,
  locale: Locale,
  notice?: string,
): WalletView {
  const text = t("op-wallet-ask-amount", {
    user: String(userId),
    balance: formatRub(balanceKopecks, locale),
  });
  return { text: withNotice(notice, text), keyboard: cancelKeyboard(t) };
}

/** Adjust, second question: the reason (required). */
export function renderAdjustNote(
  userId: number,
  amountKopecks: number,
  t: Translate,
  locale: Locale,
  notice?: string,
): WalletView {
  const text = t("op-wallet-ask-note", {
    user: String(userId),
    amount: formatSignedRub(amountKopecks, locale),
    max: ADJUST_NOTE_MAX,
  });
  return { text: withNotice(notice, text), keyboard: cancelKeyboard(t) };
}

/** Adjust, confirmation: both answers; Confirm carries the adjustment's uuid. */
export function renderAdjustConfirm(
  a: { userId: number; amountKopecks: number; note: string; uuid: string; balanceKopecks: number },
  t: Translate,
  locale: Locale,
): WalletView {
  const text = t("op-wallet-confirm", {
    user: String(a.userId),
    amount: formatSignedRub(a.amountKopecks, locale),
    note: escapeHtml(a.note),
    balance: formatRub(a.balanceKopecks, locale),
  });
  const kb = new InlineKeyboard()
    .text(t("op-wallet-btn-confirm"), walletOpData.confirm(a.userId, a.uuid))
    .text(t("op-wallet-btn-cancel"), walletOpData.cancel);
  return { text, keyboard: kb };
}
