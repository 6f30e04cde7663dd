import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forecastRunway, RUNWAY_MAX_DAYS } from "../../src/orders/runway.js";
import { recentSpending, utcDay } from "../../src/orders/spending.js";
import { OrderStore } from "../../src/orders/store.js";
import { eventually } from "../helpers/recording-notifier.js";
import { testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

describe("deposit runway forecast", () => {
  it("divides the deposit by the pace: a week's spending lasts a week", () => {
    expect(forecastRunway(70_000, 70_000, WEEK)).toEqual({ kind: "days", days: 7 });
    expect(forecastRunway(30_000, 70_000, WEEK)).toEqual({ kind: "days", days: 3 });
    expect(forecastRunway(1_000_000, 70_000, WEEK)).toEqual({ kind: "days", days: 100 });
  });

  it("rounds fractional days to the nearest day and says hours under a day", () => {
    // 10 000 a day: 14 000 is 1.4 days, 26 000 is 2.6 days.
    expect(forecastRunway(14_000, 70_000, WEEK)).toEqual({ kind: "days", days: 1 });
    expect(forecastRunway(26_000, 70_000, WEEK)).toEqual({ kind: "days", days: 3 });
    expect(forecastRunway(10_000, 70_000, WEEK)).toEqual({ kind: "days", days: 1 });
    expect(forecastRunway(5_000, 70_000, WEEK)).toEqual({ kind: "hours", hours: 12 });
    expect(forecastRunway(9_900, 70_000, WEEK)).toEqual({ kind: "days", days: 1 }); // 23.76 h
    expect(forecastRunway(1, 70_000, WEEK)).toEqual({ kind: "hours", hours: 1 }); // seconds: at least an hour
  });

  it("uses the window it is given: 6.5 days of spending", () => {
    expect(forecastRunway(65_000, 65_000, 6.5 * DAY)).toEqual({ kind: "days", days: 7 }); // 6.5 rounds up
    expect(forecastRunway(10_000, 65_000, 6.5 * DAY)).toEqual({ kind: "days", days: 1 });
  });

  it("says when nothing was spent, when nothing is left, and when it lasts over a year", () => {
    expect(forecastRunway(100_000, 0, WEEK)).toEqual({ kind: "no_spending" });
    expect(forecastRunway(0, 0, WEEK)).toEqual({ kind: "no_spending" });
    expect(forecastRunway(0, 5_000, WEEK)).toEqual({ kind: "empty" });
    expect(forecastRunway(-500, 5_000, WEEK)).toEqual({ kind: "empty" });
    expect(forecastRunway(Number.MAX_SAFE_INTEGER, 1, WEEK)).toEqual({ kind: "over_year" });
    expect(forecastRunway(1e15, 70_000, WEEK)).toEqual({ kind: "over_year" });
    expect(forecastRunway(RUNWAY_MAX_DAYS * 10_000, 70_000, WEEK)).toEqual({
      kind: "days",
      days: RUNWAY_MAX_DAYS,
    });
    expect(forecastRunway((RUNWAY_MAX_DAYS + 1) * 10_000, 70_000, WEEK)).toEqual({ kind: "over_year" });
  });
});

describe("deposit spending per day", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("sums today and the 6 days before, over 6 days plus today so far, and expires the counters", async () => {
    const store = new OrderStore(redis, uniquePrefix("spend"));
    const now = Date.UTC(2026, 10, 23, 6); // 06:00 UTC
    store.spending.add(utcDay(now), 1_000, 3600);
    store.spending.add(utcDay(now), 250, 3600);
    store.spending.add(utcDay(now - 6 * DAY), 4_000, 3600);
    store.spending.add(utcDay(now - 7 * DAY), 99_999, 3600); // a day too old
    await store.spending.flush();
    expect(await recentSpending(store.spending, now)).toEqual({
      spentKopecks: 5_250,
      windowMs: 6 * DAY + 6 * HOUR,
    });
    expect(await redis.ttl(store.keys.spendDay(utcDay(now)))).toBeGreaterThan(0);
    expect(await recentSpending(store.spending, now + 30 * DAY)).toEqual({
      spentKopecks: 0,
      windowMs: 6 * DAY + 6 * HOUR,
    });
  });

  it("adds a process's charges of a few seconds in one command, counting them in its own reads before", async () => {
    const store = new OrderStore(redis, uniquePrefix("spend"));
    const now = Date.UTC(2026, 10, 23, 6);
    const key = store.keys.spendDay(utcDay(now));
    const writes: string[] = [];
    watchCommands(redis, (command) => {
      if (command.args.map(String).includes(key)) writes.push(command.name);
    });
    for (let i = 0; i < 50; i++) store.spending.add(utcDay(now), 100, 3600);
    // Not written yet, and still this process's spending.
    expect(await redis.get(key)).toBeNull();
    expect((await recentSpending(store.spending, now)).spentKopecks).toBe(5_000);
    await eventually(async () => (await redis.get(key)) === "5000", 5000, "the gathered charges written");
    // The day's first charge made the counter, with its lifetime, in one command.
    expect(writes.filter((w) => w !== "get")).toEqual(["set"]);
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    expect((await recentSpending(store.spending, now)).spentKopecks).toBe(5_000);
    // A later batch only adds.
    for (let i = 0; i < 10; i++) store.spending.add(utcDay(now), 10, 3600);
    await store.spending.flush();
    expect(await redis.get(key)).toBe("5100");
    expect(writes.filter((w) => w !== "get" && w !== "ttl")).toEqual(["set", "incrby"]);
  });

  it("adds to a day's counter that another process made, keeping its lifetime", async () => {
    const prefix = uniquePrefix("spend");
    const first = new OrderStore(redis, prefix);
    const second = new OrderStore(redis, prefix);
    const now = Date.UTC(2026, 10, 23, 6);
    const key = first.keys.spendDay(utcDay(now));
    first.spending.add(utcDay(now), 400, 3600);
    await first.spending.flush();
    second.spending.add(utcDay(now), 250, 7200);
    await second.spending.flush();
    second.spending.add(utcDay(now), 50, 7200);
    await second.spending.flush();
    expect(await redis.get(key)).toBe("700");
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it("keeps charges whose write failed and adds them with the next write", async () => {
    const broken = testRedis();
    const errors: unknown[] = [];
    const prefix = uniquePrefix("spend");
    const store = new OrderStore(broken, prefix, { onSpendingError: (err) => errors.push(err) });
    const now = Date.UTC(2026, 10, 23, 6);
    store.spending.add(utcDay(now), 700, 3600);
    broken.disconnect();
    await store.spending.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(0);
    await broken.connect();
    store.spending.add(utcDay(now), 300, 3600);
    await store.spending.flush();
    expect(await redis.get(store.keys.spendDay(utcDay(now)))).toBe("1000");
    await broken.quit();
  });
});
