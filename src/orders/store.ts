import type { OutgoingMessage } from "../outgoing/messages.js";
import type { OutgoingQueue } from "../outgoing/queue.js";
import type { RedisClient } from "../redis/connect.js";
import type { ReplicaWait } from "../redis/replica-wait.js";
import { defineScripts } from "../redis/scripts.js";
import { type OrderKeys, orderKeys } from "./keys.js";
import { isOpenQuote, isQuoteExpired } from "./lifecycle.js";
import { JobSchedule } from "./schedule.js";
import type { Order, OrderFilter, OrderState, Page } from "./types.js";
import { planWrite } from "./write-plan.js";

/**
 * Orders in Redis (layout in keys.ts). Every write of an order goes through one Lua script
 * (lua/writeOrder.lua) that checks the version read before, then writes the record, moves it
 * between indexes and schedules its follow-up jobs, all at once. A writer that lost the race
 * sees the new version and re-decides, so two processes, a webhook racing a poll, or a double
 * tap move an order once, and the work a transition needs (pay, poll, notify, refund, alert) is
 * recorded with it: a crash cannot separate them.
 *
 * The job schedule (schedule.ts, `store.jobs`) is a zset of due times; a claimed job's score
 * becomes its lease's end, so a dead worker's jobs come back by themselves.
 */

/** A job (encoded, see jobs.ts) and when it is due, in ms. */
export interface JobSpec {
  member: string;
  dueAt: number;
  /**
   * Due at once, and run by the process that writes it: with a store that holds jobs
   * (`holdJobsMs`), the job is written already leased to the writer, which runs it without a claim
   * (`onHeld`); others take it only if the writer dies. `dueAt` applies to a store that does not.
   */
  runHere?: boolean;
}

/** A job written leased to this process: `lease` is its score, the end of the lease. */
export interface HeldJob {
  member: string;
  lease: number;
}

/** A message for the outgoing queue (the bot's own sends: final messages, alerts, card updates). */
export interface MessageSpec {
  message: OutgoingMessage;
}

/** A scheduled job (encoded) that the write takes off the schedule: its moment will not come. */
export interface JobCancel {
  cancel: string;
}

/** What a write of an order brings with it, recorded in the same atomic step. */
export type Effect = JobSpec | MessageSpec | JobCancel;

interface Stored {
  order: Order;
  version: number;
}

const SCRIPTS = ["writeOrder", "scheduleIfState-2", "removeOrder-6"] as const;

/** The order hash's field for when the final message was sent (see `markFinalNotified`). */
const NOTIFIED = "fn";

/** An order record with its `fn` field (records written before it have the time in the JSON). */
function parseOrder(json: string, fn: string | null | undefined): Order {
  const order = JSON.parse(json) as Order;
  if (fn) order.finalNotifiedAt = Number(fn);
  return order;
}

const READ_CHUNK = 500;
/** Orders whose last seen version this process keeps, to write without reading first. */
const RECENT_MAX = 2000;

export class OrderStore {
  /** The key layout, for tests and tools that inspect Redis; the store's methods are the interface. */
  readonly keys: OrderKeys;
  /** The job schedule these orders' writes add to (taking, finishing and adding jobs). */
  readonly jobs: JobSchedule;
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;
  private readonly now: () => number;
  private readonly outgoing: OutgoingQueue | undefined;
  private readonly onEffects: ((effects: Effect[]) => void) | undefined;
  private readonly replicaWait: ReplicaWait | undefined;
  private readonly holdJobsMs: number | undefined;
  private readonly onHeld: ((jobs: HeldJob[]) => void) | undefined;
  /** The spending counter this process made sure of (it exists with its lifetime). */
  private spendDayMade: string | undefined;
  /** The last version of each order this process read or wrote (newest last). */
  private readonly recent = new Map<string, Stored>();

