import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { WalletEntry, WalletPage } from "../../wallet/types.js";
import type { Translate } from "../context.js";
import { CB, encodeTopUp, type TopUpRail } from "../keyboards/callbacks.js";
import { LIMITS, TOP_UP_PRESETS_RUB } from "../validate.js";
import { shortId } from "./card.js";
import { escapeHtml } from "./html.js";
import { formatRub } from "./money.js";
import { paged } from "./page-range.js";
import { railLabel, topUpPrice } from "./rails.js";

/** Entries shown per wallet page (customers and operators). */
export const WALLET_PAGE_SIZE = 5;

export interface WalletView {
  text: string;
  keyboard?: InlineKeyboard;
}

const dateFormats = new Map<Locale, Intl.DateTimeFormat>();
/** An entry's day, in UTC: `23.11.2026` (ru) / `Nov 23, 2026` (en). */
export function formatDay(ms: number, locale: Locale): string {
  let f = dateFormats.get(locale);
  if (!f) {
    f = new Intl.DateTimeFormat(locale === "ru" ? "ru-RU" : "en-US", {
      day: locale === "ru" ? "2-digit" : "numeric",
      month: locale === "ru" ? "2-digit" : "short",
      year: "numeric",
      timeZone: "UTC",
    });
    dateFormats.set(locale, f);
  }
  return f.format(ms);
}

/** A signed amount: `+300 ₽`, `−20,50 ₽`. */
export function formatSignedRub(kopecks: number, locale: Locale): string {
  return `${kopecks < 0 ? "−" : "+"}${formatRub(Math.abs(kopecks), locale)}`;
}

/** Why money moved, in words: top-up, order #1a2b3c4d, refund for order #…, referral bonus, correction. */
export function entryReason(entry: WalletEntry, t: Translate): string {
  const id = shortId(entry.orderId ?? "");
  switch (entry.reason) {
    case "topup":
      return t("wallet-reason-topup");
    case "order":
      return t("wallet-reason-order", { id });
    case "refund":
      return t("wallet-reason-refund", { id });
    case "referral":
      return t("wallet-reason-referral");
    case "adjustment":
      return t("wallet-reason-adjustment", { note: escapeHtml(entry.note ?? "") });
  }
}

/** One line of a wallet page: `23.11.2026 · +300 ₽ · top-up`. */
export function entryLine(entry: WalletEntry, t: Translate, locale: Locale): string {
  return `${formatDay(entry.at, locale)} · <b>${formatSignedRub(entry.amountKopecks, locale)}</b> · ${entryReason(entry, t)}`;
}

/** The entries part of a page (title line and lines), shared with the operators' view. */
export function entryLines(page: WalletPage, offset: number, t: Translate, locale: Locale): string[] {
  if (page.entries.length === 0) return [t(page.total === 0 ? "wallet-empty" : "wallet-past-end")];
  const from = offset + 1;
  const to = offset + page.entries.length;
  return [
    t("wallet-entries", {
      from,
      to,
      total: page.total,
      paged: paged(offset, page.entries.length, page.total),
    }),
    ...page.entries.map((e) => entryLine(e, t, locale)),
  ];
}

/** Newer / Older buttons of a page, each made by `data(offset)`. */
export function pagingRow(
  kb: InlineKeyboard,
  page: WalletPage,
  offset: number,
  data: (offset: number) => string,
  t: Translate,
): void {
  if (offset > 0) kb.text(t("wallet-btn-newer"), data(Math.max(0, offset - WALLET_PAGE_SIZE)));
  if (offset + page.entries.length < page.total)
    kb.text(t("wallet-btn-older"), data(offset + WALLET_PAGE_SIZE));
  kb.row();
}

/** /wallet: the balance, a page of entries (newest first), paging and Top up (when a rail is offered). */
export function renderWallet(
  page: WalletPage,
  offset: number,
  opts: { t: Translate; locale: Locale; canTopUp: boolean },
): WalletView {
  const { t, locale } = opts;
  const text = [
    t("wallet-title"),
    t("wallet-balance", { balance: formatRub(page.balanceKopecks, locale) }),
    "",
    ...entryLines(page, offset, t, locale),
  ].join("\n");
  const kb = new InlineKeyboard();
  pagingRow(kb, page, offset, (o) => `${CB.wallet}p:${o}`, t);
  if (opts.canTopUp) kb.text(t("wallet-btn-topup"), `${CB.wallet}t`);
  return { text, keyboard: kb };
}

/** "Top up": the preset amounts, "Other amount" and Back to the wallet. */
export function renderTopUpAmounts(t: Translate, locale: Locale): WalletView {
  const kb = new InlineKeyboard();
  TOP_UP_PRESETS_RUB.forEach((rub, i) => {
    kb.text(formatRub(rub * 100, locale), `${CB.wallet}a:${rub * 100}`);
    if (i % 3 === 2) kb.row();
  });
  kb.row().text(t("wallet-btn-other"), `${CB.wallet}o`);
  kb.row().text(t("btn-back"), `${CB.wallet}p:0`);
  return { text: t("wallet-topup-ask"), keyboard: kb };
}

/** The bounds of a typed top-up, as the customer reads them. */
export function topUpBounds(locale: Locale): { min: string; max: string } {
  return {
    min: formatRub(LIMITS.topUpRub.min * 100, locale),
    max: formatRub(LIMITS.topUpRub.max * 100, locale),
  };
}

/** "Other amount": asks for whole roubles; `notice` is the rule a bad answer broke. */
export function renderTopUpQuestion(t: Translate, locale: Locale, notice?: string): WalletView {
  const question = t("wallet-topup-other", topUpBounds(locale));
  return {
    text: notice ? `⚠️ ${notice}\n\n${question}` : question,
    keyboard: new InlineKeyboard().text(t("btn-cancel"), `${CB.wallet}x`),
  };
}

/** An amount chosen: one button per top-up rail with its price (`⭐ Telegram Stars — 67 ⭐`), and Back. */
export function renderTopUpRails(
  amountKopecks: number,
  rails: readonly TopUpRail[],
  opts: { t: Translate; locale: Locale; starPriceRub: number },
): WalletView {
  const { t, locale } = opts;
  const kb = new InlineKeyboard();
  for (const rail of rails) {
    const label = t("wallet-rail-button", {
      rail: railLabel(rail, t),
      price: topUpPrice(rail, amountKopecks, opts.starPriceRub, locale),
    });
    kb.text(label, encodeTopUp(rail, amountKopecks)).row();
  }
  kb.text(t("btn-back"), `${CB.wallet}t`);
  const amount = formatRub(amountKopecks, locale);
  const text = rails.length > 0 ? t("wallet-topup-rails", { amount }) : t("wallet-topup-no-rails");
  return { text, keyboard: kb };
}
