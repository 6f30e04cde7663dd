import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { PRICE_TRUST_MS, PriceSettingsStore } from "../../src/orders/price-settings.js";
import { testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

/**
 * The price settings' copy in process memory: quotes are priced from it while the process hears
 * every change's notice, and read Redis again when a change is heard, when the notices may have
 * gone unheard (the subscription lost), and once the copy is old.
 */

const DEFAULTS = { priceMarkupPercent: 10, products: ["stars", "premium"] as const };
const OPERATOR = 42;
const quiet = createLogger({ level: "silent" });

const clients: Redis[] = [];
const stores: PriceSettingsStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.stop()));
  await Promise.all(clients.splice(0).map((c) => c.quit()));
});

async function storeOn(prefix: string, opts: { now?: () => number } = {}) {
  const redis = testRedis();
  clients.push(redis);
  // Connected first: a command queued while connecting passes the watch twice.
  await redis.ping();
  const reads = { hgetall: 0 };
  watchCommands(redis, (c) => {
    if (c.name === "hgetall") reads.hgetall += 1;
  });
  const store = new PriceSettingsStore(
    redis,
    prefix,
    { ...DEFAULTS, products: [...DEFAULTS.products] },
    opts,
  );
  stores.push(store);
  return { store, redis, reads };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** The store's connection for change notices (private): to lose it on purpose. */
function subscriberOf(store: PriceSettingsStore): Redis {
  return (store as unknown as { subscriber: Redis }).subscriber;
}

describe("PriceSettingsStore", () => {
  it("prices quotes from its copy while it hears change notices, and reads again when another process changes a price", async () => {
    const prefix = uniquePrefix("prices");
    const operator = (await storeOn(prefix)).store;
    const shop = await storeOn(prefix);
    shop.store.listen(quiet);
    await until(() => shop.store.listening, "the subscription");

    expect((await shop.store.forQuote()).markup.stars).toBe(10);
    expect(shop.reads.hgetall).toBe(1);
    for (let i = 0; i < 3; i++) expect((await shop.store.forQuote()).markup.stars).toBe(10);
    expect((await shop.store.cached()).markup.stars).toBe(10);
    expect(shop.reads.hgetall).toBe(1);

    await operator.setMarkup(OPERATOR, "stars", 30);
    // The notice makes the listening process read the settings again, once.
    await until(() => shop.store.peek().markup.stars === 30, "the change to reach the other process");
    expect((await shop.store.forQuote()).markup.stars).toBe(30);
    expect(shop.reads.hgetall).toBe(2);

    // A tap that changes nothing publishes nothing.
    expect(await operator.setMarkup(OPERATOR, "stars", 30)).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    await shop.store.forQuote();
    expect(shop.reads.hgetall).toBe(2);
  });

  it("reads for every quote while the notices cannot be heard, and trusts a copy again once the subscription is back", async () => {
    const prefix = uniquePrefix("prices");
    const shop = await storeOn(prefix);
    shop.store.listen(quiet);
    await until(() => shop.store.listening, "the subscription");
    await shop.store.forQuote();
    expect(shop.reads.hgetall).toBe(1);

    // The connection is lost; a change made meanwhile publishes into the void.
    const sub = subscriberOf(shop.store);
    sub.disconnect(false);
    await until(() => !shop.store.listening, "the lost subscription to be noticed");
    await shop.redis.hset(`${prefix}prices`, "markup:stars", "40");
    expect((await shop.store.forQuote()).markup.stars).toBe(40);
    expect((await shop.store.forQuote()).markup.stars).toBe(40);
    expect(shop.reads.hgetall).toBe(3);

    await sub.connect();
    await until(() => shop.store.listening, "the subscription again");
    await shop.store.forQuote();
    await shop.store.forQuote();
    expect(shop.reads.hgetall).toBe(4);
  });

  it("reads a copy again once it is PRICE_TRUST_MS old, so a change written by hand reaches quotes", async () => {
    const prefix = uniquePrefix("prices");
    let clock = 1_000_000;
    const shop = await storeOn(prefix, { now: () => clock });
    shop.store.listen(quiet);
    await until(() => shop.store.listening, "the subscription");
    await shop.store.forQuote();
    // Written without the script: no notice.
    await shop.redis.hset(`${prefix}prices`, "markup:premium", "55");
    clock += PRICE_TRUST_MS - 1;
    expect((await shop.store.forQuote()).markup.premium).toBe(10);
    clock += 1;
    expect((await shop.store.forQuote()).markup.premium).toBe(55);
    expect(shop.reads.hgetall).toBe(2);
  });

  it("without listening, reads the settings for every quote", async () => {
    const prefix = uniquePrefix("prices");
    const operator = (await storeOn(prefix)).store;
    const shop = await storeOn(prefix);
    await shop.store.forQuote();
    await operator.setMarkup(OPERATOR, "premium", 20);
    expect((await shop.store.forQuote()).markup.premium).toBe(20);
    expect(shop.reads.hgetall).toBe(2);
  });
});
