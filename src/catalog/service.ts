import type { Logger } from "../logger.js";
import type {
  Game,
  GameRegion,
  GameRegionCatalog,
  Gift,
  NeuralItem,
  ProductItem,
  ResellerClient,
} from "../reseller/types.js";

/**
 * The reseller catalogs as the bot reads them: each answer is kept in memory for `ttlSeconds`
 * (0 = always ask the reseller), and concurrent misses for the same catalog share one request.
 * A flow therefore always starts from a catalog no older than CATALOG_TTL_SECONDS. A flow's
 * picker reads its catalog again at each answer to it (bot/flows/kit.ts), from here:
 * with 0, every tap on a gift, AI-service or game list asks the reseller.
 */
export interface CatalogService {
  products(): Promise<ProductItem[]>;
  gifts(): Promise<Gift[]>;
  neural(): Promise<NeuralItem[]>;
  games(): Promise<Game[]>;
  gameRegions(game: string): Promise<GameRegion[]>;
  gamePackages(game: string, region: string): Promise<GameRegionCatalog>;
  /** Forgets every cached answer (in-flight requests still settle for their callers). */
  invalidate(): void;
}

interface Entry {
  value: Promise<unknown>;
  /** ms since epoch after which the entry is stale; Infinity while the request is in flight. */
  expiresAt: number;
}

export function createCatalogService(deps: {
  client: ResellerClient;
  ttlSeconds: number;
  logger: Logger;
  /** Clock, for tests. */
  now?: () => number;
}): CatalogService {
  const { client, logger } = deps;
  const ttlMs = Math.max(0, deps.ttlSeconds) * 1000;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, Entry>();
  let generation = 0;

  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && hit.expiresAt > now()) return hit.value as Promise<T>;
    const gen = generation;
    const entry: Entry = { value: Promise.resolve(), expiresAt: Number.POSITIVE_INFINITY };
    const value = load().then(
      (v) => {
        // A cache of 0 s still shares the in-flight request, then forgets it.
        if (cache.get(key) === entry) {
          if (ttlMs > 0 && gen === generation) entry.expiresAt = now() + ttlMs;
          else cache.delete(key);
        }
        return v;
      },
      (err: unknown) => {
        if (cache.get(key) === entry) cache.delete(key);
        logger.warn({ err, catalog: key }, "catalog read failed");
        throw err;
      },
    );
    entry.value = value;
    cache.set(key, entry);
    return value;
  }

  return {
    products: () => cached("products", () => client.products()),
    gifts: () => cached("gifts", () => client.gifts()),
    neural: () => cached("neural", () => client.neural()),
    games: () => cached("games", () => client.games()),
    gameRegions: (game) => cached(JSON.stringify(["regions", game]), () => client.gameRegions(game)),
    gamePackages: (game, region) =>
      cached(JSON.stringify(["packages", game, region]), () => client.gamePackages(game, region)),
    invalidate() {
      generation++;
      cache.clear();
    },
  };
}
