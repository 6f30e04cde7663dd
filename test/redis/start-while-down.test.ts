import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { TelegramHolds } from "../../src/bot/telegram-holds.js";
import { createConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { orderKeys } from "../../src/orders/keys.js";
import { connectRedis } from "../../src/redis/connect.js";
import { startEngineHarness } from "../helpers/engine-harness.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/private-redis.js";
import { eventually } from "../helpers/recording-notifier.js";
import { uniquePrefix } from "../helpers/redis.js";

/** A logger whose lines land in `lines`. */
function capture(): { log: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({ level: "info" }, {
    write: (l: string) => void lines.push(l),
  } as unknown as import("pino").DestinationStream);
  return { log, lines };
}

const messages = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);

let server: PrivateRedis | undefined;
let dir: string | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A private Redis, stopped: it is started again (same port) with `server.restart()`. */
async function downRedis(): Promise<PrivateRedis> {
  server = await startPrivateRedis();
  await server.kill();
  return server;
}

function configOn(url: string) {
  return createConfig({
    BOT_TOKEN: "123:abc",
    RESELLER_API_URL: "https://reseller.example.com",
    RESELLER_API_KEY: "key",
    OPERATOR_IDS: "1",
    REDIS_URL: url,
    REDIS_PREFIX: uniquePrefix("down"),
  });
}

describe("started while Redis is down", () => {
  it("listens for Telegram holds once Redis is back", async () => {
    const down = await downRedis();
    const config = configOn(down.url);
    const { log, lines } = capture();
    const redis = connectRedis(config, createLogger({ level: "silent" }));
    const holds = new TelegramHolds(redis, config.redisPrefix, log);
    holds.start();
    const probe = new Redis(down.url, { lazyConnect: true });
    try {
      await eventually(
        async () => messages(lines).some((m) => m.startsWith("could not listen for Telegram holds")),
        15_000,
        "the failed subscription logged",
      );
      await down.restart();
      await probe.connect();
      const channel = `${config.redisPrefix}tg-holds`;
      await eventually(
        async () => ((await probe.pubsub("CHANNELS", channel)) as string[]).includes(channel),
        20_000,
        "the holds channel subscribed",
      );
      expect(messages(lines).filter((m) => m.startsWith("could not listen"))).toHaveLength(1);
      await eventually(
        async () => messages(lines).includes("listening for Telegram holds"),
        5_000,
        "the subscription logged",
      );
    } finally {
      probe.disconnect();
      await holds.stop();
      redis.disconnect();
    }
  }, 60_000);

  it("schedules the balance check and the archive sweep once Redis is back", async () => {
    const down = await downRedis();
    const prefix = uniquePrefix("down");
    dir = mkdtempSync(join(tmpdir(), "shopbot-archive-"));
    const redis = connectRedis(configOn(down.url), createLogger({ level: "silent" }));
    const h = await startEngineHarness({ redis, prefix });
    // The harness's own engine keeps no archive (it would take the sweep and drop it): one that does instead.
    await h.engine.stop(0);
    const engine = h.buildEngine({ retention: { days: 90, dir } });
    engine.start();
    const probe = new Redis(down.url, { lazyConnect: true });
    try {
      await eventually(
        async () => h.logLines.some((l) => l.includes("could not schedule the archive sweep")),
        15_000,
        "the failed scheduling logged",
      );
      await down.restart();
      await probe.connect();
      const jobs = orderKeys(prefix).jobs;
      await eventually(
        async () => {
          const members = await probe.zrange(jobs, 0, -1);
          return members.includes("balance:check") && members.includes("archive:sweep");
        },
        20_000,
        "the periodic jobs scheduled",
      );
    } finally {
      probe.disconnect();
      await engine.stop(2000);
      await h.close();
    }
  }, 60_000);

  it("brings an earlier version's order indexes up to date once Redis is back", async () => {
    // An order an earlier version indexed as paid, kept on disk across the outage.
    server = await startPrivateRedis({ appendonly: true });
    const prefix = uniquePrefix("down");
    const keys = orderKeys(prefix);
    const seed = new Redis(server.url);
    await seed.zadd(`${keys.prefix}idx:state:paid`, 1_000, "order-paid-before");
    seed.disconnect();
    await server.kill();
    const redis = connectRedis(configOn(server.url), createLogger({ level: "silent" }));
    const h = await startEngineHarness({ redis, prefix });
    const probe = new Redis(server.url, { lazyConnect: true });
    try {
      await eventually(
        async () => h.logLines.some((l) => l.includes("could not bring the order indexes up to date")),
        15_000,
        "the failed migration logged",
      );
      await server.restart();
      await probe.connect();
      await eventually(
        async () => (await probe.zscore(keys.inflight, "order-paid-before")) === "1000",
        20_000,
        "the paid order in the in-flight index",
      );
      expect(await probe.exists(`${keys.prefix}idx:state:paid`)).toBe(0);
      await eventually(
        async () => h.logLines.some((l) => l.includes("order indexes brought up to date")),
        5_000,
        "the migration's success logged",
      );
    } finally {
      probe.disconnect();
      await h.close();
    }
  }, 60_000);
});
