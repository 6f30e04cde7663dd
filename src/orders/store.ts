import type { Redis } from "ioredis";
import type { Order, OrderFilter, OrderState, Page } from "./types.js";

/**
 * Redis layout (every key under the configured prefix P):
 *
 *   P order:<id>         hash { v: version, state, json: the whole Order }
 *   P idx:all            zset createdAt → id (operators, newest first)
 *   P idx:chat:<chatId>  zset createdAt → id (a customer's /orders)
 *   P idx:state:<state>  zset createdAt → id (tracking, filters)
 *   P idx:attention      zset createdAt → id (rejected, stuck or refund needed)
 *   P jobs               zset dueAt(ms) → "<type>:<id>[:<arg>]" (follow-up work, see jobs below)
 *
 * Every write of an order goes through one Lua script that checks the version read before,
 * then writes the record, moves it between indexes and schedules its follow-up jobs, all at
 * once. A writer that lost the race sees the new version and re-decides, so two processes,
 * a webhook racing a poll, or a double tap move an order once, and the work a transition
 * needs (pay, poll, notify, refund, alert) is recorded with it: a crash cannot separate them.
 */

const CAS_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '0' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(ARGV[1]) + 1), 'state', ARGV[2], 'json', ARGV[3])
local n = tonumber(ARGV[4])
local i = 5
for _ = 1, n do
  local op, k, score, member = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  if op == 'add' then
    redis.call('ZADD', KEYS[k], score, member)
  elseif op == 'rem' then
    redis.call('ZREM', KEYS[k], member)
  end
  i = i + 4
end
return 1
`;

/** Claims due jobs: bumps their score to now + lease so no other worker takes them meanwhile. */
const CLAIM_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], m)
end
return due
`;

/** Finishes a claimed job: removes it, or reschedules it, unless someone re-scheduled it since the claim. */
const FINISH_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
`;

/** Extends a claimed job's lease, unless it was rescheduled or taken over since. */
const RENEW_SCRIPT = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

/** Schedules a job only while the order is in one of the given states. */
const KICK_SCRIPT = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 0 end
for i = 3, #ARGV do
  if ARGV[i] == state then
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
    return 1
  end
end
return 0
`;

export interface JobSpec {
  /** e.g. "submit:<id>" */
  member: string;
  dueAt: number;
}

export type WriteResult = { ok: true; order: Order } | { ok: false };

interface Stored {
  order: Order;
  version: number;
}

