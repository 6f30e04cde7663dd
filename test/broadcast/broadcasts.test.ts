import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Api } from "grammy";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../sandbox/telegram/index.js";
import { Broadcasts } from "../../src/broadcast/broadcasts.js";
import type { BroadcastRecord } from "../../src/broadcast/types.js";
import { LOCALES } from "../../src/config.js";
import { CustomerRegistry } from "../../src/customers/registry.js";
import { createLogger } from "../../src/logger.js";
import { outgoingKeys } from "../../src/outgoing/queue.js";
import type { RedisClient } from "../../src/redis/connect.js";
import { eventually } from "../helpers/recording-notifier.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const TOKEN = "123456:BroadcastsTestToken";
const TEXT = "Weekend offer";

/**
 * A process that dies in the middle of a send: its broadcast message is marked as being sent and
 * Telegram never answers. The recipient must not get it twice.
 */
describe("a broadcast whose sender died mid-send", () => {
  let redis: Redis;
  let telegram: TelegramEmulator;
  let silent: Server;
  let silentRoot: string;
  beforeAll(async () => {
    redis = testRedis();
    telegram = await startTelegramEmulator({ token: TOKEN });
    // Accepts the request and never answers, like Telegram seen from a process that froze.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentRoot = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    await telegram.close();
    await redis.quit();
  });

  it("is not sent again by another process, and counts as failed once its mark is stale", async () => {
    const prefix = uniquePrefix("bc");
    let now = Date.now();
    const make = (apiRoot: string) =>
      new Broadcasts({
        redis: redis as unknown as RedisClient,
        prefix,
        api: new Api(TOKEN, { apiRoot }),
        customers: new CustomerRegistry(redis as unknown as RedisClient, prefix, LOCALES),
        log: createLogger({ level: "silent" }),
        renderProgress: (view) => ({ text: `${view.status} ${view.sent}/${view.total}` }),
        staleMs: 60_000,
        now: () => now,
      });
    const dead = make(silentRoot);
    const alive = make(telegram.apiRoot);
    const [a, b, c] = [901, 902, 903].map((id) => {
      const user = telegram.user({ id, languageCode: "en" });
      user.startChat();
      return user;
    });
    const record: BroadcastRecord = {
      id: "0123456789ab",
      by: 1,
      content: { text: TEXT, buttons: [] },
      audience: { kind: "all" },
      progress: { chatId: 1, messageId: 1, locale: "en" },
      createdAt: now,
    };
    expect(await alive.begin(record, [a!.id, b!.id, c!.id])).toBe(true);
    // Starting it again (a second tap) does nothing.
    expect(await alive.begin(record, [a!.id])).toBe(false);
    await alive.tick();
    const queued = await redis.zrange(outgoingKeys(prefix).queue, 0, -1);
    expect(queued.sort()).toEqual([a, b, c].map((u) => `bcast:${u!.id}:${record.id}`).sort());

    const hanging = dead.deliver(a!.id, record.id).catch(() => undefined);
    await eventually(async () => (await alive.outcomes(record.id))[a!.id] === "p", 10_000, "marked");
    // Its lease ran out and another process got the message: it finds the mark and sends nothing.
    await alive.deliver(a!.id, record.id);
    await alive.deliver(b!.id, record.id);
    await alive.deliver(c!.id, record.id);
    await alive.tick();
    expect(await alive.get(record.id)).toMatchObject({ status: "running", sent: 2, failed: 0 });

    now += 61_000;
    await alive.tick();
    expect(await alive.get(record.id)).toMatchObject({
      status: "done",
      total: 3,
      sent: 2,
      blocked: 0,
      failed: 1,
    });
    expect(await alive.outcomes(record.id)).toEqual({ [a!.id]: "f", [b!.id]: "s", [c!.id]: "s" });
    expect(a!.botMessages()).toEqual([]);
    expect(b!.botMessages().map((m) => m.text)).toEqual([TEXT]);
    silent.closeAllConnections();
    await hanging;
  });
});

describe("the broadcast loop", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("looks for broadcasts rarely while there are none, and at once when one begins here", async () => {
    const prefix = uniquePrefix("bc-idle");
    const looks: number[] = [];
    // Counts the loop's reads of the active set (and nothing else the loop does).
    const counted = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop === "smembers") {
          return (...args: Parameters<Redis["smembers"]>) => {
            looks.push(Date.now());
            return target.smembers(...args);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    let kicked = 0;
    const broadcasts = new Broadcasts({
      redis: counted as unknown as RedisClient,
      prefix,
      api: new Api(TOKEN, { apiRoot: "http://127.0.0.1:9" }),
      customers: new CustomerRegistry(redis as unknown as RedisClient, prefix, LOCALES),
      log: createLogger({ level: "silent" }),
      renderProgress: (view) => ({ text: `${view.status} ${view.sent}/${view.total}` }),
      tickMs: 50,
      idleTickMs: 60_000,
      kick: () => {
        kicked++;
      },
    });
    broadcasts.start();
    try {
      await eventually(() => expect(looks.length).toBe(1));
      // Nothing active: no other look for a while (it would be every 50 ms with one running).
      await new Promise((r) => setTimeout(r, 300));
      expect(looks).toHaveLength(1);
      const record: BroadcastRecord = {
        id: "idle-wake",
        by: 1,
        audience: { kind: "all" },
        content: { text: TEXT, buttons: [] },
        progress: { chatId: 1, messageId: 1, locale: "en" },
        createdAt: Date.now(),
      };
      expect(await broadcasts.begin(record, [7001, 7002])).toBe(true);
      // Woken by its own begin, then every 50 ms while it runs; its messages are queued.
      await eventually(() => expect(looks.length).toBeGreaterThanOrEqual(3));
      expect(kicked).toBeGreaterThan(0);
      expect(await redis.zcard(outgoingKeys(prefix).queue)).toBe(2);
    } finally {
      await broadcasts.stop();
    }
  });
});
