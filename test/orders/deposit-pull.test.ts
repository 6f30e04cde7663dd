import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { DepositPull } from "../../src/orders/deposit-pull.js";
import { type EngineHarness, quotePaidStars, startEngineHarness } from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { watchCommands } from "../helpers/redis.js";

const log = createLogger({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("DepositPull", () => {
  it("checks at once, then once more when the window ends for every charge inside it", async () => {
    let checks = 0;
    const pull = new DepositPull({
      now: Date.now,
      minMs: 300,
      check: async () => {
        checks += 1;
      },
      log,
    });
    pull.soon("charge");
    expect(checks).toBe(1);
    pull.soon("charge");
    pull.soon("charge");
    pull.soon("charge");
    expect(checks).toBe(1);
    await eventually(() => checks === 2, 2000, "the check at the window's end");
    await sleep(500);
    expect(checks).toBe(2);
    await pull.stop();
  });

  it("resumes paused products only in a check that a refused quote pulled forward", async () => {
    const checks: boolean[] = [];
    const pull = new DepositPull({
      now: Date.now,
      minMs: 200,
      check: async ({ resume }) => {
        checks.push(resume);
      },
      log,
    });
    pull.soon("charge");
    pull.soon("charge");
    await eventually(() => checks.length === 2, 2000, "the charges' check at the window's end");
    expect(checks).toEqual([false, false]);
    // A refusal inside a window makes the check at its end a full one, charges or not around it.
    await sleep(250);
    pull.soon("charge");
    pull.soon("refusal");
    pull.soon("charge");
    await eventually(() => checks.length === 4, 2000, "the check at the window's end");
    expect(checks).toEqual([false, false, false, true]);
    await sleep(250);
    pull.soon("refusal");
    expect(checks).toEqual([false, false, false, true, true]);
    await pull.stop();
  });

  it("waits for a check under way when stopped, and starts none after", async () => {
    let finished = 0;
    let started = 0;
    const pull = new DepositPull({
      now: Date.now,
      minMs: 100,
      check: async () => {
        started += 1;
        await sleep(200);
        finished += 1;
      },
      log,
    });
    pull.soon("charge");
    pull.soon("charge");
    await pull.stop();
    expect(finished).toBe(1);
    pull.soon("charge");
    await sleep(300);
    expect(started).toBe(1);
  });

  it("keeps a failed check to the log", async () => {
    const lines: string[] = [];
    const pull = new DepositPull({
      now: Date.now,
      minMs: 100,
      check: async () => {
        throw new Error("reseller down");
      },
      log: createLogger({ level: "warn" }, { write: (l: string) => lines.push(l) } as never),
    });
    pull.soon("charge");
    await pull.stop();
    expect(lines.join("")).toContain("balance check failed");
  });
});

describe("the deposit check after pay", () => {
  let h: EngineHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("reads the deposit in the paying process at once, without going through the job schedule", async () => {
    h = await startEngineHarness();
    const hh = h;
    // Started with the engine: the periodic check has run once and stands 10 minutes ahead.
    await eventually(
      async () => (await hh.redis.hget(`${hh.prefix}deposit`, "at")) !== null,
      5000,
      "first check",
    );
    await eventually(
      async () => Number(await hh.redis.zscore(`${hh.prefix}jobs`, "balance:check")) > Date.now() + 60_000,
      5000,
      "the periodic check rescheduled",
    );
    const jobWrites: string[] = [];
    const pausedLooks: string[] = [];
    const depositWrites: string[] = [];
    watchCommands(hh.redis, (command) => {
      const args = (command as unknown as { args: unknown[] }).args.map(String);
      const line = `${(command as unknown as { name: string }).name} ${args.join(" ")}`;
      if (args.includes("balance:check")) jobWrites.push(line);
      if (args.includes(`${hh.prefix}paused`)) pausedLooks.push(line);
      const name = (command as unknown as { name: string }).name;
      const write = !["hget", "hgetall", "get", "exists"].includes(name);
      if (
        write &&
        (args.includes(`${hh.prefix}deposit`) || args.some((a) => a.startsWith(`${hh.prefix}spend:`)))
      )
        depositWrites.push(line);
    });
    const balanceReads = () => hh.sandbox.requests().filter((r) => r.path.endsWith("/balance")).length;
    const readsBefore = balanceReads();
    hh.sandbox.setBalanceRub(12_345);

    const order = await quotePaidStars(hh.engine, "pull-1");
    const pending = await eventually(
      async () => {
        const o = await hh.engine.get(order.id);
        return o?.chargedKopecks !== undefined ? o : undefined;
      },
      5000,
      "pay",
    );
    const left = String(12_345 * 100 - pending.chargedKopecks!);
    await eventually(
      async () => (await hh.redis.hget(`${hh.prefix}deposit`, "kopecks")) === left,
      5000,
      "the deposit after the charge",
    );
    expect(balanceReads()).toBe(readsBefore + 1);
    expect(jobWrites).toEqual([]);
    // The charge's spending went in the same HSET as the deposit, and nothing else wrote it.
    const spent = Object.entries(await hh.redis.hgetall(`${hh.prefix}deposit`)).filter(([f]) =>
      f.startsWith("spent:"),
    );
    expect(spent).toEqual([
      [expect.stringMatching(/^spent:\d{4}-\d{2}-\d{2}:/), String(pending.chargedKopecks)],
    ]);
    await hh.engine.stop();
    expect(depositWrites).toHaveLength(1);
    expect(depositWrites[0]).toMatch(/^hset .*deposit kopecks \d+ at \d+ spent:/);
    // A charge only lowered the deposit: nothing paused can be covered again, so it is not read.
    expect(pausedLooks).toEqual([]);
  });
});
