import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";

/**
 * The job schedule: one zset of encoded jobs (jobs.ts) scored by when each is due, in ms. A
 * claimed job's score becomes the end of its lease, so a dead worker's jobs come back by
 * themselves; worker.ts renews the leases of jobs that run long. Order writes add and remove
 * jobs inside their own script (store.ts, lua/writeOrder.lua); this is the rest: taking due
 * jobs, finishing or rescheduling them, and scheduling jobs that belong to no order write.
 */

const SCRIPTS = ["claimJobs-1", "finishJob-1", "renewJob-1"] as const;

export class JobSchedule {
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;

  constructor(
    private readonly redis: RedisClient,
    /** The zset's key (`P jobs`, see keys.ts). */
    readonly key: string,
  ) {
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  /** Takes up to `limit` due jobs for `leaseMs`; returns them with the lease score needed to finish them. */
  async claim(now: number, limit: number, leaseMs: number): Promise<{ member: string; lease: number }[]> {
    return (await this.claimNext(now, limit, leaseMs)).jobs;
  }

  /**
   * {@link claim}, also telling the earliest `ahead` jobs left in the schedule and when each
   * falls due (a claimed job's lease end counts: it comes back then if its worker died), earliest
   * first.
   */
  async claimNext(
    now: number,
    limit: number,
    leaseMs: number,
    ahead = 1,
  ): Promise<{
    jobs: { member: string; lease: number }[];
    upcoming: { member: string; dueAt: number }[];
  }> {
    const lease = now + leaseMs;
    const reply = (await this.scripts["claimJobs-1"](this.key, now, limit, lease, ahead)) as string[];
    const n = Number(reply[0]);
    const upcoming: { member: string; dueAt: number }[] = [];
    for (let i = 0; i < n; i++) upcoming.push({ member: reply[1 + 2 * i]!, dueAt: Number(reply[2 + 2 * i]) });
    return {
      jobs: reply.slice(1 + 2 * n).map((member) => ({ member, lease })),
      upcoming,
    };
  }

  /**
   * The earliest `count` jobs in the schedule and when each falls due (a claimed job's: its lease's
   * end), earliest first: one ZRANGE, for a look that expects nothing due.
   */
  async peek(count: number): Promise<{ member: string; dueAt: number }[]> {
    const reply = await this.redis.zrange(this.key, 0, count - 1, "WITHSCORES");
    const head: { member: string; dueAt: number }[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2)
      head.push({ member: reply[i]!, dueAt: Number(reply[i + 1]) });
    return head;
  }

  /** Removes a claimed job (rescheduleAt undefined) or moves it to a later time; no-op if it was rescheduled meanwhile. */
  async finish(member: string, lease: number, rescheduleAt?: number): Promise<boolean> {
    const res = await this.scripts["finishJob-1"](
      this.key,
      member,
      lease,
      rescheduleAt === undefined ? "" : rescheduleAt,
    );
    return res === 1;
  }

  /** Moves a running job's lease from `lease` to `newLease`; false when it is no longer ours to extend. */
  async renew(member: string, lease: number, newLease: number): Promise<boolean> {
    return (await this.scripts["renewJob-1"](this.key, member, lease, newLease)) === 1;
  }

  /** Whether `member` still stands at `lease` (no write or other worker has moved it since). */
  async holds(member: string, lease: number): Promise<boolean> {
    const score = await this.redis.zscore(this.key, member);
    return score !== null && Number(score) === lease;
  }

  /** Schedules a job unconditionally (ZADD). */
  async schedule(member: string, dueAt: number): Promise<void> {
    await this.redis.zadd(this.key, dueAt, member);
  }

  /** Schedules a job unless it is scheduled already (ZADD NX). */
  async scheduleOnce(member: string, dueAt: number): Promise<void> {
    await this.redis.zadd(this.key, "NX", dueAt, member);
  }

  /** Jobs waiting or running. */
  async pending(): Promise<number> {
    return this.redis.zcard(this.key);
  }
}
