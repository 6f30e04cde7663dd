import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import type { JobSchedule } from "../../src/orders/schedule.js";
import { OrderStore } from "../../src/orders/store.js";
import { JobWorker } from "../../src/orders/worker.js";
import { testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

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

/** A worker that looks rarely on its own (a minute) and records the jobs it runs, each waiting for `wait`. */
function recordingWorker(jobs: JobSchedule, ran: string[], wait?: Promise<void>): JobWorker {
  return new JobWorker({
    jobs,
    log: logger,
    now: Date.now,
    leaseMs: 60_000,
    concurrency: 4,
    idleDelayMs: 60_000,
    async run(member) {
      ran.push(member);
      await wait;
      return undefined;
    },
  });
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

describe("jobs written to run where they were written", () => {
  it("runs a job its own write held, without claiming it, and finishes it", async () => {
    const prefix = uniquePrefix("worker-held");
    const ran: string[] = [];
    const release = gate();
    let worker: JobWorker | undefined;
    const store = new OrderStore(redis, prefix, {
      holdJobsMs: 60_000,
      onHeld: (held) => {
        for (const { member, lease } of held) expect(worker?.adopt(member, lease)).toBe(true);
      },
    });
    const claims: number[] = [];
    const claimNext = store.jobs.claimNext.bind(store.jobs);
    store.jobs.claimNext = async (...args) => {
      const r = await claimNext(...args);
      claims.push(r.jobs.length);
      return r;
    };
    worker = recordingWorker(store.jobs, ran, release.opened);
    worker.start();
    const order = { id: "held-1", state: "paid" } as never;
    const t0 = Date.now();
    await store.create({ ...(order as object), customer: { chatId: 1 }, createdAt: t0 } as never, [
      { member: "submit:held-1", dueAt: t0, runHere: true },
    ]);
    // Written leased to this process: due for nobody else for a minute.
    const score = Number(await redis.zscore(store.jobs.key, "submit:held-1"));
    expect(score).toBeGreaterThanOrEqual(t0 + 60_000);
    for (let i = 0; i < 100 && ran.length === 0; i++) await sleep(10);
    expect(ran).toEqual(["submit:held-1"]);
    release.open();
    for (let i = 0; i < 100 && (await redis.zscore(store.jobs.key, "submit:held-1")) !== null; i++)
      await sleep(10);
    expect(await redis.zscore(store.jobs.key, "submit:held-1")).toBeNull();
    // The only claim was the worker's first look at an empty schedule.
    expect(claims.every((n) => n === 0)).toBe(true);
    await worker.stop(1000);
  });

  it("declines a held job when stopped, full or already running it: the caller makes it due for any worker", async () => {
    const store = new OrderStore(redis, uniquePrefix("worker-held-full"));
    const release = gate();
    const worker = new JobWorker({
      jobs: store.jobs,
      log: logger,
      now: Date.now,
      leaseMs: 60_000,
      concurrency: 1,
      idleDelayMs: 60_000,
      async run() {
        await release.opened;
        return undefined;
      },
    });
    const lease = Date.now() + 60_000;
    expect(worker.adopt("a", lease)).toBe(false); // not started
    worker.start();
    expect(worker.adopt("a", lease)).toBe(true);
    expect(worker.adopt("a", lease)).toBe(false); // running here already
    expect(worker.adopt("b", lease)).toBe(false); // full
    release.open();
    await worker.stop(1000);
  });
});

describe("an idle worker's wake", () => {
  it("looks at the schedule's head in one command while nothing is due, and claims what another process scheduled", async () => {
    const own = testRedis();
    const prefix = uniquePrefix("worker-peek");
    const jobs = new OrderStore(own, prefix).jobs;
    const sent: string[] = [];
    watchCommands(own, (command) => {
      if (command.args.map(String).includes(jobs.key)) sent.push(command.name);
    });
    const ran: string[] = [];
    const worker = new JobWorker({
      jobs,
      log: logger,
      now: Date.now,
      leaseMs: 60_000,
      concurrency: 4,
      idleDelayMs: 100,
      async run(member) {
        ran.push(member);
        return undefined;
      },
    });
    // A job far ahead: the idle bound, not it, wakes the worker.
    await jobs.schedule("balance:check", Date.now() + 600_000);
    sent.length = 0;
    worker.start();
    try {
      // The first look claims (a script, loaded on its first use); the idle looks after it read the
      // head only.
      for (let i = 0; i < 100 && !sent.includes("zrange"); i++) await sleep(10);
      expect(sent[0]).toBe("evalsha");
      expect(sent.at(-1)).toBe("zrange");
      sent.length = 0;
      await sleep(450);
      expect(sent.length).toBeGreaterThanOrEqual(3);
      expect(new Set(sent)).toEqual(new Set(["zrange"]));
      // Another process schedules a job due now and does not wake this one.
      await redis.zadd(jobs.key, Date.now(), "other:1");
      await sleep(250);
      expect(ran).toEqual(["other:1"]);
      expect(sent).toContain("evalsha");
    } finally {
      await worker.stop(1000);
      await own.quit();
    }
  });

  it("does not look at the schedule for a job its own process took off, and still runs one that stands", async () => {
    const prefix = uniquePrefix("worker-forget");
    let worker: JobWorker | undefined;
    const store = new OrderStore(redis, prefix, {
      onEffects: (effects) => {
        for (const e of effects) if ("cancel" in e) worker?.forget(e.cancel);
      },
    });
    const looks: number[] = [];
    const claimNext = store.jobs.claimNext.bind(store.jobs);
    store.jobs.claimNext = async (...args) => {
      looks.push(Date.now());
      return claimNext(...args);
    };
    const ran: string[] = [];
    worker = recordingWorker(store.jobs, ran);
    const t0 = Date.now();
    const order = {
      id: "forget-1",
      state: "pending",
      customer: { chatId: 1, userId: 1, locale: "en" },
      createdAt: t0,
    } as never;
    // A pending order's poll, due in 300 ms, and another job due in 700 ms.
    await store.create(order, [{ member: "track:forget-1", dueAt: t0 + 300 }]);
    await store.jobs.schedule("balance:check", t0 + 700);
    worker.start();
    try {
      await sleep(100);
      expect(looks).toHaveLength(1);
      // The order settles (a webhook): its write takes the poll off the schedule.
      const delivered = { ...(order as object), state: "delivered" } as never;
      expect(await store.write(order, 1, delivered, [{ cancel: "track:forget-1" }])).toBe(true);
      await sleep(400);
      // No look at 300 ms for the poll that is gone.
      expect(looks).toHaveLength(1);
      // The job that stands is run when it falls due.
      await sleep(500);
      expect(ran).toEqual(["balance:check"]);
      expect(looks).toHaveLength(2);
    } finally {
      await worker.stop(1000);
    }
  });
});
