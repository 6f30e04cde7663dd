import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createOutgoingLimiter } from "../../src/bot/outgoing-limiter.js";
import { createLogger } from "../../src/logger.js";
import { testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
const clients: Redis[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
});
const redis = () => {
  const r = new Redis(testRedisUrl());
  clients.push(r);
  return r;
};

describe("the outgoing limiter", () => {
  it("lets a chat burst three messages, then asks the fourth to wait about a second", async () => {
    const limiter = createOutgoingLimiter({ redis: redis(), prefix: uniquePrefix("lim"), logger });
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await limiter.tryAcquire(42));
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waits[3]).toBeGreaterThan(0);
    expect(waits[3]).toBeLessThanOrEqual(1000);
    expect(await limiter.tryAcquire(43)).toBe(0);
  });

  it("shares one overall budget between processes using the same Redis", async () => {
    const prefix = uniquePrefix("lim");
    const limits = { globalPerSecond: 5, globalBurst: 5 };
    const a = createOutgoingLimiter({ redis: redis(), prefix, logger, limits });
    const b = createOutgoingLimiter({ redis: redis(), prefix, logger, limits });
    const results = [];
    for (let chat = 1; chat <= 6; chat++) results.push(await (chat % 2 ? a : b).tryAcquire(chat));
    expect(results.filter((w) => w === 0)).toHaveLength(5);
    expect(results[5]).toBeGreaterThan(0);
  });

  it("counts chat-less sends only against the overall budget", async () => {
    const limiter = createOutgoingLimiter({ redis: redis(), prefix: uniquePrefix("lim"), logger });
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire(undefined)).toBe(0);
  });

  it("acquire() resolves once a token is free", async () => {
    const limiter = createOutgoingLimiter({
      redis: redis(),
      prefix: uniquePrefix("lim"),
      logger,
      limits: { chatPerSecond: 50, chatBurst: 1 },
    });
    await limiter.acquire(7);
    expect(await limiter.tryAcquire(7)).toBeGreaterThan(0);
    await limiter.acquire(7);
    expect(await limiter.tryAcquire(7)).toBeGreaterThan(0);
  });
});
