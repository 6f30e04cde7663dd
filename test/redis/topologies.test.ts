import { randomUUID } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { TelegramHolds } from "../../src/bot/telegram-holds.js";
import { type Config, createConfig, secretsOf } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { orderKeys } from "../../src/orders/keys.js";
import { decodeRecord } from "../../src/orders/record.js";
import { connectRedis, type RedisClient } from "../../src/redis/connect.js";
import { ReplicaWait } from "../../src/redis/replica-wait.js";
import { buyStars, newAppCustomer, orderIdOf, startAppHarness } from "../helpers/app-harness.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import {
  type ClusterSet,
  hasRedisTools,
  type SentinelSet,
  startClusterSet,
  startSentinelSet,
} from "../helpers/redis-topologies.js";

const logger = createLogger({ level: "silent" });

function configFor(env: Record<string, string>): Config {
  return createConfig({
    BOT_TOKEN: "123:abc",
    RESELLER_API_URL: "https://reseller.example.com",
    RESELLER_API_KEY: "key",
    OPERATOR_IDS: "1",
    REDIS_PREFIX: `test:topo:${randomUUID().slice(0, 8)}:`,
    ...env,
  });
}

/** quote → paid → pay → pending → delivered → one final message, on whatever Redis `h` runs on. */
async function orderEndToEnd(h: EngineHarness): Promise<void> {
  const customer = newCustomer();
  const order = await h.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
  expect(order.state).toBe("quoted");
  const paid = await h.engine.markPaid(order.id, {
    userId: customer.userId,
    currency: "XTR",
    totalAmount: order.amount!,
    telegramChargeId: `topo-${order.id}`,
  });
  expect(paid.outcome).toBe("paid");
  const done = await eventually(
    async () => {
      const o = await h.engine.get(order.id);
      return o?.state === "delivered" && o.finalNotifiedAt && (await h.outgoingFor(order.id)) === 0
        ? o
        : null;
    },
    10_000,
    "the order delivered and its final message sent",
  );
  expect(done.chargedKopecks).toBeGreaterThan(0);
  expect(h.notifier.finalsFor(order.id)).toHaveLength(1);
  expect(h.sandbox.stats(order.id).charges).toBe(1);
  // The customer's list and the operators' index see it too (reads of the index zsets).
  expect((await h.engine.listByChat(customer.chatId, 0, 10)).items.map((o) => o.id)).toEqual([order.id]);
}

describe.skipIf(!hasRedisTools())("Redis Sentinel", () => {
  let set: SentinelSet;
  beforeAll(async () => {
    set = await startSentinelSet();
  }, 60_000);
  afterAll(async () => {
    await set?.stop();
  });

  it("runs an order end to end with the primary found through the Sentinels, every order write on the replica", async () => {
    const config = configFor({ REDIS_SENTINELS: set.sentinelList, REDIS_SENTINEL_NAME: set.name });
    const redis = connectRedis(config, logger);
    const h = await startEngineHarness({
      redis,
      prefix: config.redisPrefix,
      replicaWait: new ReplicaWait(redis, logger),
    });
    try {
      await orderEndToEnd(h);
      // What the engine wrote is on the replica already: a failover now would keep it.
      const replica = new Redis({ port: set.replica.port, host: "127.0.0.1" });
      try {
        const ids = await replica.zrange(`${config.redisPrefix}idx:all`, 0, -1);
        expect(ids).toHaveLength(1);
        const record = await replica.get(orderKeys(config.redisPrefix).order(ids[0]!));
        expect(decodeRecord(record, null)?.order.state).toBe("delivered");
      } finally {
        replica.disconnect();
      }
    } finally {
      await h.close();
    }
  });

  it("runs the whole bot through the Sentinels: a customer buys Stars through Telegram", async () => {
    const h = await startAppHarness({ REDIS_SENTINELS: set.sentinelList });
    try {
      const customer = newAppCustomer(h.telegram);
      expect((await buyStars(customer)).text).toMatch(/delivered/);
      const id = orderIdOf(customer.messages().find((m) => m.invoice !== undefined)!);
      expect(h.sandbox.stats(id).charges).toBe(1);
    } finally {
      await h.close();
    }
  });

  it("holds an order write until the replica has it, and goes on without it when the replica does not answer", async () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn" }, {
      write: (l: string) => void lines.push(l),
    } as unknown as import("pino").DestinationStream);
    const config = configFor({ REDIS_SENTINELS: set.sentinelList });
    const redis = connectRedis(config, log);
    const wait = new ReplicaWait(redis, log, { timeoutMs: 300 });
    const key = `${config.redisPrefix}probe`;
    try {
      await redis.set(key, "1");
      await wait.after(key);
      expect(lines.join("")).not.toContain("no Redis replica acknowledged");
      // A replica that cannot answer (stopped): the write waits out the timeout, then goes on.
      set.replica.child.kill("SIGSTOP");
      try {
        await redis.set(key, "2");
        await wait.after(key);
      } finally {
        set.replica.child.kill("SIGCONT");
      }
      expect(lines.join("")).toContain("no Redis replica acknowledged a write in time");
      expect(await redis.get(key)).toBe("2");
    } finally {
      await redis.quit();
    }
  });
});

