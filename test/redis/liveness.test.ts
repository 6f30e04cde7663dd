import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Config, createConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { connectRedis, type RedisClient } from "../../src/redis/connect.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/private-redis.js";
import { hasRedisTools, type SentinelSet, startSentinelSet } from "../helpers/redis-topologies.js";

function configFor(env: Record<string, string>): Config {
  return createConfig({
    BOT_TOKEN: "123:abc",
    RESELLER_API_URL: "https://reseller.example.com",
    RESELLER_API_KEY: "key",
    OPERATOR_IDS: "1",
    REDIS_PREFIX: `test:live:${randomUUID().slice(0, 8)}:`,
    ...env,
  });
}

/** A logger whose lines land in `lines` (parsed). */
function capture(): { log: ReturnType<typeof createLogger>; lines: { msg: string; level: number }[] } {
  const lines: { msg: string; level: number }[] = [];
  const log = createLogger({ level: "info" }, {
    write: (l: string) => void lines.push(JSON.parse(l)),
  } as unknown as import("pino").DestinationStream);
  return { log, lines };
}

/** Retries `fn` (each try bounded) until it returns something, or throws after `timeoutMs`. */
async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await Promise.race([
        fn(),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000)),
      ]);
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(`${what} did not happen in time${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const portOf = async (redis: RedisClient) =>
  Number(/tcp_port:(\d+)/.exec(await (redis as import("ioredis").Redis).info("server"))?.[1]);

describe.skipIf(!hasRedisTools())("a Sentinel primary that hangs", () => {
  let set: SentinelSet;
  beforeAll(async () => {
    set = await startSentinelSet();
  }, 60_000);
  afterAll(async () => {
    set?.primary.child.kill("SIGCONT");
    await set?.stop();
  });

  it("is left for the primary the Sentinels promote, and the log says so once", async () => {
    const { log, lines } = capture();
    const redis = connectRedis(configFor({ REDIS_SENTINELS: set.sentinelList }), log);
    try {
      await redis.set("live:probe", "before");
      expect(await portOf(redis)).toBe(set.primary.port);
      // Frozen: its connections stay open and it answers nothing; the Sentinels promote the replica.
      set.primary.child.kill("SIGSTOP");
      const promoted = await eventually(
        "the client on the promoted replica",
        async () => {
          await redis.set("live:probe", "after");
          const port = await portOf(redis);
          return port === set.replica.port ? port : undefined;
        },
        30_000,
      );
      expect(promoted).toBe(await set.currentPrimaryPort());
      expect(await redis.get("live:probe")).toBe("after");
      expect(lines.filter((l) => l.msg === "Redis not answering; reconnecting")).toHaveLength(1);
      expect(lines.filter((l) => l.msg === "Redis connection back")).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});

describe("a plain Redis that stops answering", () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    server?.resume();
    await server?.stop();
  });

  it("is noticed while the client has nothing to ask, logged once, and reconnected to once it answers again", async () => {
    const { log, lines } = capture();
    const redis = connectRedis(configFor({ REDIS_URL: server.url }), log);
    try {
      expect(await redis.ping()).toBe("PONG");
      server.pause();
      try {
        await eventually(
          "the log saying Redis does not answer",
          async () => (lines.some((l) => l.msg === "Redis not answering; reconnecting") ? true : undefined),
          15_000,
        );
      } finally {
        server.resume();
      }
      await eventually(
        "an answer again",
        async () => ((await redis.ping()) === "PONG" ? true : undefined),
        15_000,
      );
      await eventually(
        "the log saying it is back",
        async () => (lines.some((l) => l.msg === "Redis connection back") ? true : undefined),
        5_000,
      );
      expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
        "Redis not answering; reconnecting",
      ]);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
