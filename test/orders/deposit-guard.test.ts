import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { DepositGuard } from "../../src/orders/deposit-guard.js";
import { testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

let redis: Redis | undefined;
afterEach(async () => {
  await redis?.quit();
  redis = undefined;
});

describe("DepositGuard", () => {
  it("answers the checks that follow a deposit read from what the read wrote and saw", async () => {
    redis = testRedis();
    const prefix = uniquePrefix("deposit");
    await redis.hset(`${prefix}paused`, "stars", "5000", "premium", "90000");
    const guard = new DepositGuard(redis, prefix);
    const counter = { sent: 0 };
    watchCommands(redis, () => {
      counter.sent += 1;
    });

    expect(await guard.noteDeposit(10_000)).toEqual(["stars"]);
    const afterCheck = counter.sent;
    expect(await guard.anyPaused()).toBe(true);
    expect(await guard.mayQuote("stars")).toBe(true);
    expect(await guard.mayQuote("premium")).toBe(false);
    expect((await guard.state()).depositKopecks).toBe(10_000);
    expect(await guard.covers(10_000)).toBe(true);
    expect(await guard.covers(10_001)).toBe(false);
    // None of these asked Redis again.
    expect(counter.sent).toBe(afterCheck);
    // And Redis holds what the answers said.
    expect(await redis.hgetall(`${prefix}paused`)).toEqual({ premium: "90000" });
    expect(await redis.hget(`${prefix}deposit`, "kopecks")).toBe("10000");
  });

  it("records a deposit read after a charge in one write, leaving paused kinds as they are", async () => {
    redis = testRedis();
    const prefix = uniquePrefix("deposit");
    let now = 1_000_000;
    const guard = new DepositGuard(redis, prefix, () => now);
    await redis.hset(`${prefix}paused`, "stars", "5000");
    expect(await guard.noteDeposit(4_000)).toEqual([]);
    const sent: string[] = [];
    watchCommands(redis, (command) => {
      sent.push((command as unknown as { name: string }).name);
    });
    // Covered now, but a charge's read does not resume: the next full check does.
    expect(await guard.noteDeposit(6_000, { resume: false })).toEqual([]);
    // The copy still within its window took the new deposit and kept what is paused.
    expect((await guard.state()).depositKopecks).toBe(6_000);
    expect(await guard.mayQuote("stars")).toBe(true);
    expect(sent).toEqual(["hset"]);
    expect(await redis.hget(`${prefix}deposit`, "kopecks")).toBe("6000");
    expect(await redis.hgetall(`${prefix}paused`)).toEqual({ stars: "5000" });
    now += 2_000;
    expect(await guard.noteDeposit(6_000)).toEqual(["stars"]);
  });

  it("does not hide a pause made while a deposit read was under way", async () => {
    redis = testRedis();
    const prefix = uniquePrefix("deposit");
    const guard = new DepositGuard(redis, prefix);
    const check = guard.noteDeposit(1_000);
    const paused = guard.pause("gift", 50_000);
    await Promise.all([check, paused]);
    expect(await guard.mayQuote("gift")).toBe(false);
    expect(await guard.anyPaused()).toBe(true);
  });

  it("reads Redis again once its copy is older than the cache window", async () => {
    redis = testRedis();
    const prefix = uniquePrefix("deposit");
    let now = 1_000_000;
    const guard = new DepositGuard(redis, prefix, () => now);
    await guard.noteDeposit(20_000);
    // Another process pauses a kind after this one's read.
    await redis.hset(`${prefix}paused`, "steam", "30000");
    expect(await guard.mayQuote("steam")).toBe(true);
    now += 2_000;
    expect(await guard.mayQuote("steam")).toBe(false);
  });
});
