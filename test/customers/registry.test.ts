import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAudience } from "../../src/broadcast/audience.js";
import { LOCALES } from "../../src/config.js";
import { BanList } from "../../src/customers/bans.js";
import { CustomerRegistry } from "../../src/customers/registry.js";
import { Usernames } from "../../src/customers/usernames.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const DAY = 24 * 3600 * 1000;

describe("customers registry", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("shares the customer's hash with the username index without either overwriting the other", async () => {
    const now = 1_800_000_000_000;
    const prefix = uniquePrefix("cust");
    const registry = new CustomerRegistry(redis, prefix, LOCALES, () => now);
    const usernames = new Usernames(redis, prefix);
    await usernames.seen({ id: 502, username: "anna_b", first_name: "Anna" });
    await registry.touch(502, "en");
    await usernames.seen({ id: 502, username: "anna_b", first_name: "Anya" });
    expect(await registry.get(502)).toMatchObject({ locale: "en", firstSeen: now, lastSeen: now });
    expect(await usernames.profile(502)).toEqual({ username: "anna_b", firstName: "Anya" });
    expect(await usernames.resolve("ANNA_B")).toBe(502);
  });

  it("writes a customer once a day, and again when the language changes", async () => {
    let now = 1_800_000_000_000;
    const registry = new CustomerRegistry(redis, uniquePrefix("cust"), LOCALES, () => now);
    expect(await registry.touch(501, "en")).toBe(true);
    const first = await registry.get(501);
    expect(first).toMatchObject({ locale: "en", firstSeen: now, lastSeen: now, blocked: false });

    // Later the same day: nothing is written (a marker in the record stays as it is).
    await redis.hset(registry.keys.record(501), "last", "1");
    now += 3600_000;
    expect(await registry.touch(501, "en")).toBe(false);
    expect((await registry.get(501))?.lastSeen).toBe(1);

    // A new language is written at once, and moves the chat between the language audiences.
    expect(await registry.touch(501, "ru")).toBe(true);
    expect(await registry.chats("ru")).toEqual([501]);
    expect(await registry.chats("en")).toEqual([]);

    // The next day: one write again; the first-seen time stays.
    now += DAY;
    expect(await registry.touch(501, "ru")).toBe(true);
    expect(await registry.get(501)).toMatchObject({ firstSeen: first?.firstSeen, lastSeen: now });
    expect(await registry.chats()).toEqual([501]);
  });

  it("forgets a block when the customer writes again", async () => {
    const registry = new CustomerRegistry(redis, uniquePrefix("cust"), LOCALES);
    await registry.touch(601, "en");
    await registry.setBlocked(601, true);
    expect(await registry.blocked()).toEqual(new Set([601]));
    // Another process (or after a restart): the first update of the day writes and unblocks.
    const other = new CustomerRegistry(redis, registry.keys.all.replace(/cust:all$/, ""), LOCALES);
    expect(await other.touch(601, "en")).toBe(true);
    expect(await other.isBlocked(601)).toBe(false);
  });

  it("leaves customers who blocked the bot and banned customers out of every broadcast audience", async () => {
    const prefix = uniquePrefix("cust");
    const registry = new CustomerRegistry(redis, prefix, LOCALES);
    for (const chat of [701, 702, 703]) await registry.touch(chat, "en");
    await registry.setBlocked(702, true);
    await new BanList(redis, prefix).ban(703, 1);
    const orders = { streamCreatedBetween: async function* () {} };
    const now = Date.now();
    expect(await resolveAudience({ kind: "all" }, { customers: registry, orders, now })).toEqual([701]);
    expect(
      await resolveAudience({ kind: "lang", locale: "en" }, { customers: registry, orders, now }),
    ).toEqual([701]);
  });

  it("records a customer seen for the first time in four commands; a returning one's next day also unblocks and leaves other languages", async () => {
    const prefix = uniquePrefix("cust");
    let now = 1_800_000_000_000;
    const registry = new CustomerRegistry(redis, prefix, LOCALES, () => now);
    const monitor = await redis.monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args.slice(1).some((a) => String(a).startsWith(prefix))) seen.push(String(args[0]).toLowerCase());
    });
    try {
      await registry.touch(701, "en");
      const settle = () => new Promise((r) => setTimeout(r, 100));
      await settle();
      expect(seen).toEqual(["hsetnx", "hset", "zadd", "zadd"]);
      seen.length = 0;
      now += DAY;
      await registry.touch(701, "en");
      await settle();
      expect(seen).toEqual([
        "hsetnx",
        "hset",
        "zadd",
        "zadd",
        "srem",
        ...LOCALES.filter((l) => l !== "en").map(() => "zrem"),
      ]);
    } finally {
      monitor.disconnect();
    }
  });
});
