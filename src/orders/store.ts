import type { LeaseTerms, OutgoingQueue, TakenMessage } from "../outgoing/queue.js";
import type { RedisClient } from "../redis/connect.js";
import type { ReplicaWait } from "../redis/replica-wait.js";
import { defineScripts } from "../redis/scripts.js";
import type { Effect, HeldJob } from "./effects.js";
import { FinalMarks } from "./final-marks.js";
import { orderKeys } from "./keys.js";
import { OrderLists } from "./order-lists.js";
import { encodeRecord, type Stored } from "./record.js";
import { JobSchedule } from "./schedule.js";
import { DailySpending } from "./spending.js";
import type { Order, OrderState } from "./types.js";
import { planWrite, takenOf } from "./write-plan.js";

/**
 * Orders in Redis (layout in keys.ts). Every write of an order goes through one Lua script
 * (lua/writeOrder.lua) that checks the version read before, then writes the record, moves it
 * between indexes and schedules its follow-up jobs, all at once. A writer that lost the race
 * sees the new version and re-decides, so two processes, a webhook racing a poll, or a double
 * tap move an order once, and the work a transition needs (pay, poll, notify, refund, alert) is
 * recorded with it: a crash cannot separate them.
 *
 * The job schedule (schedule.ts, `store.jobs`) is a zset of due times; a claimed job's score
 * becomes its lease's end, so a dead worker's jobs come back by themselves. Lists of orders (a
 * customer's, an operator filter's, a period's) are the read side this class extends
 * (order-lists.ts).
 */

const SCRIPTS = ["writeOrder", "scheduleIfState-2", "removeOrder-8"] as const;

/** Orders whose last seen version this process keeps, to write without reading first. */
const RECENT_MAX = 2000;

export class OrderStore extends OrderLists {
  /** The job schedule these orders' writes add to (taking, finishing and adding jobs). */
  readonly jobs: JobSchedule;
  /** The deposit charged per UTC day (the /balance runway). */
  readonly spending: DailySpending;
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;
  private readonly outgoing: OutgoingQueue | undefined;
  private readonly onEffects: ((effects: Effect[]) => void) | undefined;
  private readonly replicaWait: ReplicaWait | undefined;
  private readonly holdJobsMs: number | undefined;
  private readonly onHeld: ((jobs: HeldJob[]) => void) | undefined;
  private readonly leaseTerms: (() => LeaseTerms | undefined) | undefined;
  private readonly onLeased: ((taken: TakenMessage[], takenAt: number) => void) | undefined;
  /** The last version of each order this process read or wrote (newest last). */
  private readonly recent = new Map<string, Stored>();
  /** Final messages' marks, gathered for one write. */
  private readonly marks: FinalMarks;

  /**
   * `outgoing` is the queue that messages of a write go to (required for writes that carry any);
   * `onEffects` is called after every write that scheduled a job or queued a message.
   */
  constructor(
    redis: RedisClient,
    prefix: string,
    opts: {
      now?: () => number;
      outgoing?: OutgoingQueue;
      onEffects?: (effects: Effect[]) => void;
      /** Sentinel or Cluster: every order write waits for a replica before the engine acts on it. */
      replicaWait?: ReplicaWait;
      /** Jobs to run here (`runHere`, delivery hints) are written leased to this process for this long. */
      holdJobsMs?: number;
      /** Called after a write with the jobs it wrote leased to this process, for it to run them. */
      onHeld?: (jobs: HeldJob[]) => void;
      /** A write of the day's spending failed (spending.ts); it is tried again with the next batch. */
      onSpendingError?: (err: unknown) => void;
      /**
       * When it gives terms, a write's one or two messages into a customer's chat are taken by the
       * write itself if the outgoing queue is empty (write-plan.ts), and handed to `onLeased` to send.
       */
      leaseTerms?: () => LeaseTerms | undefined;
      onLeased?: (taken: TakenMessage[], takenAt: number) => void;
    } = {},
  ) {
    super(redis, orderKeys(prefix), opts.now ?? Date.now);
    this.jobs = new JobSchedule(redis, this.keys.jobs);
    this.spending = new DailySpending(
      redis,
      { deposit: this.keys.deposit, legacyDay: this.keys.spendDay },
      opts.onSpendingError,
    );
    this.outgoing = opts.outgoing;
    this.onEffects = opts.onEffects;
    this.replicaWait = opts.replicaWait;
    this.holdJobsMs = opts.holdJobsMs;
    this.onHeld = opts.onHeld;
    this.leaseTerms = opts.onLeased ? opts.leaseTerms : undefined;
    this.onLeased = opts.onLeased;
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
    this.marks = new FinalMarks(redis, opts.replicaWait);
  }