  /**
   * `outgoing` is the queue that messages of a write go to (required for writes that carry any);
   * `onEffects` is called after every write that scheduled a job or queued a message.
   */
  constructor(
    private readonly redis: RedisClient,
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
    } = {},
  ) {
    this.keys = orderKeys(prefix);
    this.jobs = new JobSchedule(redis, this.keys.jobs);
    this.now = opts.now ?? Date.now;
    this.outgoing = opts.outgoing;
    this.onEffects = opts.onEffects;
    this.replicaWait = opts.replicaWait;
    this.holdJobsMs = opts.holdJobsMs;
    this.onHeld = opts.onHeld;
    this.scripts = defineScripts(redis, "orders", new URL("./lua/", import.meta.url), SCRIPTS);
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
    const [v, json, fn] = await this.redis.hmget(this.keys.order(id), "v", "json", NOTIFIED);
    if (!v || !json) return null;
    return this.remember({ order: parseOrder(json, fn), version: Number(v) });
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
   * Records that the order's final message went out (`finalNotifiedAt`): one field written alone,
   * outside the version (nothing decides on it but the final message itself, which it keeps from
   * going out twice; the operators' resend clears it with the version it writes).
   */
  async markFinalNotified(id: string, at: number): Promise<void> {
    const key = this.keys.order(id);
    await this.redis.hset(key, NOTIFIED, at);
    // On a replica before it counts, like the final state itself: a failover must not send it twice.
    await this.replicaWait?.after(key);
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
    const { keys, ops, held } = planWrite(this.keys, prev, next, effects, {
      now: this.now(),
      maxOpen,
      holdJobsMs: this.holdJobsMs,
      outgoing: this.outgoing,
    });
    const res = await this.scripts.writeOrder(
      keys.length,
      ...keys,
      version,
      next.state,
      JSON.stringify(next),
      ops.length / 4,
      ...ops,
    );
    if (res === 1) {
      // Remembered before anything acts on the write: a job held here starts from this copy.
      this.remember({ order: next, version: version + 1 });
      // A customer's payment, the `paid` state that `pay` is sent from, a final state and its final
      // message: each is on a replica before anything acts on it, so a failover cannot undo it.
      await this.replicaWait?.after(keys[0]!);
      if (effects.length > 0) this.onEffects?.(effects);
      if (held.length > 0) this.onHeld?.(held);
    }
    return Number(res);
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

  /** The chat's unpaid quotes that have not expired, oldest first. */
  async openQuotes(chatId: number): Promise<Order[]> {
    const now = this.now();
    const ids = await this.redis.zrangebyscore(this.keys.open(chatId), `(${now}`, "+inf");
    if (ids.length === 0) return [];
    const orders = await this.readMany(ids);
    return orders
      .filter((o) => isOpenQuote(o) && !isQuoteExpired(o, now))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Newest first, one MULTI (ZREVRANGE, ZCARD) and one pipelined read for the page. */
  async page(indexKey: string, offset: number, limit: number): Promise<Page<Order>> {
    const replies = (await this.redis
      .multi()
      .zrevrange(indexKey, offset, offset + limit - 1)
      .zcard(indexKey)
      .exec()) as [Error | null, unknown][] | null;
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error("order page read was aborted");
    const ids = replies[0]![1] as string[];
    const total = replies[1]![1] as number;
    if (ids.length === 0) return { items: [], total };
    return { items: await this.readMany(ids), total };
  }

  /** A customer's orders, newest first. */
  pageByChat(chatId: number, offset: number, limit: number): Promise<Page<Order>> {
    return this.page(this.keys.chat(chatId), offset, limit);
  }

  /** An operator list, newest first. */
  pageByFilter(filter: OrderFilter, offset: number, limit: number): Promise<Page<Order>> {
    return this.page(this.keys.filter(filter), offset, limit);
  }

  /** Orders created between `from` and `to` (ms, inclusive), read pipelined in chunks. */
  async createdBetween(from: number, to: number): Promise<Order[]> {
    const ids = await this.redis.zrangebyscore(this.keys.all, from, to);
    const orders: Order[] = [];
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      orders.push(...(await this.readMany(ids.slice(i, i + READ_CHUNK))));
    }
    return orders;
  }

  /**
   * Orders created between `from` and `to` (ms, inclusive), oldest first, `chunk` records at a
   * time: the index is paged too, so a long period never sits in memory whole. Pages continue
   * from the last creation time seen (not an offset), so orders leaving Redis meanwhile (the
   * archive sweep) cannot make the next page skip one; an order deleted between its page and its
   * read is left out.
   */
  async *createdBetweenChunks(from: number, to: number, chunk = READ_CHUNK): AsyncGenerator<Order[]> {
    let min = from;
    // Ids already given whose score is `min`: the next page starts at `min` inclusive and skips them.
    let givenAtMin = new Set<string>();
    for (;;) {
      const want = chunk + givenAtMin.size;
      const reply = await this.redis.zrangebyscore(this.keys.all, min, to, "WITHSCORES", "LIMIT", 0, want);
      const page: [string, number][] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) {
        const id = reply[i]!;
        const score = Number(reply[i + 1]);
        if (score === min && givenAtMin.has(id)) continue;
        page.push([id, score]);
      }
      if (page.length > 0) {
        const orders = await this.readMany(page.map(([id]) => id));
        if (orders.length > 0) yield orders;
      }
      if (reply.length / 2 < want || page.length === 0) return;
      const last = page[page.length - 1]![1];
      const atLast = page.filter(([, score]) => score === last).map(([id]) => id);
      givenAtMin = last === min ? new Set([...givenAtMin, ...atLast]) : new Set(atLast);
      min = last;
    }
  }

  /** Ids of orders starting with `prefix` (lower-case hex), at most `max` of them. */
  async idsByPrefix(prefix: string, max: number): Promise<string[]> {
    const found = new Set<string>();
    let cursor = "0";
    do {
      const [next, members] = await this.redis.zscan(
        this.keys.all,
        cursor,
        "MATCH",
        `${prefix}*`,
        "COUNT",
        1000,
      );
      cursor = next;
      // ZSCAN returns member, score pairs.
      for (let i = 0; i < members.length; i += 2) found.add(members[i] as string);
      if (found.size >= max) break;
    } while (cursor !== "0");
    return [...found].slice(0, max);
  }

  /** The records of `ids` in one pipeline; missing ones and unreadable replies are left out. */
  private async readMany(ids: string[]): Promise<Order[]> {
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(this.keys.order(id), "json", NOTIFIED);
    const rows = (await pipe.exec()) ?? [];
    const orders: Order[] = [];
    for (const [err, row] of rows) {
      const [json, fn] = (row ?? []) as (string | null)[];
      if (!err && typeof json === "string") orders.push(parseOrder(json, fn));
    }
    return orders;
  }

  /**
   * Brings the indexes of an earlier layout up to date: orders paid or pending used to have one
   * index per state (draft and quoted too); they are now in `idx:inflight`, and unpaid quotes in
   * none. Idempotent, one MULTI; run at start-up.
   */
  async migrateIndexes(): Promise<void> {
    const old = (s: string) => `${this.keys.prefix}idx:state:${s}`;
    const replies = await this.redis
      .multi()
      .zunionstore(this.keys.inflight, 3, this.keys.inflight, old("paid"), old("pending"), "AGGREGATE", "MIN")
      .del(old("draft"), old("quoted"), old("paid"), old("pending"))
      .exec();
    const failed = replies?.find(([err]) => err)?.[0];
    if (failed) throw failed;
  }

  // ---- operator alert windows ----

  /** Opens the throttle window of an alert kind; false while one is open already. */
  async openAlertWindow(kind: string, seconds: number): Promise<boolean> {
    const first = await this.redis.set(this.keys.alertWindow(kind), String(this.now()), "EX", seconds, "NX");
    return first === "OK";
  }

  // ---- deposit spending per day ----

  /** Adds `kopecks` to the deposit spent on `day` (UTC, `YYYY-MM-DD`); the counter expires after `ttlSeconds`. */
  async addSpending(day: string, kopecks: number, ttlSeconds: number): Promise<void> {
    const key = this.keys.spendDay(day);
    if (this.spendDayMade === key) {
      await this.redis.incrby(key, kopecks);
      return;
    }
    // The day's first charge in this process makes sure the counter has its lifetime (SET NX EX
    // leaves one made by another process alone); later ones only add.
    const rows = await this.redis.pipeline().set(key, 0, "EX", ttlSeconds, "NX").incrby(key, kopecks).exec();
    for (const [err] of rows ?? []) if (err) throw err;
    this.spendDayMade = key;
  }

  /** The deposit spent on each of `days` (UTC, `YYYY-MM-DD`), kopecks; 0 for a day without a counter. */
  async spendingOf(days: readonly string[]): Promise<number[]> {
    const pipe = this.redis.pipeline();
    for (const day of days) pipe.get(this.keys.spendDay(day));
    const rows = (await pipe.exec()) ?? [];
    return days.map((_, i) => {
      const [err, value] = rows[i] ?? [null, null];
      if (err) throw err;
      const n = Number(value ?? 0);
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    });
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
   * Orders in `state` created before `before` (ms), oldest first from the `offset`-th, with their
   * versions: the candidates of the archive sweep (an order changes after it is created, never
   * before, so nothing older than the retention is missed).
   */
  async createdBefore(state: OrderState, before: number, offset: number, count: number): Promise<Stored[]> {
    const index = this.keys.stateIndex(state);
    if (!index) return [];
    const ids = await this.redis.zrangebyscore(index, "-inf", `(${before}`, "LIMIT", offset, count);
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(this.keys.order(id), "v", "json", NOTIFIED);
    const found: Stored[] = [];
    for (const [err, row] of (await pipe.exec()) ?? []) {
      const [v, json, fn] = (row ?? []) as (string | null)[];
      if (!err && v && json) found.push({ order: parseOrder(json, fn), version: Number(v) });
    }
    return found;
  }

  /**
   * Deletes an archived order, its index entries and its `jobs` (schedule members) in one atomic
   * step, if it is still at `version` (lua/removeOrder-6.lua). False when it changed meanwhile.
   */
  async removeArchived(order: Order, version: number, jobs: readonly string[]): Promise<boolean> {
    this.recent.delete(order.id);
    const res = await this.scripts["removeOrder-6"](
      this.keys.order(order.id),
      this.keys.all,
      this.keys.chat(order.customer.chatId),
      // An unpaid quote is in no state index; removing it from the in-flight one is then a no-op.
      this.keys.stateIndex(order.state) ?? this.keys.inflight,
      this.keys.attention,
      this.keys.jobs,
      version,
      order.state,
      order.id,
      ...jobs,
    );
    return res === 1;
  }
}
