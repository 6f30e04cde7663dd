import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DepositGuard } from "../../src/orders/deposit-guard.js";
import { forecastRunway, RUNWAY_MAX_DAYS } from "../../src/orders/runway.js";
import { recentSpending, utcDay } from "../../src/orders/spending.js";
import { OrderStore } from "../../src/orders/store.js";
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

  it("sums today and the 6 days before, over 6 days plus today so far, every process's and the earlier counters", async () => {
    const prefix = uniquePrefix("spend");
    const store = new OrderStore(redis, prefix);
    const other = new OrderStore(redis, prefix);
    const now = Date.UTC(2026, 10, 23, 6); // 06:00 UTC
    store.spending.add(utcDay(now), 1_000);
    store.spending.add(utcDay(now), 250);
    store.spending.add(utcDay(now - 6 * DAY), 4_000);
    store.spending.add(utcDay(now - 7 * DAY), 99_999); // a day too old
    other.spending.add(utcDay(now), 30);
    await store.spending.flush();
    await other.spending.flush();
    // A day's counter as an earlier version kept it.
    await redis.set(store.keys.spendDay(utcDay(now - DAY)), "700", "EX", 3600);
    const expected = { spentKopecks: 5_980, windowMs: 6 * DAY + 6 * HOUR };
    expect(await recentSpending(store.spending, now)).toEqual(expected);
    expect(await recentSpending(other.spending, now)).toEqual(expected);
    expect(await recentSpending(new OrderStore(redis, prefix).spending, now)).toEqual(expected);
    // A month later nothing counts, and the fields of days long past are gone from the hash.
    expect(await recentSpending(new OrderStore(redis, prefix).spending, now + 30 * DAY)).toEqual({
      spentKopecks: 0,
      windowMs: 6 * DAY + 6 * HOUR,
    });
    expect(
      Object.keys(await redis.hgetall(store.keys.deposit)).filter((f) => f.startsWith("spent:")),
    ).toEqual([]);
  });

  it("writes a process's charges with the next deposit read, in its HSET, counting them in its own reads before", async () => {
    const prefix = uniquePrefix("spend");
    const store = new OrderStore(redis, prefix);
    const deposit = new DepositGuard(redis, prefix);
    const now = Date.now();
    const writes: string[] = [];
    watchCommands(redis, (command) => {
      if (
        command.args.map(String).includes(store.keys.deposit) &&
        command.name.startsWith("h") &&
        command.name !== "hgetall"
      )
        writes.push(command.name);
    });
    for (let i = 0; i < 50; i++) store.spending.add(utcDay(now), 100);
    // Not written yet, and still this process's spending.
    expect(await redis.exists(store.keys.deposit)).toBe(0);
    expect((await recentSpending(store.spending, now)).spentKopecks).toBe(5_000);
    // The deposit read a charge pulls forward (alerts.ts noteDeposit) carries the day's total.
    await deposit.noteDeposit(12_300, { resume: false, fields: store.spending.take().fields });
    const hash = await redis.hgetall(store.keys.deposit);
    expect(hash.kopecks).toBe("12300");
    expect(Object.entries(hash).filter(([f]) => f.startsWith(`spent:${utcDay(now)}:`))).toEqual([
      [expect.any(String), "5000"],
    ]);
    expect(writes).toEqual(["hset"]);
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(5_000);
    // Nothing left for the backstop to write.
    await store.spending.flush();
    expect(writes).toEqual(["hset"]);
    // A later charge: the running total, written on its own when no read carries it.
    store.spending.add(utcDay(now), 100);
    await store.spending.flush();
    expect(writes).toEqual(["hset", "hset"]);
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(5_100);
    // A read that failed to write gives its fields back to the next write.
    store.spending.add(utcDay(now), 50);
    const lost = store.spending.take();
    store.spending.giveBack(lost);
    await store.spending.flush();
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(5_150);
  });

  it("keeps charges whose write failed and writes them with the next one", async () => {
    const broken = testRedis();
    const errors: unknown[] = [];
    const prefix = uniquePrefix("spend");
    const store = new OrderStore(broken, prefix, { onSpendingError: (err) => errors.push(err) });
    const now = Date.UTC(2026, 10, 23, 6);
    store.spending.add(utcDay(now), 700);
    broken.disconnect();
    await store.spending.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(0);
    await broken.connect();
    store.spending.add(utcDay(now), 300);
    await store.spending.flush();
    expect((await recentSpending(new OrderStore(redis, prefix).spending, now)).spentKopecks).toBe(1_000);
    await broken.quit();
  });
});
