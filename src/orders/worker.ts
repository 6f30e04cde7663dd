import type { Logger } from "../logger.js";
import { BackgroundLoop, settleWithin } from "../util/timers.js";
import type { JobSchedule } from "./schedule.js";

/**
 * This process's share of the job schedule: claims due jobs with a lease, runs them (at most
 * `concurrency` at once), renews the lease of every job that runs longer than a third of it so
 * no other worker starts it again, and finishes or reschedules each. A process that dies stops
 * renewing; its jobs come back to every worker when their leases run out (10 s by default), and
 * an idle worker wakes for that moment, since a leased job's score is its lease's end.
 *
 * A renewal can find the lease lost (this process stalled or lost Redis for longer than the
 * lease, and another worker claimed the job). The job may then run twice at once; every job is
 * built for that: `pay` is idempotent per custom_id at the reseller, every state change is an
 * atomic, state-checked write, a Stars refund is refused the second time, and messages go through
 * the outgoing queue, which sends each once. The worker that lost the lease stops renewing and
 * leaves finishing or rescheduling the job to the new holder.
 */
export interface WorkerOptions {
  jobs: JobSchedule;
  log: Logger;
  now: () => number;
  /**
   * Runs one job; a number is "run it again at that time (ms)", null "done, and the entry is not
   * this run's to finish" (the job's own write removed or moved it, or another lease holds it).
   */
  run(member: string, held: HeldLease): Promise<number | undefined | null>;
  /** Called when a job ends: done, to be retried, or failed (retried after a pause). */
  onOutcome?(member: string, outcome: "done" | "retry" | "error"): void;
  /** How long a claimed job is reserved for one worker before another may take it (crash recovery). */
  leaseMs: number;
  /** Jobs handled at once by this process. */
  concurrency: number;
  /**
   * Longest pause between looks at the job schedule. An idle worker sleeps until the earliest job
   * falls due, or until this process schedules new work (`kick`); this bounds how long it takes
   * to notice work other processes scheduled.
   */
  idleDelayMs: number;
}

/** The lease a running job holds: its end (kept up to date as it is renewed), and how it was got. */
export interface HeldLease {
  readonly lease: number;
  /**
   * Claimed from the schedule, rather than written leased to this process by its own write
   * (`adopt`): a job claimed as due may have been moved by a write since, which a job that acts
   * by its order's state checks before acting (steps.ts `nextStep`).
   */
  readonly claimed: boolean;
  /** When this process claimed or adopted it (ms, its own clock); unknown for leases made elsewhere. */
  readonly since?: number;
  /**
   * Stops renewing the lease and answers its end as it then stands (after a renewal under way has
   * settled): for a run whose last write leaves the job's entry at that time, as its next run
   * (steps.ts `submitPay`, the first status poll). Given by the worker to the jobs it runs.
   */
  readonly freeze?: () => Promise<number>;
}

/** The worker's own copy of a running job's lease: renewals move `lease` on. */
type RunningLease = { -readonly [K in keyof HeldLease]: HeldLease[K] };

/** Default lease of a claimed job. */
export const JOB_LEASE_MS = 10_000;

/** Pause before a job that threw runs again. */
const ERROR_RETRY_MS = 2000;

/** Jobs left in the schedule that a look reads, to sleep until the first still there. */
const UPCOMING = 32;

export class JobWorker extends BackgroundLoop {
  /** When the current idle sleep ends (0 while working). */
  private wakeAt = 0;
  /** The earliest due time of work scheduled here since the last look at the schedule. */
  private earliestKick = Number.POSITIVE_INFINITY;
  /** The earliest jobs left in the schedule at the last look, earliest first. */
  private upcoming: { member: string; dueAt: number }[] = [];
  /** Of {@link upcoming}, those this process's own writes have taken off the schedule since. */
  private readonly gone = new Set<string>();
  private readonly inFlight = new Map<string, { held: RunningLease; done: Promise<void> }>();

  constructor(private readonly opts: WorkerOptions) {
    super();
  }

