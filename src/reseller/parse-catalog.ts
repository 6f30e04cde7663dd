import { z } from "zod";
import {
  asObject,
  findList,
  idSchema,
  isObject,
  layers,
  normaliseList,
  numberSchema,
  objectSchema,
  PRICE_KEYS,
  pick,
  priceSchema,
  textSchema,
} from "./parse-common.js";
import type {
  Game,
  GamePackage,
  GameRegion,
  GameRegionCatalog,
  Gift,
  NeuralItem,
  ProductItem,
} from "./types.js";

/** Parsers of the catalog endpoints: products, gifts, neural items, games, their regions and packages. */

// ---------------------------------------------------------------- products

export const productItemSchema = objectSchema.transform((raw): ProductItem | undefined => {
  const id = pick(idSchema, raw, ["product", "id", "code", "key", "name"]);
  if (id === undefined) return undefined;
  return {
    id,
    title: pick(textSchema, raw, ["title", "name"]) ?? null,
    wholesalePriceRub: pick(priceSchema, raw, PRICE_KEYS) ?? null,
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
  const price = pick(priceSchema, raw, PRICE_KEYS);
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
  const price = pick(priceSchema, raw, PRICE_KEYS);
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
  const price = pick(priceSchema, raw, PRICE_KEYS);
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