export class OrderStore {
  private readonly casSha: Promise<string>;
  private readonly claimSha: Promise<string>;
  private readonly finishSha: Promise<string>;
  private readonly kickSha: Promise<string>;
  private readonly renewSha: Promise<string>;

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
  ) {
    this.casSha = this.load(CAS_SCRIPT);
    this.claimSha = this.load(CLAIM_SCRIPT);
    this.finishSha = this.load(FINISH_SCRIPT);
    this.kickSha = this.load(KICK_SCRIPT);
    this.renewSha = this.load(RENEW_SCRIPT);
    // Avoid unhandled rejections while Redis is down at construction; the call sites reload.
    for (const p of [this.casSha, this.claimSha, this.finishSha, this.kickSha, this.renewSha])
      p.catch(() => {});
  }

  private load(script: string): Promise<string> {
    return this.redis.script("LOAD", script) as Promise<string>;
  }

  /** EVALSHA, falling back to EVAL when the script cache was lost (Redis restarted). */
  private async run(
    shaP: Promise<string>,
    script: string,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> {
    let sha: string | undefined;
    try {
      sha = await shaP;
    } catch {
      sha = undefined;
    }
    if (sha) {
      try {
        return await this.redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!String(err).includes("NOSCRIPT")) throw err;
      }
    }
    return this.redis.eval(script, keys.length, ...keys, ...args);
  }

  key(...parts: (string | number)[]): string {
    return this.prefix + parts.join(":");
  }

  orderKey(id: string): string {
    return this.key("order", id);
  }

  get jobsKey(): string {
    return this.key("jobs");
  }

  async read(id: string): Promise<Stored | null> {
    const [v, json] = await this.redis.hmget(this.orderKey(id), "v", "json");
    if (!v || !json) return null;
    return { order: JSON.parse(json) as Order, version: Number(v) };
  }

  async get(id: string): Promise<Order | null> {
    return (await this.read(id))?.order ?? null;
  }

  /**
   * Writes `next` if the order is still at `version` (0 = must not exist yet), moving it between
   * indexes and scheduling `jobs` in the same atomic step.
   */
  async write(prev: Order | null, version: number, next: Order, jobs: JobSpec[]): Promise<boolean> {
    const keys: string[] = [this.orderKey(next.id)];
    const keyIndex = (k: string) => {
      const i = keys.indexOf(k);
      if (i >= 0) return i + 1;
      keys.push(k);
      return keys.length;
    };
    const ops: (string | number)[] = [];
    const add = (k: string, score: number, member: string) => ops.push("add", keyIndex(k), score, member);
    const rem = (k: string, member: string) => ops.push("rem", keyIndex(k), 0, member);

    if (!prev) {
      add(this.key("idx", "all"), next.createdAt, next.id);
      add(this.key("idx", "chat", next.customer.chatId), next.createdAt, next.id);
    }
    if (prev?.state !== next.state) {
      if (prev) rem(this.key("idx", "state", prev.state), next.id);
      add(this.key("idx", "state", next.state), next.createdAt, next.id);
    }
    const wasAttention = prev ? needsAttention(prev) : false;
    const isAttention = needsAttention(next);
    if (isAttention && !wasAttention) add(this.key("idx", "attention"), next.createdAt, next.id);
    if (!isAttention && wasAttention) rem(this.key("idx", "attention"), next.id);
    for (const job of jobs) add(this.jobsKey, job.dueAt, job.member);

    const res = await this.run(this.casSha, CAS_SCRIPT, keys, [
      version,
      next.state,
      JSON.stringify(next),
      ops.length / 4,
      ...ops,
    ]);
    return res === 1;
  }

  /**
   * Read-decide-write with optimistic concurrency: `decide` sees the current order and returns
   * the next one and its jobs, or null for "nothing to do". Retries when another writer got in first.
   * Returns the written order (won), or the current one with `won: false`.
   */
  async update(
    id: string,
    decide: (order: Order) => { next: Order; jobs?: JobSpec[] } | null,
  ): Promise<{ won: boolean; order: Order | null }> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const stored = await this.read(id);
      if (!stored) return { won: false, order: null };
      const decision = decide(stored.order);
      if (!decision) return { won: false, order: stored.order };
      const next = { ...decision.next, updatedAt: Date.now() };
      if (await this.write(stored.order, stored.version, next, decision.jobs ?? [])) {
        return { won: true, order: next };
      }
    }
    throw new Error(`order ${id}: too much write contention`);
  }

  /** Creates the order record; false when one with that id exists already. */
  async create(order: Order, jobs: JobSpec[]): Promise<boolean> {
    return this.write(null, 0, order, jobs);
  }

  /** Newest first, one ZREVRANGE and one pipelined read for the page. */
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
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hget(this.orderKey(id), "json");
    const rows = (await pipe.exec()) ?? [];
    const items = rows.map(([, json]) => (typeof json === "string" ? (JSON.parse(json) as Order) : null));
    return { items: items.filter((o): o is Order => o !== null), total };
  }

  chatIndex(chatId: number): string {
    return this.key("idx", "chat", chatId);
  }

  filterIndex(filter: OrderFilter): string {
    if (filter === "all") return this.key("idx", "all");
    if (filter === "attention") return this.key("idx", "attention");
    return this.key("idx", "state", filter);
  }

  stateIndex(state: OrderState): string {
    return this.key("idx", "state", state);
  }

  // ---- jobs ----

  /** Takes up to `limit` due jobs for `leaseMs`; returns them with the lease score needed to finish them. */
  async claim(now: number, limit: number, leaseMs: number): Promise<{ member: string; lease: number }[]> {
    const lease = now + leaseMs;
    const members = (await this.run(
      this.claimSha,
      CLAIM_SCRIPT,
      [this.jobsKey],
      [now, limit, lease],
    )) as string[];
    return members.map((member) => ({ member, lease }));
  }

  /** Removes a claimed job (rescheduleAt undefined) or moves it to a later time; no-op if it was rescheduled meanwhile. */
  async finish(member: string, lease: number, rescheduleAt?: number): Promise<boolean> {
    const res = await this.run(
      this.finishSha,
      FINISH_SCRIPT,
      [this.jobsKey],
      [member, lease, rescheduleAt === undefined ? "" : rescheduleAt],
    );
    return res === 1;
  }

  /** Moves a running job's lease from `lease` to `newLease`; false when it is no longer ours to extend. */
  async renew(member: string, lease: number, newLease: number): Promise<boolean> {
    const res = await this.run(this.renewSha, RENEW_SCRIPT, [this.jobsKey], [member, lease, newLease]);
    return res === 1;
  }

  /** Schedules a job unconditionally (ZADD). */
  async schedule(member: string, dueAt: number): Promise<void> {
    await this.redis.zadd(this.jobsKey, dueAt, member);
  }

  /** Schedules `member` now if the order exists and is in one of `states`. */
  async kick(id: string, member: string, states: OrderState[], dueAt = Date.now()): Promise<boolean> {
    const res = await this.run(
      this.kickSha,
      KICK_SCRIPT,
      [this.orderKey(id), this.jobsKey],
      [dueAt, member, ...states],
    );
    return res === 1;
  }

  async pendingJobs(): Promise<number> {
    return this.redis.zcard(this.jobsKey);
  }
}

/** Operators' "needs attention": rejected, stuck, or a refund still owed. */
export function needsAttention(order: Order): boolean {
  return order.state === "rejected" || order.stuck || order.refund === "needed";
}
