import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { inject } from "vitest";

/** URL of the private Redis started for this test run. */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/** A key prefix no other test uses, so tests sharing the private Redis never see each other's data. */
export function uniquePrefix(name = "t"): string {
  return `test:${name}:${randomUUID().slice(0, 8)}:`;
}

/** A fresh client on the private test Redis; the caller quits it. */
export function testRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: 3 });
}
