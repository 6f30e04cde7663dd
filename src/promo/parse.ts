import { PRODUCT_KINDS, type ProductKind } from "../config.js";
import { cutText } from "../util/text.js";
import { normalizeCode } from "./discount.js";
import type { PromoCode } from "./types.js";

/**
 * What an operator types after `/promo new <CODE>` or `/promo batch <N>`:
 *
 *   <discount> [for=<kinds>] [limit=<uses>] [per=<uses>] [from=<YYYY-MM-DD>] [to=<YYYY-MM-DD>] [min=<roubles>]
 *
 * `10%` is a percent (0.01–100), `150` or `149.90` roubles off. Days are UTC, both included. Each
 * broken rule is named (an operator text key `op-promo-rule-*`); nothing is created then.
 */
export type PromoTerms = Omit<PromoCode, "code" | "createdAt" | "createdBy" | "batch">;

export type Parsed<T> =
  | { ok: true; value: T }
  | { ok: false; rule: string; vars?: Record<string, string | number> };

export const MAX_BATCH = 100;
const DAY_MS = 24 * 3600_000;

function day(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === s ? t : undefined;
}

function rubles(s: string): number | undefined {
  const m = /^(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) : undefined;
}

function whole(s: string, max: number): number | undefined {
  if (!/^\d{1,7}$/.test(s)) return undefined;
  const n = Number(s);
  return n <= max ? n : undefined;
}

/** `now` decides which days have passed: a code whose last day is over could never be used. */
export function parseTerms(tokens: string[], now: number = Date.now()): Parsed<PromoTerms> {
  const [discount, ...options] = tokens;
  if (!discount) return { ok: false, rule: "op-promo-rule-discount" };
  const terms: PromoTerms = {
    type: "percent",
    value: 0,
    products: [],
    maxUses: 0,
    perCustomer: 0,
    minOrderKopecks: 0,
  };
  const pct = /^(\d{1,3}(?:[.,]\d{1,2})?)%$/.exec(discount);
  if (pct) {
    const v = Number((pct[1] ?? "").replace(",", "."));
    if (!(v > 0 && v <= 100)) return { ok: false, rule: "op-promo-rule-discount" };
    terms.value = v;
  } else {
    const k = rubles(discount.replace(/₽$/, ""));
    if (!k || k > 100_000_000) return { ok: false, rule: "op-promo-rule-discount" };
    terms.type = "fixed";
    terms.value = k;
  }
  let fromDay: number | undefined;
  let toDay: number | undefined;
  const seen = new Set<string>();
  for (const opt of options) {
    const [key = "", value = ""] = opt.split("=", 2);
    // `limit=5 limit=6` says two things: which one was meant is the operator's to say.
    if (seen.has(key)) return { ok: false, rule: "op-promo-rule-repeated", vars: { key: key.slice(0, 32) } };
    seen.add(key);
    if (key === "for") {
      const kinds = value.split(",").filter(Boolean);
      const bad = kinds.filter((k) => !(PRODUCT_KINDS as readonly string[]).includes(k));
      if (kinds.length === 0 || bad.length > 0) return { ok: false, rule: "op-promo-rule-for" };
      terms.products = [...new Set(kinds as ProductKind[])];
    } else if (key === "limit" || key === "per") {
      const n = whole(value, 1_000_000);
      if (n === undefined) return { ok: false, rule: "op-promo-rule-count", vars: { key } };
      if (key === "limit") terms.maxUses = n;
      else terms.perCustomer = n;
    } else if (key === "from" || key === "to") {
      const d = day(value);
      if (d === undefined) return { ok: false, rule: "op-promo-rule-date", vars: { key } };
      if (key === "from") fromDay = d;
      else toDay = d;
    } else if (key === "min") {
      const k = rubles(value);
      if (k === undefined) return { ok: false, rule: "op-promo-rule-min" };
      terms.minOrderKopecks = k;
    } else {
      return { ok: false, rule: "op-promo-rule-option", vars: { option: cutText(opt, 32) } };
    }
  }
  if (fromDay !== undefined && toDay !== undefined && toDay < fromDay)
    return { ok: false, rule: "op-promo-rule-dates" };
  if (toDay !== undefined && toDay + DAY_MS <= now)
    return {
      ok: false,
      rule: "op-promo-rule-past",
      vars: { day: new Date(toDay).toISOString().slice(0, 10) },
    };
  if (fromDay !== undefined) terms.validFrom = fromDay;
  if (toDay !== undefined) terms.validTo = toDay + DAY_MS;
  return { ok: true, value: terms };
}

export type PromoCommand =
  | { action: "list" }
  | { action: "new"; code: string; terms: PromoTerms }
  | { action: "batch"; count: number; terms: PromoTerms }
  | { action: "off"; code: string };

/** The words after `/promo`; `now` as in {@link parseTerms}. */
export function parsePromoCommand(text: string, now: number = Date.now()): Parsed<PromoCommand> {
  const [action = "", first = "", ...rest] = text.trim().split(/\s+/).filter(Boolean);
  if (action === "" || action === "list") return { ok: true, value: { action: "list" } };
  if (action === "off") {
    const code = normalizeCode(first);
    return code ? { ok: true, value: { action: "off", code } } : { ok: false, rule: "op-promo-rule-code" };
  }
  if (action === "new") {
    const code = normalizeCode(first);
    if (!code) return { ok: false, rule: "op-promo-rule-code" };
    const terms = parseTerms(rest, now);
    return terms.ok ? { ok: true, value: { action: "new", code, terms: terms.value } } : terms;
  }
  if (action === "batch") {
    const count = whole(first, MAX_BATCH);
    if (!count) return { ok: false, rule: "op-promo-rule-batch", vars: { max: MAX_BATCH } };
    const terms = parseTerms(rest, now);
    if (!terms.ok) return terms;
    // One-time codes: each is used once; a `limit` given is the same for all of them.
    return { ok: true, value: { action: "batch", count, terms: { ...terms.value, maxUses: 1 } } };
  }
  return { ok: false, rule: "op-promo-usage" };
}
