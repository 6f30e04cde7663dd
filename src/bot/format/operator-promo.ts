import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { PromoStatus } from "../../promo/types.js";
import type { Translate } from "../context.js";
import { CB } from "../keyboards/callbacks.js";
import { formatNumber, formatRub } from "./money.js";

/** Codes per page of the /promo list. */
export const PROMO_PAGE_SIZE = 10;

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A code's discount: `−10%` or `−150 ₽`. */
export function formatDiscount(p: Pick<PromoStatus, "type" | "value">, locale: Locale): string {
  return p.type === "percent"
    ? `−${formatNumber(Number(p.value.toFixed(2)), locale)}%`
    : `−${formatRub(p.value, locale)}`;
}

/** One code as a line of the operators' list. */
export function describePromo(p: PromoStatus, t: Translate, locale: Locale): string {
  const parts = [`<code>${p.code}</code>`, formatDiscount(p, locale)];
  parts.push(p.products.length > 0 ? p.products.join(",") : t("op-promo-all-products"));
  parts.push(
    p.maxUses > 0
      ? t("op-promo-used-of", { used: p.used, max: p.maxUses })
      : t("op-promo-used", { used: p.used }),
  );
  if (p.perCustomer > 0) parts.push(t("op-promo-per", { per: p.perCustomer }));
  if (p.validFrom !== undefined || p.validTo !== undefined) {
    parts.push(
      `${p.validFrom !== undefined ? utcDay(p.validFrom) : "…"} – ${p.validTo !== undefined ? utcDay(p.validTo - 1) : "…"}`,
    );
  }
  if (p.minOrderKopecks > 0) parts.push(t("op-promo-min", { min: formatRub(p.minOrderKopecks, locale) }));
  if (p.disabled) parts.push(t("op-promo-off"));
  return parts.join(" · ");
}

/** /promo: how to make codes, then the newest codes with a button to switch each active one off. */
export function renderPromoList(
  page: { codes: PromoStatus[]; total: number },
  offset: number,
  t: Translate,
  locale: Locale,
  notice?: string,
): { text: string; keyboard: InlineKeyboard } {
  const lines: string[] = [];
  if (notice) lines.push(notice, "");
  lines.push(t("op-promo-title"), t("op-promo-help"), "");
  if (page.total === 0) lines.push(t("op-promo-none"));
  for (const p of page.codes) lines.push(describePromo(p, t, locale));
  const kb = new InlineKeyboard();
  for (const p of page.codes.filter((c) => !c.disabled)) {
    kb.text(t("op-promo-btn-off", { code: p.code }), `${CB.promoOperator}d:${p.code}`).row();
  }
  if (offset > 0) kb.text(t("op-btn-prev"), `${CB.promoOperator}l:${Math.max(0, offset - PROMO_PAGE_SIZE)}`);
  if (offset + page.codes.length < page.total)
    kb.text(t("op-btn-next"), `${CB.promoOperator}l:${offset + PROMO_PAGE_SIZE}`);
  return { text: lines.join("\n"), keyboard: kb };
}
