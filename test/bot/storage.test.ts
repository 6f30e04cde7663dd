import { RedisAdapter } from "@grammyjs/storage-redis";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WriteWhenChanged } from "../../src/bot/storage.js";
import { commandsProcessed, testRedis, uniquePrefix } from "../helpers/redis.js";

let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe("session storage that writes only changes", () => {
  it("skips writing back a session the update did not change, and writes one it did", async () => {
    const storage = new WriteWhenChanged(new RedisAdapter<{ n: number }>({ instance: redis, ttl: 60 }));
    const key = `${uniquePrefix("sess")}session:1`;
    await storage.write(key, { n: 1 });

    const before = await commandsProcessed(redis);
    const read = await storage.read(key);
    await storage.write(key, { n: read!.n });
    const after = await commandsProcessed(redis);
    // GET, and the INFO call itself: no SET.
    expect(after - before).toBe(2);

    await storage.read(key);
    await storage.write(key, { n: 2 });
    expect(JSON.parse((await redis.get(key))!)).toEqual({ n: 2 });
  });

  it("writes a value it never read, and forgets a deleted one", async () => {
    const storage = new WriteWhenChanged(new RedisAdapter<{ n: number }>({ instance: redis }));
    const key = `${uniquePrefix("sess")}session:2`;
    await storage.write(key, { n: 5 });
    expect(await storage.read(key)).toEqual({ n: 5 });
    await storage.delete(key);
    await storage.write(key, { n: 5 });
    expect(await redis.get(key)).toBe(JSON.stringify({ n: 5 }));
  });

  it("does not store the empty initial session of a chat that has none, and stores it once it holds something", async () => {
    const storage = new WriteWhenChanged(new RedisAdapter<Record<string, number>>({ instance: redis }));
    const key = `${uniquePrefix("sess")}session:3`;
    expect(await storage.read(key)).toBeUndefined();
    await storage.write(key, {});
    expect(await redis.exists(key)).toBe(0);

    expect(await storage.read(key)).toBeUndefined();
    await storage.write(key, { n: 1 });
    expect(JSON.parse((await redis.get(key))!)).toEqual({ n: 1 });
  });
});