describe.skipIf(!hasRedisTools())("Redis Cluster", () => {
  let set: ClusterSet;
  beforeAll(async () => {
    set = await startClusterSet();
  }, 60_000);
  afterAll(async () => {
    await set?.stop();
  });

  it("puts every key the orders' scripts touch together in one slot", () => {
    const config = configFor({ REDIS_CLUSTER_NODES: set.nodeList, REDIS_PREFIX: "shop:" });
    expect(config.redisPrefix).toBe("{shop}:");
    expect(config.redisChatPrefix).toBe("shop:");
  });

  it("runs an order end to end on a three-node Cluster", async () => {
    const config = configFor({ REDIS_CLUSTER_NODES: set.nodeList });
    const redis = connectRedis(config, logger);
    expect(redis).toBeInstanceOf(Cluster);
    const h = await startEngineHarness({
      redis,
      prefix: config.redisPrefix,
      replicaWait: new ReplicaWait(redis, logger),
    });
    try {
      await orderEndToEnd(h);
      await orderEndToEnd(h);
      // The operators' page reads many order records in one pipeline: they share the slot.
      expect((await h.engine.listAll("all", 0, 10)).total).toBe(2);
    } finally {
      await h.close();
    }
  });

  it("runs the whole bot on the Cluster: a customer buys Stars through Telegram, sessions outside the hash tag", async () => {
    const h = await startAppHarness({ REDIS_CLUSTER_NODES: set.nodeList, REDIS_PREFIX: "shopc:" });
    try {
      expect(h.app.config.redisPrefix).toBe("{shopc}:");
      const customer = newAppCustomer(h.telegram);
      const delivered = await buyStars(customer);
      expect(delivered.text).toMatch(/delivered/);
      const invoice = customer.messages().find((m) => m.invoice !== undefined)!;
      const id = orderIdOf(invoice);
      const record = await h.app.redis.get(orderKeys("{shopc}:").order(id));
      expect(decodeRecord(record, null)?.order.state).toBe("delivered");
      expect(await h.app.redis.exists(sessionKey("shopc:", customer.id))).toBe(1);
      expect(h.sandbox.stats(id).charges).toBe(1);
    } finally {
      await h.close();
    }
  });

  it("shares Telegram's 429 holds between processes through pub/sub on the Cluster", async () => {
    const config = configFor({ REDIS_CLUSTER_NODES: set.nodeList });
    const a: RedisClient = connectRedis(config, logger);
    const b: RedisClient = connectRedis(config, logger);
    const first = new TelegramHolds(a, config.redisPrefix, logger);
    const second = new TelegramHolds(b, config.redisPrefix, logger);
    first.start();
    second.start();
    try {
      const before = Date.now();
      await eventually(
        async () => {
          first.note(42, 3);
          await new Promise((r) => setTimeout(r, 100));
          return second.until(42) > before;
        },
        10_000,
        "the other process to learn of the hold",
      );
      expect(second.until(43)).toBe(0);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await Promise.all([a.quit(), b.quit()]);
    }
  });
});

describe("Redis topology settings", () => {
  const problems = (env: Record<string, string>) => {
    try {
      configFor(env);
      return "";
    } catch (err) {
      return (err as Error).message;
    }
  };

  it("names every bad host:port of REDIS_SENTINELS and REDIS_CLUSTER_NODES in the one config message", () => {
    const message = problems({
      REDIS_SENTINELS: "10.0.0.1:26379,nope,10.0.0.2:99999",
      REDIS_CLUSTER_NODES: "a:1,:7000",
      HTTP_PORT: "x",
    });
    expect(message).toContain(
      'REDIS_SENTINELS: must be a comma-separated list of host:port, not "nope", "10.0.0.2:99999"',
    );
    expect(message).toContain(
      'REDIS_CLUSTER_NODES: must be a comma-separated list of host:port, not ":7000"',
    );
    expect(message).toContain("HTTP_PORT");
  });

  it("refuses Sentinels and a Cluster at once", () => {
    expect(problems({ REDIS_SENTINELS: "127.0.0.1:26379", REDIS_CLUSTER_NODES: "127.0.0.1:7000" })).toContain(
      "REDIS_CLUSTER_NODES: cannot be set together with REDIS_SENTINELS",
    );
  });

  it("reads the lists, the Sentinel name and the password, and keeps the password out of logs", () => {
    const config = configFor({
      REDIS_SENTINELS: "10.0.0.1:26379, redis-s2.internal:26379,[::1]:26379",
      REDIS_SENTINEL_NAME: "shop",
      REDIS_PASSWORD: "s3cret-redis",
    });
    expect(config.redisSentinels).toEqual([
      { host: "10.0.0.1", port: 26379 },
      { host: "redis-s2.internal", port: 26379 },
      { host: "::1", port: 26379 },
    ]);
    expect(config.redisSentinelName).toBe("shop");
    expect(secretsOf(config)).toContain("s3cret-redis");
    // Outside cluster mode the prefix is used as given.
    expect(config.redisPrefix).toBe(config.redisChatPrefix);
  });
});
