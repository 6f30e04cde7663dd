import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineScripts } from "../../src/redis/scripts.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/private-redis.js";

const DIR = new URL("./lua/", import.meta.url);

/** Calls of `cmd` Redis has counted (INFO commandstats), on this file's own Redis. */
async function calls(redis: Redis, cmd: string): Promise<number> {
  const m = new RegExp(`^cmdstat_${cmd}:calls=(\\d+)`, "m").exec(await redis.info("commandstats"));
  return m ? Number(m[1]) : 0;
}

describe("Lua scripts (redis/scripts.ts)", () => {
  let server: PrivateRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = new Redis(server.url, { enableAutoPipelining: true });
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it("runs a script by its digest, its key count from the file name", async () => {
    const scripts = defineScripts(redis, DIR, ["setAndCount-1"]);
    expect(await scripts["setAndCount-1"]("t:a", "one")).toBe(1);
    expect(await redis.get("t:a")).toBe("one");
    const evalsBefore = await calls(redis, "eval");
    expect(await scripts["setAndCount-1"]("t:a", "two")).toBe(1);
    expect(await redis.get("t:a")).toBe("two");
    // Loaded when defined: the calls are EVALSHAs, the text is not sent again.
    expect(await calls(redis, "eval")).toBe(evalsBefore);
    expect(await calls(redis, "evalsha")).toBeGreaterThanOrEqual(2);
  });

  it("takes the key count from the caller for a file without one", async () => {
    const scripts = defineScripts(redis, DIR, ["countKeys"]);
    expect(await scripts.countKeys(2, "t:x", "t:y", "arg")).toEqual([2, "arg"]);
    expect(await scripts.countKeys(0, "arg0")).toEqual([0, "arg0"]);
  });

  it("sends the script again when Redis lost it (a restart, a failover)", async () => {
    const scripts = defineScripts(redis, DIR, ["setAndCount-1"]);
    await scripts["setAndCount-1"]("t:b", "before");
    await redis.script("FLUSH");
    const evalsBefore = await calls(redis, "eval");
    expect(await scripts["setAndCount-1"]("t:b", "after")).toBe(1);
    expect(await redis.get("t:b")).toBe("after");
    expect(await calls(redis, "eval")).toBe(evalsBefore + 1);
    // Loaded again by that EVAL: the next call is an EVALSHA.
    expect(await scripts["setAndCount-1"]("t:b", "again")).toBe(1);
    expect(await calls(redis, "eval")).toBe(evalsBefore + 1);
  });

  it("passes a script's own error on, without sending it again", async () => {
    const scripts = defineScripts(redis, DIR, ["refuse-0"]);
    await scripts["refuse-0"]().catch(() => undefined);
    const evalsBefore = await calls(redis, "eval");
    await expect(scripts["refuse-0"]()).rejects.toThrow("REFUSED by the script");
    expect(await calls(redis, "eval")).toBe(evalsBefore);
  });

  it("leaves the client's commands as they were: a pipeline (one per auto-pipelined batch) carries no copy of them", async () => {
    const client = new Redis(server.url, { lazyConnect: true });
    const before = Object.keys(client.pipeline()).length;
    defineScripts(client, DIR, ["setAndCount-1", "countKeys"]);
    expect(Object.keys(client.pipeline()).length).toBe(before);
    client.disconnect();
  });
});
