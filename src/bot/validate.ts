/**
 * Pure checks of what a customer types. Each returns the parsed value or the name of the rule
 * that was broken; the flow turns the rule into a translated sentence (`rule-*` keys).
 */

/**
 * The longest typed answer any question takes; a longer message is refused before a parser sees it
 * (each question's own rule may be tighter).
 */
export const MAX_INPUT_CHARS = 256;

export type Checked<T> =
  | { ok: true; value: T }
  | { ok: false; rule: string; vars?: Record<string, string | number> };

/** Telegram's username rules: 5–32 of [A-Za-z0-9_], starts with a letter, no trailing "_", no "__". */
export const USERNAME_RE = /^[A-Za-z](?!.*__)[A-Za-z0-9_]{3,30}[A-Za-z0-9]$/;

/**
 * Accepts `@name`, `name`, `t.me/name`, `https://t.me/name` (also telegram.me) and returns the
 * bare username, or which rule it breaks.
 */
export function parseRecipient(input: string): Checked<string> {
  let s = input.trim();
  const link = /^(?:https?:\/\/)?(?:www\.)?(?:t(?:elegram)?\.me)\/(.*)$/i.exec(s);
  if (link) s = (link[1] ?? "").replace(/[/?#].*$/, "");
  if (s.startsWith("@")) s = s.slice(1);
  if (s.length === 0) return { ok: false, rule: "rule-username-empty" };
  if (/\s/.test(s)) return { ok: false, rule: "rule-username-chars" };
  if (!/^[A-Za-z0-9_]+$/.test(s)) return { ok: false, rule: "rule-username-chars" };
  if (s.length < 5 || s.length > 32) return { ok: false, rule: "rule-username-length" };
  if (!/^[A-Za-z]/.test(s)) return { ok: false, rule: "rule-username-start" };
  if (s.endsWith("_")) return { ok: false, rule: "rule-username-end" };
  if (s.includes("__")) return { ok: false, rule: "rule-username-double" };
  return USERNAME_RE.test(s) ? { ok: true, value: s } : { ok: false, rule: "rule-username-chars" };
}

/**
 * A whole number typed by a person: spaces, no-break spaces, thin spaces, "_", "," and "." as
 * thousands separators are accepted ("1 000", "1,000", "1.000"); fractions are not.
 */
export function parseWholeNumber(input: string, min: number, max: number): Checked<number> {
  const s = input.trim().replace(/[\s\u00a0\u202f_']/g, "");
  if (s === "") return { ok: false, rule: "rule-number-format", vars: { min, max } };
  let digits: string;
  if (/^\d+$/.test(s)) digits = s;
  else if (/^\d{1,3}([.,]\d{3})+$/.test(s)) digits = s.replace(/[.,]/g, "");
  else if (/^\d+[.,]\d+$/.test(s)) return { ok: false, rule: "rule-number-whole", vars: { min, max } };
  else return { ok: false, rule: "rule-number-format", vars: { min, max } };
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) return { ok: false, rule: "rule-number-max", vars: { min, max } };
  if (n < min) return { ok: false, rule: "rule-number-min", vars: { min, max } };
  if (n > max) return { ok: false, rule: "rule-number-max", vars: { min, max } };
  return { ok: true, value: n };
}

/** A game-platform (Steam) login: 1–64 visible characters without spaces. */
export function parseSteamLogin(input: string): Checked<string> {
  const s = input.trim();
  if (s.length === 0) return { ok: false, rule: "rule-login-empty" };
  if (/\s/.test(s)) return { ok: false, rule: "rule-login-spaces" };
  if (s.length > 64) return { ok: false, rule: "rule-login-length", vars: { max: 64 } };
  if (/[\u0000-\u001f<>]/.test(s)) return { ok: false, rule: "rule-login-chars" };
  return { ok: true, value: s };
}

/** A free-text answer to a top-up field (player id, server…): 1–128 characters, one line. */
export function parseFieldValue(input: string): Checked<string> {
  const s = input.trim();
  if (s.length === 0) return { ok: false, rule: "rule-field-empty" };
  if (s.length > 128) return { ok: false, rule: "rule-field-length", vars: { max: 128 } };
  if (/[\r\n]/.test(s)) return { ok: false, rule: "rule-field-one-line" };
  return { ok: true, value: s };
}

export const LIMITS = {
  stars: { min: 50, max: 1_000_000 },
  steam: { min: 50, max: 50_000 },
  gameQuantity: { min: 1, max: 10 },
  /** A wallet top-up, in whole roubles. */
  topUpRub: { min: 10, max: 100_000 },
} as const;

/** The top-up amounts offered as buttons, in roubles. */
export const TOP_UP_PRESETS_RUB = [100, 300, 500, 1000, 3000] as const;

/** The longest reason an operator may give for a wallet correction. */
export const ADJUST_NOTE_MAX = 200;

/**
 * An operator's signed correction in roubles: `+150`, `-20.50`, `-20,5`, `150` (a credit); at most
 * two decimals, not zero, at most 1 000 000 ₽ either way. Returns kopecks.
 */
export function parseSignedRub(input: string): Checked<number> {
  const s = input
    .trim()
    .replace(/[\s\u00a0\u202f]/g, "")
    .replace(/^−/, "-");
  const m = /^([+-]?)(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) return { ok: false, rule: "op-wallet-rule-amount" };
  const kopecks = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  if (kopecks === 0) return { ok: false, rule: "op-wallet-rule-amount" };
  if (kopecks > ADJUST_MAX_KOPECKS) return { ok: false, rule: "op-wallet-rule-amount" };
  return { ok: true, value: m[1] === "-" ? -kopecks : kopecks };
}

/** The largest correction an operator may type, either way: 1 000 000 ₽. */
export const ADJUST_MAX_KOPECKS = 100_000_000;

/** An operator's reason for a correction: 1–{@link ADJUST_NOTE_MAX} characters, one line. */
export function parseAdjustNote(input: string): Checked<string> {
  const s = input.trim();
  if (s.length === 0) return { ok: false, rule: "op-wallet-rule-note" };
  if (s.length > ADJUST_NOTE_MAX || /[\r\n]/.test(s)) return { ok: false, rule: "op-wallet-rule-note" };
  return { ok: true, value: s };
}

export const STAR_PRESETS = [50, 100, 250, 500, 1000, 2500] as const;
