import { z } from "zod";
import type {
  Balance,
  CreateOrderResult,
  Game,
  GamePackage,
  GameRegion,
  GameRegionCatalog,
  Gift,
  NeuralItem,
  PayOrderResult,
  ProductItem,
  ResellerOrder,
} from "./types.js";

/**
 * Response shapes of the reseller API and their normalisation into our own types.
 *
 * The spec leaves several shapes open ("not shown": the products catalog, game and region
 * entries, the package list key, error bodies), so every parser here is tolerant: it looks
 * for a field under the names an API like this commonly uses, accepts numeric strings for
 * numbers, keeps unknown fields in `raw`, and skips a list item that lacks an essential field.
 * A body that cannot be understood at all throws `ResponseShapeError`, which the client turns
 * into a `ResellerApiError` of kind `bad_response` naming the endpoint.
 */

export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
}

type Obj = Record<string, unknown>;

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

/** An identifier: a non-empty string, or a number taken as its decimal text. */
export const idSchema = z.union([
  z.string().trim().min(1),
  z
    .number()
    .finite()
    .transform((n) => String(n)),
]);

const textSchema = z.string().trim().min(1);

const PRICE_KEYS = ["wholesale_price_rub", "price_rub", "unit_price_rub", "price"];

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first of `keys` (searched in each of `sources` in turn) whose value `schema` accepts. */
function pick<T>(schema: z.ZodType<T>, sources: Obj | Obj[], keys: string[]): T | undefined {
  for (const src of Array.isArray(sources) ? sources : [sources]) {
    for (const key of keys) {
      if (src[key] === undefined || src[key] === null) continue;
      const r = schema.safeParse(src[key]);
      if (r.success) return r.data;
    }
  }
  return undefined;
}

function asObject(body: unknown, what: string): Obj {
  if (!isObject(body)) throw new ResponseShapeError(`expected a JSON object with ${what}`);
  return body;
}

/** The body plus the objects commonly wrapping a payload (`data`, `result`, `order`). */
function layers(body: Obj, extra: string[] = []): Obj[] {
  const out = [body];
  for (const key of ["data", "result", ...extra]) if (isObject(body[key])) out.push(body[key] as Obj);
  return out;
}

/**
 * The list a catalog carries: the body itself when it is an array, else the first of `keys`
 * holding an array (or an object of objects, keyed by id, which becomes a list with the key
 * stored under `idKey`), else the first array found at the top level (or inside data/result).
 */
