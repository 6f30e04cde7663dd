import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobSchedule } from "../../src/orders/schedule.js";
import { commandsProcessed, testRedis, uniquePrefix } from "../helpers/redis.js";

let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe("the job schedule", () => {
  it("claims the due jobs in one write, and tells the earliest jobs left, claimed ones at their lease's end", async () => {
    const key = `${uniquePrefix("jobs")}jobs`;
    const schedule = new JobSchedule(redis, key);
    const now = 1_000_000;
    for (let i = 1; i <= 5; i++) await redis.zadd(key, now - i, `due:${i}`);
    await redis.zadd(key, now + 500, "soon", now + 5000, "later", now + 9000, "last");
    const before = await commandsProcessed(redis);
    const look = await schedule.claimNext(now, 10, 2000, 3);
    const after = await commandsProcessed(redis);
    expect(look.jobs.map((j) => j.member).sort()).toEqual(["due:1", "due:2", "due:3", "due:4", "due:5"]);
    expect(look.jobs.every((j) => j.lease === now + 2000)).toBe(true);
    // The script call, one read of the schedule's head and one ZADD for the five; then INFO.
    expect(after - before).toBe(4);
    // Earliest first: "soon", then the claimed jobs, due again when their lease runs out.
    expect(look.upcoming[0]).toEqual({ member: "soon", dueAt: now + 500 });
    expect(look.upcoming.slice(1).map((u) => u.dueAt)).toEqual([now + 2000, now + 2000]);
    expect(await redis.zscore(key, "due:3")).toBe(String(now + 2000));
    expect(await redis.zscore(key, "later")).toBe(String(now + 5000));
  });

  it("looks at a schedule with nothing due in one command, and claims no more than asked", async () => {
    const key = `${uniquePrefix("jobs")}jobs`;
    const schedule = new JobSchedule(redis, key);
    const now = 2_000_000;
    await redis.zadd(key, now + 300, "a", now + 100, "b");
    const before = await commandsProcessed(redis);
    const idle = await schedule.claimNext(now, 64, 10_000, 32);
    const after = await commandsProcessed(redis);
    expect(idle.jobs).toEqual([]);
    expect(idle.upcoming).toEqual([
      { member: "b", dueAt: now + 100 },
      { member: "a", dueAt: now + 300 },
    ]);
    // The script call and one read; then INFO.
    expect(after - before).toBe(3);

    for (let i = 1; i <= 4; i++) await redis.zadd(key, now - 10 * i, `d${i}`);
    const two = await schedule.claimNext(now, 2, 10_000, 2);
    // The two due longest ago are taken; the two others due are the earliest left.
    expect(two.jobs.map((j) => j.member).sort()).toEqual(["d3", "d4"]);
    expect(two.upcoming).toEqual([
      { member: "d2", dueAt: now - 20 },
      { member: "d1", dueAt: now - 10 },
    ]);
    expect((await schedule.claimNext(now, 64, 10_000, 1)).jobs.map((j) => j.member).sort()).toEqual([
      "d1",
      "d2",
    ]);
  });
});