  /** A job falling due at `dueAt` was scheduled: look then, if that is sooner than planned. */
  kickFor(dueAt: number): void {
    this.earliestKick = Math.min(this.earliestKick, dueAt);
    if (dueAt < this.wakeAt) this.sleeper.wake();
  }

  /** Look at the schedule now. */
  override kick(): void {
    this.earliestKick = Number.NEGATIVE_INFINITY;
    super.kick();
  }

  /**
   * This process took `member` off the schedule (an order write moved on: a quote expired or
   * cancelled, a pending order settled): the worker need not wake for it. Without this, every
   * status poll that a webhook made unnecessary cost an empty look at its due time.
   */
  forget(member: string): void {
    if (this.upcoming.some((u) => u.member === member)) this.gone.add(member);
  }

  /** When the next job falls due as far as this process knows: the first upcoming one still scheduled. */
  private plannedDue(): number {
    for (const u of this.upcoming) if (!this.gone.has(u.member)) return u.dueAt;
    // All of them taken off: what lies beyond them (if the look saw only part) is due no earlier.
    return this.upcoming.length >= UPCOMING ? (this.upcoming.at(-1)?.dueAt ?? 0) : Number.POSITIVE_INFINITY;
  }

  /** Stops claiming, lets running jobs finish within `timeoutMs`, hands unfinished ones back. */
  async stop(timeoutMs: number): Promise<void> {
    if (!(await this.endLoop())) return;
    await settleWithin(
      [...this.inFlight.values()].map((j) => j.done),
      timeoutMs,
    );
    // Whatever is still running is handed back now rather than after its lease runs out.
    const { jobs, now } = this.opts;
    await Promise.allSettled(
      [...this.inFlight.entries()].map(([member, { held }]) => jobs.finish(member, held.lease, now())),
    );
  }

