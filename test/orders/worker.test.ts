import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { OrderStore } from "../../src/orders/store.js";
import { JobWorker } from "../../src/orders/worker.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A gate a job waits at until the test opens it. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

/** A job schedule whose renewals are counted (and, with `slowAnswerMs`, answered late), on the real Redis. */
function countingStore(prefix: string, slowAnswerMs = 0) {
  const store = new OrderStore(redis, prefix).jobs;
  const renewals: boolean[] = [];
  const renew = store.renew.bind(store);
  store.renew = async (member, lease, next) => {
    const ok = await renew(member, lease, next);
    if (slowAnswerMs > 0) await sleep(slowAnswerMs);
    renewals.push(ok);
    return ok;
  };
  return { store, renewals };
}

describe("the job worker's leases", () => {
  it("stops renewing a job whose lease another worker took over, and leaves the job to that worker", async () => {
    const { store, renewals } = countingStore(uniquePrefix("worker"));
    await store.schedule("balance", Date.now());
    const started = gate();
    const release = gate();
    const worker = new JobWorker({
      jobs: store,
      log: logger,
      now: Date.now,
      leaseMs: 300,
      concurrency: 1,
      idleDelayMs: 50,
      async run() {
        started.open();
        await release.opened;
        return Date.now() + 5_000;
      },
    });
    worker.start();
    await started.opened;
    // Another worker's claim: the job's score is now that worker's lease.
    const theirs = Date.now() + 60_000;
    await redis.zadd(store.key, theirs, "balance");
    // Several renewal turns (a third of the lease each) pass while the job still runs here.
    await sleep(700);
    release.open();
    await worker.stop(1000);
    expect(renewals).toEqual([false]);
    expect(Number(await redis.zscore(store.key, "balance"))).toBe(theirs);
  });

  it("keeps the lease of a long job and finishes it when a renewal is answered late", async () => {
    const { store, renewals } = countingStore(uniquePrefix("worker"), 250);
    await store.schedule("balance", Date.now());
    const started = gate();
    const release = gate();
    const worker = new JobWorker({
      jobs: store,
      log: logger,
      now: Date.now,
      leaseMs: 300,
      concurrency: 1,
      idleDelayMs: 50,
      async run() {
        started.open();
        await release.opened;
        return undefined;
      },
    });
    worker.start();
    await started.opened;
    await sleep(1200);
    release.open();
    await worker.stop(1000);
    expect(renewals.length).toBeGreaterThanOrEqual(2);
    expect(renewals.every((ok) => ok)).toBe(true);
    // Finished by the worker that held it all along.
    expect(await redis.zscore(store.key, "balance")).toBeNull();
  });
});
