import { z } from "zod";

/**
 * Shared pieces of the reseller API's response parsers (parse-catalog, parse-orders,
 * parse-errors), which normalise the API's bodies into our own types.
 *
 * The spec leaves several shapes open ("not shown": the products catalog, game and region
 * entries, the package list key, error bodies), so every parser is tolerant: it looks
 * for a field under the names an API like this commonly uses, accepts numeric strings for
 * numbers, keeps unknown fields in `raw`, and skips a list item that lacks an essential field.
 * A body that cannot be understood at all throws `ResponseShapeError`, which the client turns
 * into a `ResellerApiError` of kind `bad_response` naming the endpoint.
 */

export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
}

export type Obj = Record<string, unknown>;

/** Any JSON object; unknown fields are kept. */
export const objectSchema = z.looseObject({});

/** Every response carries `success`; `false` means an error even with a 2xx status. */
export const envelopeSchema = z.looseObject({ success: z.boolean().optional() });

/** A number, or a string holding one ("1 234.50" and "1234,5" included). */
export const numberSchema = z.union([
  z.number().finite(),
  z
    .string()
    .transform((s) => s.replace(/[\s\u00a0]/g, "").replace(",", "."))
    .pipe(z.string().regex(/^-?\d+(\.\d+)?$/))
    .transform(Number),
]);

/**
 * A price or a total in roubles: a number (or numeric string) of at least one kopeck. A zero or
 * negative price is no price: a catalog item carrying one is skipped, and a create answer with one
 * is not understood, rather than sold at the smallest amount a customer can pay.
 */
export const priceSchema = numberSchema.refine((n) => Math.round(n * 100) > 0, {
  error: "must be a positive amount",
});

/** An identifier: a non-empty string, or a number taken as its decimal text. */
export const idSchema = z.union([
  z.string().trim().min(1),
  z
    .number()
    .finite()
    .transform((n) => String(n)),
]);

export const textSchema = z.string().trim().min(1);

export const PRICE_KEYS = ["wholesale_price_rub", "price_rub", "unit_price_rub", "price"];

export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first of `keys` (searched in each of `sources` in turn) whose value `schema` accepts. */
export function pick<T>(schema: z.ZodType<T>, sources: Obj | Obj[], keys: string[]): T | undefined {
  for (const src of Array.isArray(sources) ? sources : [sources]) {
    for (const key of keys) {
      if (src[key] === undefined || src[key] === null) continue;
      const r = schema.safeParse(src[key]);
      if (r.success) return r.data;
    }
  }
  return undefined;
}

export function asObject(body: unknown, what: string): Obj {
  if (!isObject(body)) throw new ResponseShapeError(`expected a JSON object with ${what}`);
  return body;
}

/** The body plus the objects commonly wrapping a payload (`data`, `result`, `order`). */
export function layers(body: Obj, extra: string[] = []): Obj[] {
  const out = [body];
  for (const key of ["data", "result", ...extra]) if (isObject(body[key])) out.push(body[key] as Obj);
  return out;
}

/**
 * The list a catalog carries: the body itself when it is an array, else the first of `keys`
 * holding an array (or an object of objects, keyed by id, which becomes a list with the key
 * stored under `idKey`), else the first array found at the top level (or inside data/result).
 */
export function findList(
  body: unknown,
  keys: string[],
  idKey: string,
  accept?: (items: unknown[]) => boolean,
): unknown[] {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) throw new ResponseShapeError("expected a JSON object or array");
  const ok = (v: unknown): v is unknown[] => Array.isArray(v) && (!accept || accept(v));
  for (const layer of layers(body)) {
    for (const key of keys) {
      const v = layer[key];
      if (ok(v)) return v;
      if (isObject(v) && Object.values(v).length > 0 && Object.values(v).every(isObject)) {
        const items = Object.entries(v).map(([k, item]) => ({ [idKey]: k, ...(item as Obj) }));
        if (ok(items)) return items;
      }
    }
  }
  for (const layer of layers(body)) {
    for (const v of Object.values(layer)) if (ok(v)) return v;
  }
  throw new ResponseShapeError(`no list found (looked for ${keys.join("/")})`);
}

/** Normalises each item, skipping those without an essential field; a non-empty list with no usable item is an error. */
export function normaliseList<T>(items: unknown[], what: string, one: (item: unknown) => T | undefined): T[] {
  const out: T[] = [];
  for (const item of items) {
    const v = one(item);
    if (v !== undefined) out.push(v);
  }
  if (items.length > 0 && out.length === 0) {
    throw new ResponseShapeError(`none of the ${items.length} ${what} had the fields we need`);
  }
  return out;
}