function findList(
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
function normaliseList<T>(items: unknown[], what: string, one: (item: unknown) => T | undefined): T[] {
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

// ---------------------------------------------------------------- products

export const productItemSchema = objectSchema.transform((raw): ProductItem | undefined => {
  const id = pick(idSchema, raw, ["product", "id", "code", "key", "name"]);
  if (id === undefined) return undefined;
  return {
    id,
    title: pick(textSchema, raw, ["title", "name"]) ?? null,
    wholesalePriceRub: pick(numberSchema, raw, PRICE_KEYS) ?? null,
    raw,
  };
});

export function parseProducts(body: unknown): ProductItem[] {
  const list = findList(body, ["products", "items", "data", "result"], "product");
  return normaliseList(list, "products", (item) => {
    if (typeof item === "string" && item.trim()) {
      return { id: item.trim(), title: null, wholesalePriceRub: null, raw: { product: item } };
    }
    const r = productItemSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

// ---------------------------------------------------------------- gifts

export const giftSchema = objectSchema.transform((raw): Gift | undefined => {
  const giftId = pick(idSchema, raw, ["gift_id", "id"]);
  const starCount = pick(numberSchema, raw, ["star_count", "stars"]);
  const price = pick(numberSchema, raw, PRICE_KEYS);
  if (giftId === undefined || starCount === undefined || price === undefined) return undefined;
  return {
    giftId,
    emoji: pick(z.string(), raw, ["emoji"]) ?? "",
    starCount,
    remainingCount: pick(numberSchema, raw, ["remaining_count", "remaining"]) ?? null,
    wholesalePriceRub: price,
    raw,
  };
});

export function parseGifts(body: unknown): Gift[] {
  const list = findList(body, ["gifts", "items"], "gift_id");
  return normaliseList(list, "gifts", (item) => {
    const r = giftSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

// ---------------------------------------------------------------- neural

export const neuralItemSchema = objectSchema.transform((raw): NeuralItem | undefined => {
  const code = pick(idSchema, raw, ["code", "id", "key"]);
  const price = pick(numberSchema, raw, PRICE_KEYS);
  if (code === undefined || price === undefined) return undefined;
  return {
    code,
    title: pick(textSchema, raw, ["title", "name"]) ?? code,
    emoji: pick(z.string(), raw, ["emoji"]) ?? "",
    delivery: pick(z.string(), raw, ["delivery"]) ?? "",
    wholesalePriceRub: price,
    raw,
  };
});

export function parseNeural(body: unknown): NeuralItem[] {
  const list = findList(body, ["items", "neural", "products"], "code");
  return normaliseList(list, "neural items", (item) => {
    const r = neuralItemSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

// ---------------------------------------------------------------- games

export const gameSchema = objectSchema.transform((raw): Game | undefined => {
  const key = pick(idSchema, raw, ["key", "game", "game_key", "code", "id", "slug"]);
  if (key === undefined) return undefined;
  return { key, title: pick(textSchema, raw, ["title", "name", "key"]) ?? key, raw };
});

export function parseGames(body: unknown): Game[] {
  const list = findList(body, ["games"], "key");
  return normaliseList(list, "games", (item) => {
    if (typeof item === "string" && item.trim())
      return { key: item.trim(), title: item.trim(), raw: { key: item } };
    const r = gameSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

export const regionSchema = objectSchema.transform((raw): GameRegion | undefined => {
  const code = pick(idSchema, raw, ["code", "region", "region_code", "id", "key"]);
  if (code === undefined) return undefined;
  return { code, title: pick(textSchema, raw, ["title", "name"]) ?? code, raw };
});

export function parseRegions(body: unknown): GameRegion[] {
  const list = findList(body, ["regions"], "code");
  return normaliseList(list, "regions", (item) => {
    if (typeof item === "string" && item.trim())
      return { code: item.trim(), title: item.trim(), raw: { code: item } };
    const r = regionSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

export const packageSchema = objectSchema.transform((raw): GamePackage | undefined => {
  const productRef = pick(idSchema, raw, ["product_ref"]);
  const price = pick(numberSchema, raw, PRICE_KEYS);
  if (productRef === undefined || price === undefined) return undefined;
  return {
    productRef,
    title: pick(textSchema, raw, ["title", "name"]) ?? productRef,
    wholesalePriceRub: price,
    raw,
  };
});

/** `fields` as an array of names, of objects with `key`/`name`, or an object keyed by name. */
function parseFieldNames(v: unknown): string[] {
  const names: string[] = [];
  if (Array.isArray(v)) {
    for (const f of v) {
      const name =
        typeof f === "string"
          ? f.trim()
          : isObject(f)
            ? pick(idSchema, f, ["key", "name", "field", "id"])
            : undefined;
      if (name) names.push(name);
    }
  } else if (isObject(v)) {
    names.push(...Object.keys(v));
  }
  return [...new Set(names)];
}

export function parsePackages(body: unknown): GameRegionCatalog {
  const obj = asObject(body, "delivery, fields and packages");
  const sources = layers(obj);
  const fields = parseFieldNames(sources.map((s) => s.fields).find((f) => f !== undefined && f !== null));
  const rawDelivery = pick(z.string(), sources, ["delivery", "delivery_type", "type"]);
  const delivery: "codes" | "topup" =
    rawDelivery === "codes" || rawDelivery === "topup" ? rawDelivery : fields.length > 0 ? "topup" : "codes";
  const hasRefs = (items: unknown[]) =>
    items.length === 0 || items.some((i) => isObject(i) && i.product_ref !== undefined);
  const list = findList(obj, ["packages", "items", "products"], "product_ref", hasRefs);
  const packages = normaliseList(list, "packages", (item) => {
    const r = packageSchema.safeParse(item);
    return r.success ? r.data : undefined;
  });
  return { delivery, fields, packages };
}

// ---------------------------------------------------------------- balance

export const balanceResponseSchema = z.looseObject({
  balance_rub: numberSchema,
  balance_nano: numberSchema.nullish(),
});

export function parseBalance(body: unknown): Balance {
  const obj = asObject(body, "balance_rub");
  for (const layer of layers(obj, ["balance"])) {
    const r = balanceResponseSchema.safeParse(layer);
    if (r.success) return { balanceRub: r.data.balance_rub, balanceNano: r.data.balance_nano ?? null };
  }
  const rub = pick(numberSchema, obj, ["balance", "balance_rub"]);
  if (rub !== undefined) return { balanceRub: rub, balanceNano: null };
  throw new ResponseShapeError("no balance_rub in the body");
}

// ---------------------------------------------------------------- orders

/** The spec shows only the first answer to create; a repeat's body is "not shown", so the keys are looked up tolerantly. */
export const createOrderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().optional(),
  total_to_pay_rub: numberSchema,
});

export function parseCreateOrder(body: unknown, customId: string): CreateOrderResult {
  const obj = asObject(body, "total_to_pay_rub");
  const sources = layers(obj, ["order"]);
  const total = pick(numberSchema, sources, ["total_to_pay_rub", "total_rub", "price_rub", "amount_rub"]);
  if (total === undefined) throw new ResponseShapeError("no total_to_pay_rub in the body");
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status: pick(textSchema, sources, ["status"]) ?? "created",
    totalToPayRub: total,
    raw: obj,
  };
}

export const payOrderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().optional(),
  price_charged_rub: numberSchema,
});

export function parsePayOrder(body: unknown, customId: string): PayOrderResult {
  const obj = asObject(body, "price_charged_rub");
  const sources = layers(obj, ["order"]);
  const charged = pick(numberSchema, sources, [
    "price_charged_rub",
    "charged_rub",
    "price_rub",
    "total_to_pay_rub",
    "total_rub",
    "amount_rub",
  ]);
  if (charged === undefined) throw new ResponseShapeError("no price_charged_rub in the body");
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status: pick(textSchema, sources, ["status"]) ?? "pending",
    priceChargedRub: charged,
    raw: obj,
  };
}

export const orderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().min(1),
  delivered_payload: z.unknown().optional(),
  error_message: z.string().nullish(),
});

export function parseOrder(body: unknown, customId: string): ResellerOrder {
  const obj = asObject(body, "status");
  const sources = layers(obj, ["order"]);
  const status = pick(textSchema, sources, ["status"]);
  if (status === undefined) throw new ResponseShapeError("no status in the order");
  const payload = sources.map((s) => s.delivered_payload).find((p) => p !== undefined && p !== null);
  const errorMessage = sources.map((s) => s.error_message).find((m) => m !== undefined && m !== null);
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status,
    deliveredPayload: payload === undefined ? null : isObject(payload) ? payload : { value: payload },
    errorMessage:
      errorMessage === undefined
        ? null
        : typeof errorMessage === "string"
          ? errorMessage
          : JSON.stringify(errorMessage),
    raw: obj,
  };
}

// ---------------------------------------------------------------- errors

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

/** True when an error body says the deposit does not cover the order. */
export function mentionsInsufficientFunds(info: ErrorBodyInfo): boolean {
  return FUNDS_RE.test(`${info.code ?? ""} ${info.message ?? ""}`);
}