  get jobsKey(): string {
    return this.keys.jobs;
  }

  stateIndex(state: OrderState): string | undefined {
    return this.keys.stateIndex(state);
  }

  chatIndex(chatId: number): string {
    return this.keys.chat(chatId);
  }

  // ---- orders ----

  async read(id: string): Promise<Stored | null> {
    const [stored] = await this.readStored([id]);
    return stored ? this.remember(stored) : null;
  }

  /**
   * The order as this process last read or wrote it when that copy `fits` (is in a state worth
   * acting on), otherwise read now: a copy may be behind, so one that does not fit is no answer.
   * For work that a stale copy cannot harm: every write checks the version (a stale copy makes it
   * read again), and the reseller's `pay` and order reads are safe to repeat.
   */
  async latest(id: string, fits: (order: Order) => boolean): Promise<Order | null> {
    const cached = this.recent.get(id)?.order;
    return cached && fits(cached) ? cached : await this.get(id);
  }

  /**
   * Records that the order's final message went out (`finalNotifiedAt`): a key of its own beside
   * the record, written outside the version (nothing decides on it but the final message itself,
   * which it keeps from going out twice; the operators' resend deletes it with the version it
   * writes).
   */
  async markFinalNotified(id: string, at: number): Promise<void> {
    await this.marks.write(this.keys.sent(id), String(at));
    const cached = this.recent.get(id);
    if (cached) this.remember({ order: { ...cached.order, finalNotifiedAt: at }, version: cached.version });
  }

  private remember(stored: Stored): Stored {
    const id = stored.order.id;
    this.recent.delete(id);
    this.recent.set(id, stored);
    if (this.recent.size > RECENT_MAX) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    return stored;
  }

  async get(id: string): Promise<Order | null> {
    return (await this.read(id))?.order ?? null;
  }

  /**
   * Writes `next` if the order is still at `version` (0 = must not exist yet), moving it between
   * indexes and scheduling `jobs` in the same atomic step.
   */
  async write(prev: Order | null, version: number, next: Order, effects: Effect[]): Promise<boolean> {
    return (await this.writeCapped(prev, version, next, effects)) === 1;
  }

  /**
   * {@link write}, refused (-1, nothing written) when `maxOpen` is given and the customer's chat
   * already holds that many unexpired unpaid quotes; 1 written, 0 the version did not match.
   */
  private async writeCapped(
    prev: Order | null,
    version: number,
    next: Order,
    effects: Effect[],
    maxOpen?: number,
  ): Promise<number> {
    // On this process's clock, as the dispatcher counts its leases (see onLeased).
    const issuedAt = Date.now();
    const { keys, ops, held } = planWrite(this.keys, prev, next, effects, {
      now: this.now(),
      maxOpen,
      holdJobsMs: this.holdJobsMs,
      outgoing: this.outgoing,
      lease: effects.some((e) => "message" in e) ? this.leaseTerms?.() : undefined,
      clock: issuedAt,
    });
    const reply = await this.scripts.writeOrder(
      keys.length,
      ...keys,
      version,
      encodeRecord(version + 1, next),
      ops.length / 4,
      ...ops,
    );
    // Written with its messages taken: { 1, message, wait, lease end, apart, … } (writeOrder.lua).
    const taken = Array.isArray(reply) ? takenOf(reply) : [];
    const res = Array.isArray(reply) ? Number(reply[0]) : Number(reply);
    if (res === 1) {
      // Remembered before anything acts on the write: a job held here starts from this copy.
      this.remember({ order: next, version: version + 1 });
      // A customer's payment, the `paid` state that `pay` is sent from, a final state and its final
      // message: each is on a replica before anything acts on it, so a failover cannot undo it.
      await this.replicaWait?.after(keys[0]!);
      // Messages the write took are this process's to send: nobody needs waking for them.
      const told = taken.length > 0 ? effects.filter((e) => !("message" in e)) : effects;
      if (told.length > 0) this.onEffects?.(told);
      if (held.length > 0) this.onHeld?.(held);
      if (taken.length > 0) this.onLeased?.(taken, issuedAt);
    }
    return res;
  }

