import { describe, expect, it } from "vitest";
import { createCatalogService } from "../../src/catalog/service.js";
import { createLogger } from "../../src/logger.js";
import type { Gift, ResellerClient } from "../../src/reseller/types.js";

const logger = createLogger({ level: "silent" });

/** A ResellerClient test double that counts reads and lets a test hold them open. */
function countingClient() {
  const calls: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  let fail = false;
  const gifts: Gift[] = [
    { giftId: "g1", emoji: "🧸", starCount: 15, remainingCount: null, wholesalePriceRub: 20, raw: {} },
  ];
  const read = async <T>(name: string, value: T): Promise<T> => {
    calls.push(name);
    if (hold) await new Promise<void>((r) => (release = r));
    if (fail) throw new Error("reseller down");
    return value;
  };
  const client = {
    gifts: () => read("gifts", gifts),
    neural: () => read("neural", []),
    games: () => read("games", []),
    gameRegions: (g: string) => read(`regions:${g}`, []),
    gamePackages: (g: string, r: string) =>
      read(`packages:${g}:${r}`, { delivery: "codes", fields: [], packages: [] }),
    products: () => read("products", []),
  } as unknown as ResellerClient;
  return {
    client,
    calls,
    hold: (v: boolean) => {
      hold = v;
    },
    fail: (v: boolean) => {
      fail = v;
    },
    release: () => release?.(),
  };
}

describe("the catalog service", () => {
  it("answers from memory within the TTL and asks again after it", async () => {
    let now = 1_000_000;
    const c = countingClient();
    const catalog = createCatalogService({ client: c.client, ttlSeconds: 30, logger, now: () => now });
    await catalog.gifts();
    await catalog.gifts();
    expect(c.calls).toEqual(["gifts"]);
    now += 30_001;
    await catalog.gifts();
    expect(c.calls).toEqual(["gifts", "gifts"]);
  });

  it("keeps each game, region and package list under its own key", async () => {
    const c = countingClient();
    const catalog = createCatalogService({ client: c.client, ttlSeconds: 30, logger });
    await catalog.gameRegions("a");
    await catalog.gameRegions("b");
    await catalog.gamePackages("a", "eu");
    await catalog.gamePackages("a", "eu");
    expect(c.calls).toEqual(["regions:a", "regions:b", "packages:a:eu"]);
  });

  it("shares one request between concurrent misses, even with no cache", async () => {
    const c = countingClient();
    const catalog = createCatalogService({ client: c.client, ttlSeconds: 0, logger });
    c.hold(true);
    const both = Promise.all([catalog.neural(), catalog.neural()]);
    await new Promise((r) => setTimeout(r, 10));
    c.release();
    await both;
    expect(c.calls).toEqual(["neural"]);
    c.hold(false);
    await catalog.neural();
    expect(c.calls).toEqual(["neural", "neural"]);
  });

  it("does not keep failures, and invalidate() forgets everything", async () => {
    const c = countingClient();
    const catalog = createCatalogService({ client: c.client, ttlSeconds: 60, logger });
    c.fail(true);
    await expect(catalog.games()).rejects.toThrow("reseller down");
    c.fail(false);
    await catalog.games();
    await catalog.games();
    expect(c.calls).toEqual(["games", "games"]);
    catalog.invalidate();
    await catalog.games();
    expect(c.calls).toEqual(["games", "games", "games"]);
  });
});
