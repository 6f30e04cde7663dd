import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { Broadcasts } from "../../src/broadcast/broadcasts.js";
import { createConfig, LOCALES } from "../../src/config.js";
import { CustomerRegistry } from "../../src/customers/registry.js";
import { createLogger } from "../../src/logger.js";
import { connectRedis } from "../../src/redis/connect.js";
import { type AppHarness, startAppHarness } from "../helpers/app-harness.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/private-redis.js";
import { uniquePrefix } from "../helpers/redis.js";

interface Line {
  level: number;
  msg: string;
  connection?: string;
}

function parsed(lines: string[]): Line[] {
  return lines.map((l) => JSON.parse(l) as Line);
}

async function eventually(what: string, fn: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > until) throw new Error(`${what} did not happen in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let h: AppHarness | undefined;
let redis: PrivateRedis | undefined;

afterEach(async () => {
  await h?.close();
  await redis?.stop();
  h = undefined;
  redis = undefined;
});

describe("a Redis outage in the log", () => {
  it("says once per connection that Redis is down, and once that it is back", async () => {
    redis = await startPrivateRedis();
    h = await startAppHarness({ REDIS_URL: redis.url, LOG_LEVEL: "info" });
    const app = h;
    await eventually("the app ready", () => parsed(app.logLines).some((l) => l.msg === "shop bot started"));
    const from = app.logLines.length;
    await redis.kill();
    // A few seconds down: the client retries every 2 s at most, the loops every second or two.
    await new Promise((r) => setTimeout(r, 6_000));
    await redis.restart();
    const outage = () => parsed(app.logLines.slice(from));
    const connections = ["shopbot", "shopbot-holds", "shopbot-prices"];
    await eventually("every connection back", () =>
      connections.every((c) => outage().some((l) => l.msg === "Redis connection back" && l.connection === c)),
    );
    const lines = outage();
    const problems = lines.filter((l) => l.level >= 40);
    for (const c of connections) {
      expect(problems.filter((l) => l.connection === c).map((l) => l.msg)).toEqual([
        "Redis connection down; reconnecting",
      ]);
      expect(lines.filter((l) => l.msg === "Redis connection back" && l.connection === c)).toHaveLength(1);
    }
    // Besides the connections, each loop that reads Redis says it once (the job worker, the
    // outgoing dispatcher, the broadcast loop when its turn comes).
    expect(problems.length).toBeLessThanOrEqual(6);
  }, 60_000);

  it("has the broadcast loop say once that it fails, not once a turn, and once that it works again", async () => {
    redis = await startPrivateRedis();
    const lines: string[] = [];
    const log = createLogger({ level: "info" }, {
      write: (l: string) => void lines.push(l),
    } as unknown as import("pino").DestinationStream);
    const config = createConfig({
      BOT_TOKEN: "123:abc",
      RESELLER_API_URL: "https://reseller.example.com",
      RESELLER_API_KEY: "key",
      OPERATOR_IDS: "1",
      REDIS_URL: redis.url,
      REDIS_PREFIX: uniquePrefix("outage"),
    });
    const client = connectRedis(config, createLogger({ level: "silent" }));
    const broadcasts = new Broadcasts({
      redis: client,
      prefix: config.redisPrefix,
      api: new Api("123:abc", { apiRoot: "http://127.0.0.1:9" }),
      customers: new CustomerRegistry(client, config.redisPrefix, LOCALES),
      log,
      renderProgress: (view) => ({ text: view.status }),
      tickMs: 100,
      idleTickMs: 100,
    });
    broadcasts.start();
    try {
      await client.ping();
      await redis.kill();
      const failed = () =>
        parsed(lines).filter((l) => l.msg === "broadcast loop failed; trying again").length;
      await eventually("the loop failing", () => failed() > 0);
      await new Promise((r) => setTimeout(r, 4_000));
      await redis.restart();
      await eventually("the loop working again", () =>
        parsed(lines).some((l) => l.msg === "broadcast loop working again"),
      );
      expect(failed()).toBe(1);
      expect(parsed(lines).filter((l) => l.msg === "broadcast loop working again")).toHaveLength(1);
    } finally {
      await broadcasts.stop();
      client.disconnect();
    }
  }, 60_000);
});