  /**
   * Read-decide-write with optimistic concurrency: `decide` sees the current order and returns
   * the next one and its jobs, or null for "nothing to do". Retries when another writer got in first.
   * Returns the written order (won), or the current one with `won: false`.
   */
  async update(
    id: string,
    decide: (order: Order) => { next: Order; jobs?: Effect[] } | null,
  ): Promise<{ won: boolean; order: Order | null }> {
    // The first attempt may start from the version this process last saw, saving a read: the
    // write's version check catches a copy that is out of date, and so does reading again
    // whenever that copy leads to "nothing to do".
    let cached = this.recent.get(id);
    for (let attempt = 0; attempt < 50; attempt++) {
      const stored = cached ?? (await this.read(id));
      if (!stored) return { won: false, order: null };
      const decision = decide(stored.order);
      if (!decision) {
        if (cached) {
          cached = undefined;
          continue;
        }
        return { won: false, order: stored.order };
      }
      cached = undefined;
      const next = { ...decision.next, updatedAt: this.now() };
      if (await this.write(stored.order, stored.version, next, decision.jobs ?? [])) {
        return { won: true, order: next };
      }
      this.recent.delete(id);
    }
    throw new Error(`order ${id}: too much write contention`);
  }

  /** Creates the order record; false when one with that id exists already. */
  async create(order: Order, jobs: Effect[]): Promise<boolean> {
    return this.write(null, 0, order, jobs);
  }

  /**
   * Creates the record of a new quote unless the customer's chat already holds `maxOpen` unpaid
   * quotes that have not expired; the count and the write are one atomic step, so quotes asked
   * for at the same time cannot together go over it.
   */
  async createQuote(order: Order, jobs: Effect[], maxOpen: number): Promise<"created" | "exists" | "limit"> {
    const res = await this.writeCapped(null, 0, order, jobs, maxOpen);
    if (res === 1) return "created";
    return res === -1 ? "limit" : "exists";
  }

  // ---- operator alert windows ----

  /** Opens the throttle window of an alert kind; false while one is open already. */
  async openAlertWindow(kind: string, seconds: number): Promise<boolean> {
    const first = await this.redis.set(this.keys.alertWindow(kind), String(this.now()), "EX", seconds, "NX");
    return first === "OK";
  }

  /** Counts a periodic deposit check that got no answer; returns how many failed in a row. */
  async noteCheckFailed(): Promise<number> {
    const replies = await this.redis
      .multi()
      .incr(this.keys.checksFailed)
      .expire(this.keys.checksFailed, 86_400)
      .exec();
    return Number(replies?.[0]?.[1] ?? 0);
  }

  /** A periodic deposit check answered: the count of failed ones starts over. */
  async noteCheckAnswered(): Promise<void> {
    await this.redis.del(this.keys.checksFailed);
  }

  // ---- jobs ----

  /**
   * Makes `member` due now if the order exists and is in one of `states`; a store that holds jobs
   * writes it leased to this process and hands it to `onHeld` to run here.
   */
  async kick(id: string, member: string, states: OrderState[]): Promise<boolean> {
    const now = this.now();
    const lease = this.holdJobsMs !== undefined ? now + this.holdJobsMs : undefined;
    const res = await this.scripts["scheduleIfState-2"](
      this.keys.order(id),
      this.keys.jobs,
      lease ?? now,
      member,
      ...states,
    );
    if (res === 1 && lease !== undefined) this.onHeld?.([{ member, lease }]);
    return res === 1;
  }

  // ---- retention (see retention.ts) ----

  /**
   * Deletes an archived order, its index entries and its `jobs` (schedule members) in one atomic
   * step, if it is still at `version` (lua/removeOrder-8.lua). False when it changed meanwhile.
   */
  async removeArchived(order: Order, version: number, jobs: readonly string[]): Promise<boolean> {
    this.recent.delete(order.id);
    const res = await this.scripts["removeOrder-8"](
      this.keys.order(order.id),
      this.keys.sent(order.id),
      this.keys.all,
      this.keys.chat(order.customer.chatId),
      // An unpaid quote is in no state index; removing it from the in-flight one is then a no-op.
      this.keys.stateIndex(order.state) ?? this.keys.inflight,
      this.keys.attention,
      this.keys.jobs,
      this.keys.open(order.customer.chatId),
      version,
      order.state,
      order.id,
      ...jobs,
    );
    return res === 1;
  }
}
