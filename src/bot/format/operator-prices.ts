import { InlineKeyboard } from "grammy";
import { type Locale, PRODUCT_KINDS, type ProductKind } from "../../config.js";
import type { PriceChange, PriceSettings } from "../../orders/price-settings.js";
import { ROUNDINGS, type Rounding } from "../../orders/pricing.js";
import type { Translate } from "../context.js";
import { escapeHtml } from "./html.js";
import { formatRub } from "./money.js";

/**
 * The operators' /prices screen. Buttons carry everything a tap needs (`pp:…`, see
 * PRICES_CB), so they keep working after a restart and on another process:
 *
 *   pp:v                 redraw the screen
 *   pp:m:<kind>          ask for a kind's markup (typed)
 *   pp:t:<kind>:<1|0>    switch a product on (1) or off (0); a repeated tap changes nothing
 *   pp:i                 ask for one catalog item's markup (typed: "<ref> <percent>")
 *   pp:g                 ask for the minimum margin (typed, roubles)
 *   pp:r:<rounding>      set the rounding
 *   pp:x                 drop the typed question
 */
export const PRICES_CB = {
  view: "pp:v",
  markup: "pp:m:",
  toggle: "pp:t:",
  item: "pp:i",
  margin: "pp:g",
  rounding: "pp:r:",
  cancel: "pp:x",
} as const;

/**
 * Characters the item markups may take on the screen (Telegram shows at most 4096 in all); the
 * ones past it are counted, not listed.
 */
const ITEMS_BUDGET = 2000;

/** The recent changes shown under the settings. */
export const PRICE_CHANGES_SHOWN = 8;

/** A percent as typed back to the operator: "10", "12.5". */
export function formatPercent(p: number): string {
  return `${Number(p.toFixed(2))}%`;
}

function roundingLabel(r: Rounding, t: Translate): string {
  return t(`op-prices-rounding-${r}`);
}

function utcMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

/** One log entry as a line: when, who, what changed from what to what. */
export function describeChange(c: PriceChange, t: Translate, locale: Locale): string {
  const [head, ...rest] = c.field.split(":");
  const tail = rest.join(":");
  const value = (v: string | null): string => {
    if (v === null) return t("op-prices-value-none");
    if (head === "markup" || head === "item") return formatPercent(Number(v));
    if (head === "on") return t(v === "1" ? "op-prices-on" : "op-prices-off");
    if (head === "minMargin") return formatRub(Number(v), locale);
    if (head === "rounding" && (ROUNDINGS as readonly string[]).includes(v))
      return roundingLabel(v as Rounding, t);
    return escapeHtml(v);
  };
  let what: string;
  if (head === "markup") what = t("op-prices-what-markup", { kind: t(`menu-${tail}`) });
  else if (head === "on") what = t("op-prices-what-on", { kind: t(`menu-${tail}`) });
  else if (head === "item") what = t("op-prices-what-item", { ref: escapeHtml(tail) });
  else if (head === "minMargin") what = t("op-prices-what-margin");
  else if (head === "rounding") what = t("op-prices-what-rounding");
  else what = escapeHtml(c.field);
  return t("op-prices-change", {
    at: utcMinute(c.at),
    by: String(c.by),
    what,
    from: value(c.from),
    to: value(c.to),
  });
}

/** The /prices screen: markups and products by kind, item markups, margin, rounding, recent changes. */
export function renderPrices(
  s: PriceSettings,
  changes: PriceChange[],
  t: Translate,
  locale: Locale,
  notice?: string,
): { text: string; keyboard: InlineKeyboard } {
  const lines: string[] = [];
  if (notice) lines.push(notice, "");
  lines.push(t("op-prices-title"), "");
  for (const k of PRODUCT_KINDS) {
    lines.push(
      t("op-prices-kind", {
        state: t(s.enabled[k] ? "op-prices-on" : "op-prices-off"),
        kind: t(`menu-${k}`),
        markup: formatPercent(s.markup[k]),
      }),
    );
  }
  lines.push("", t("op-prices-items"));
  const items = Object.entries(s.items).sort(([a], [b]) => a.localeCompare(b));
  if (items.length === 0) lines.push(t("op-prices-no-items"));
  let used = 0;
  for (const [i, [ref, p]] of items.entries()) {
    const line = t("op-prices-item", { ref: escapeHtml(ref), markup: formatPercent(p) });
    used += line.length + 1;
    if (used > ITEMS_BUDGET) {
      lines.push(t("op-prices-items-more", { count: items.length - i }));
      break;
    }
    lines.push(line);
  }
  lines.push(
    "",
    t("op-prices-margin", { margin: formatRub(s.minMarginKopecks, locale) }),
    t("op-prices-rounding", { rounding: roundingLabel(s.rounding, t) }),
    "",
    t("op-prices-changes"),
  );
  if (changes.length === 0) lines.push(t("op-prices-no-changes"));
  for (const c of changes) lines.push(describeChange(c, t, locale));

  const kb = new InlineKeyboard();
  for (const k of PRODUCT_KINDS) {
    kb.text(`${t(`menu-${k}`)} · ${formatPercent(s.markup[k])}`, `${PRICES_CB.markup}${k}`);
    kb.text(
      t(s.enabled[k] ? "op-prices-btn-turn-off" : "op-prices-btn-turn-on"),
      `${PRICES_CB.toggle}${k}:${s.enabled[k] ? 0 : 1}`,
    );
    kb.row();
  }
  kb.text(t("op-prices-btn-item"), PRICES_CB.item).row();
  kb.text(
    t("op-prices-btn-margin", { margin: formatRub(s.minMarginKopecks, locale) }),
    PRICES_CB.margin,
  ).row();
  for (const r of ROUNDINGS) {
    const label = roundingLabel(r, t);
    kb.text(r === s.rounding ? `• ${label}` : label, `${PRICES_CB.rounding}${r}`);
  }
  kb.row().text(t("op-btn-refresh"), PRICES_CB.view);
  return { text: lines.join("\n"), keyboard: kb };
}

/** A typed question of the /prices screen, with its Cancel button. */
export function renderPricesQuestion(
  text: string,
  t: Translate,
  notice?: string,
): { text: string; keyboard: InlineKeyboard } {
  return {
    text: notice ? `⚠️ ${notice}\n\n${text}` : text,
    keyboard: new InlineKeyboard().text(t("btn-cancel"), PRICES_CB.cancel),
  };
}

export function kindOf(value: string | undefined): ProductKind | undefined {
  return PRODUCT_KINDS.find((k) => k === value);
}
