import { idSchema, isObject, pick, textSchema } from "./parse-common.js";

/** Reading an error body: its code, message and the fields it names, and whether it means the deposit ran short. */

/** What an error body may tell: a code, a human message, and the fields it names as missing or invalid. */
export interface ErrorBodyInfo {
  code: string | null;
  message: string | null;
  fields: string[];
}

function fieldList(v: unknown): string[] {
  if (typeof v === "string" && v.trim()) return [v.trim()];
  if (Array.isArray(v)) {
    return v.flatMap((f) => {
      if (typeof f === "string") return f.trim() ? [f.trim()] : [];
      if (isObject(f)) {
        const name = pick(idSchema, f, ["field", "name", "key", "param"]);
        if (name) return [name];
        if (Array.isArray(f.path) && f.path.length > 0) return [f.path.map(String).join(".")];
      }
      return [];
    });
  }
  if (isObject(v)) return Object.keys(v);
  return [];
}

export function parseErrorBody(body: unknown): ErrorBodyInfo {
  if (!isObject(body))
    return { code: null, message: typeof body === "string" && body.trim() ? body.trim() : null, fields: [] };
  const sources = isObject(body.error) ? [body, body.error] : [body];
  const code = pick(textSchema, sources, ["error", "code", "error_code"]) ?? null;
  const message =
    pick(textSchema, sources, ["message", "detail", "error_description", "description"]) ?? null;
  const fields = new Set<string>();
  for (const src of sources) {
    for (const key of ["missing_fields", "missing", "fields", "errors", "invalid_fields"]) {
      for (const f of fieldList(src[key])) fields.add(f);
    }
  }
  return { code, message, fields: [...fields] };
}

const FUNDS_RE =
  /insufficient[\s_-]*(funds|balance|deposit)|not[\s_-]*enough[\s_-]*(funds|balance|money|deposit)|(balance|deposit)[\s_-]*(is[\s_-]*)?too[\s_-]*low|low[\s_-]*(balance|deposit)|(funds|balance|deposit)[\s_-]*insufficient/i;

/**
 * The same in Russian, which a service that prices in roubles and is run from a chat bot may
 * answer in: «Недостаточно средств», «недостаточно средств на балансе», «не хватает денег»,
 * «Баланс недостаточен», «средств недостаточно».
 */
const FUNDS_RU_RE =
  /(недостаточно|не\s+хватает)\s+(средств|денег|баланса|бал)|(средств|денег|баланса?|депозита?)\s+недостаточ|недостаточн\S*\s+(баланс|депозит|средств)/i;

/** True when an error body says the deposit does not cover the order. */
export function mentionsInsufficientFunds(info: ErrorBodyInfo): boolean {
  const text = `${info.code ?? ""} ${info.message ?? ""}`;
  return FUNDS_RE.test(text) || FUNDS_RU_RE.test(text);
}