  protected async loop(): Promise<void> {
    const { jobs, log, now, concurrency, leaseMs, idleDelayMs } = this.opts;
    let redisDown = false;
    // Whether this look was woken for work (a job due as far as this process knows, a kick, the
    // first look) rather than only by the idle bound.
    let expectWork = true;
    while (this.running) {
      let claimed: { member: string; lease: number }[] = [];
      // What a kick before this look was about, the look sees (a kick during it counts: earliestKick).
      this.earliestKick = Number.POSITIVE_INFINITY;
      this.sleeper.forget();
      const free = concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          // A look for work another process may have scheduled reads the schedule's head first (one
          // command) and claims (a script) only when something there is due.
          const head = expectWork ? undefined : await jobs.peek(UPCOMING);
          const t = now();
          const first = head?.[0];
          const look =
            head && !(first && first.dueAt <= t)
              ? { jobs: [], upcoming: head }
              : await jobs.claimNext(t, free, leaseMs, UPCOMING);
          claimed = look.jobs;
          this.upcoming = look.upcoming;
          this.gone.clear();
          if (redisDown) log.info("job schedule reachable again");
          redisDown = false;
        } catch (err) {
          if (!redisDown) log.error({ err }, "cannot read the job schedule; retrying");
          redisDown = true;
        }
      }
      // A look straight after this one (all it could take was due) claims at once.
      expectWork = true;
      for (const { member, lease } of claimed) {
        if (this.inFlight.has(member)) {
          // Re-scheduled while it runs here (new work for the same job): run it again afterwards.
          await jobs.finish(member, lease, now() + idleDelayMs).catch(() => {});
          continue;
        }
        this.begin(member, lease, true);
      }
      // Fewer jobs than asked for: nothing else is due now, so wait for the next due time (at most
      // idleDelayMs, to notice other processes' work). A wake for a job this process has taken off
      // the schedule meanwhile sleeps on without a look.
      if (claimed.length < free || this.inFlight.size >= concurrency) {
        const lookBy = now() + (redisDown ? 1000 : idleDelayMs);
        while (this.running) {
          // Full, the worker takes nothing before one of its jobs ends (which kicks it).
          const full = this.inFlight.size >= concurrency;
          const due =
            redisDown || full
              ? Math.min(lookBy, this.earliestKick)
              : Math.min(this.plannedDue(), this.earliestKick, lookBy);
          const pause = Math.max(0, due - now());
          if (pause === 0) {
            expectWork = due !== lookBy || redisDown;
            break;
          }
          this.wakeAt = now() + pause;
          await this.sleeper.sleep(pause);
          this.wakeAt = 0;
        }
      }
    }
  }

  /**
   * Runs a job this process itself just wrote into the schedule with the score `lease` (the end of
   * a lease, as a claim would give it): no claim, no wait for the next look. False when it cannot
   * run here now (stopped, full, or already running here); the caller then makes it due for any
   * worker. A process that dies holding it leaves it to the others when the lease runs out.
   */
  adopt(member: string, lease: number): boolean {
    if (!this.running || this.inFlight.size >= this.opts.concurrency || this.inFlight.has(member))
      return false;
    this.begin(member, lease, false);
    return true;
  }

  private begin(member: string, lease: number, claimed: boolean): void {
    const held: RunningLease = { lease, claimed, since: this.opts.now() };
    const done = this.handle(member, held).finally(() => {
      // A worker that was full may take more now.
      const wasFull = this.inFlight.size >= this.opts.concurrency;
      this.inFlight.delete(member);
      if (wasFull) this.kick();
    });
    this.inFlight.set(member, { held, done });
  }

  private async handle(member: string, held: RunningLease): Promise<void> {
    const { jobs, log, now, leaseMs } = this.opts;
    // A job can outlast its lease (a slow reseller, Telegram's limits): keep extending it while it
    // runs so no other worker starts it a second time. Only a dead process stops renewing. One
    // renewal at a time: a slow one must not make the next look like a lost lease.
    let lost = false;
    let running = true;
    let timer: NodeJS.Timeout | undefined;
    let renewing: Promise<void> | undefined;
    // A third of the lease, or of what is left of a lease written shorter than a claim's (a step
    // held until its first poll, lifecycle.ts): renewed well before it ends either way.
    const schedule = (leftMs = leaseMs) => {
      timer = setTimeout(
        () => {
          const next = now() + leaseMs;
          renewing = jobs.renew(member, held.lease, next).then(
            (ok) => {
              if (ok) held.lease = next;
              else {
                lost = true;
                // Claimed by another worker after this one stalled, or scheduled anew meanwhile.
                if (running) log.warn({ job: member }, "job lease lost; the job is left to the schedule");
              }
              if (running && !lost) schedule();
            },
            () => {
              if (running) schedule();
            },
          );
        },
        Math.max(50, Math.floor(Math.min(leaseMs, leftMs) / 3)),
      );
    };
    schedule(held.lease - now());
    // Before finishing, a renewal still under way settles: its answer says which lease is ours.
    const stopRenewing = async () => {
      running = false;
      clearTimeout(timer);
      await renewing;
    };
    held.freeze = async () => {
      await stopRenewing();
      return held.lease;
    };
    try {
      const retryAt = await this.opts.run(member, held);
      await stopRenewing();
      // A lost lease is the new holder's to finish or reschedule.
      if (!lost && retryAt !== null) {
        await jobs.finish(member, held.lease, retryAt);
        // Its lease's end no longer stands in the schedule; a retry stands at its own time.
        this.forget(member);
        if (retryAt !== undefined) this.kickFor(retryAt);
      }
      this.opts.onOutcome?.(member, typeof retryAt === "number" ? "retry" : "done");
    } catch (err) {
      await stopRenewing();
      this.opts.onOutcome?.(member, "error");
      log.error({ err, job: member }, "job failed; will retry");
      if (!lost) {
        const retryAt = now() + ERROR_RETRY_MS;
        await jobs.finish(member, held.lease, retryAt).catch(() => {});
        this.forget(member);
        this.kickFor(retryAt);
      }
    }
  }
}
