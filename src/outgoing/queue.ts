import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import { encodeMessage, type OutgoingMessage, PRIORITY, queueScore } from "./messages.js";

/**
 * The outgoing queue in Redis, shared by every process (layout under the prefix P):
 *
 *   P out:queue   zset priority * 1e13 + queued at (ms) → message (messages.ts)
 *   P out:leases  zset lease end (ms) → message taken, not yet acknowledged
 *   P out:chats   zset next free send time (ms) → chat, and `*` → the next free global send slot
 *
 * A message is queued once: queueing it again while it waits keeps its place (ZADD NX), and
 * since the sender renders it from the current state when its turn comes, a card that changed
 * twice meanwhile is sent once, showing the latest state. Taking a message reserves its send
 * time (lua/takeOutgoing-3.lua; one call takes a batch), so waiting costs no Redis command; a taken message that is
 * not acknowledged within its lease (its process died) is offered again.
 */
export interface OutgoingPace {
  /** Sends per second for the whole bot. */
  globalPerSecond: number;
  /** Sends per second into one chat. */
  chatPerSecond: number;
  /**
   * Milliseconds between two alerts (the `ops` chat); by default a chat's interval. Alerts into
   * one operators' group go slower: Telegram takes about 20 messages a minute into a group.
   */
  operatorsIntervalMs?: number;
}

/** Alerts into an operators' group: about 20 a minute. */
export const GROUP_CHAT_INTERVAL_MS = 3000;

/** Telegram's limits: about 30/s overall, about 1/s per chat. */
export const DEFAULT_PACE: OutgoingPace = { globalPerSecond: 30, chatPerSecond: 1 };

export interface OutgoingKeys {
  queue: string;
  leases: string;
  chats: string;
}

export function outgoingKeys(prefix: string): OutgoingKeys {
  return {
    queue: `${prefix}out:queue`,
    leases: `${prefix}out:leases`,
    chats: `${prefix}out:chats`,
  };
}

/** A message to add to the queue atomically with another write (an order's transition). */
export interface QueuedSpec {
  key: string;
  score: number;
  member: string;
}

/** A message taken, the ms until its slot, and its lease's end (ms, Redis clock: the holder's token for `renew`). */
export interface TakenMessage {
  member: string;
  waitMs: number;
  leaseEnd: number;
  /**
   * Reserved at its chat's next free time, not at the global pace (a quiet queue's message that
   * waited for its chat): messages taken after it may have earlier slots.
   */
  apart?: boolean;
}

/** Messages taken with their reserved send times, and when to take again. */
export interface TakeResult {
  taken: TakenMessage[];
  /** Ms after which to take again; -1 when nothing else is waiting (wait to be told of new messages). */
  wakeMs: number;
}

/**
 * The terms on which a write that queues an order's messages may take them itself when the queue
 * is empty (src/orders/lua/writeOrder.lua): the keys, the lease, the pace and the horizon, as a
 * take of this process's dispatcher would use them.
 */
export interface LeaseTerms {
  leases: string;
  chats: string;
  leaseMs: number;
  globalMs: number;
  /** A chat's interval with the sender's slack, as the take reserves it. */
  chatMs: number;
  horizonMs: number;
}

const SCRIPTS = ["takeOutgoing-3", "renewLease-1"] as const;
/** Queue entries one take looks at before it gives up on finding a free chat. */
const SCAN = 64;

export class OutgoingQueue {
  readonly keys: OutgoingKeys;
  readonly pace: OutgoingPace;
  /** The pace as the slots keep it: ms between two sends overall, into a chat, into `ops`. */
  readonly intervals: { globalMs: number; chatMs: number; opsMs: number };
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    opts: { pace?: Partial<OutgoingPace>; now?: () => number } = {},
  ) {
    this.keys = outgoingKeys(prefix);
    this.pace = { ...DEFAULT_PACE, ...opts.pace };
    const chatMs = Math.ceil(1000 / this.pace.chatPerSecond);
    this.intervals = {
      globalMs: Math.ceil(1000 / this.pace.globalPerSecond),
      chatMs,
      opsMs: this.pace.operatorsIntervalMs ?? chatMs,
    };
    this.now = opts.now ?? Date.now;
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  private readonly now: () => number;

  /** The spec of `message` for a write that queues it together with other changes. */
  spec(message: OutgoingMessage): QueuedSpec {
    return { key: this.keys.queue, score: queueScore(message, this.now()), member: encodeMessage(message) };
  }

  /** Queues a message on its own; one already waiting keeps its place. */
  async enqueue(message: OutgoingMessage): Promise<void> {
    const { score, member } = this.spec(message);
    await this.redis.zadd(this.keys.queue, "NX", score, member);
  }

  /**
   * Takes up to `max` messages that may go within `horizonMs` and reserves their slots; `leaseMs`
   * is how long each may stay unacknowledged. `chatSlackMs` lengthens the gap between two slots of
   * one chat: a sender that may start a message up to that long after its slot still keeps the
   * chat's interval.
   */
  async take(opts: {
    leaseMs: number;
    horizonMs: number;
    housekeeping: boolean;
    max: number;
    chatSlackMs?: number;
  }): Promise<TakeResult> {
    const slack = opts.chatSlackMs ?? 0;
    const reply = (await this.scripts["takeOutgoing-3"](
      this.keys.queue,
      this.keys.leases,
      this.keys.chats,
      opts.leaseMs,
      this.intervals.globalMs,
      this.intervals.chatMs + slack,
      SCAN,
      opts.horizonMs,
      opts.housekeeping ? "1" : "0",
      Math.max(1, opts.max),
      this.intervals.opsMs + slack,
    )) as (string | number)[];
    const count = Number(reply[0]);
    const taken: TakeResult["taken"] = [];
    for (let i = 0; i < count; i++) {
      taken.push({
        member: String(reply[3 + 3 * i]),
        waitMs: Number(reply[4 + 3 * i]),
        leaseEnd: Number(reply[5 + 3 * i]),
        ...(Number(reply[2]) === i + 1 ? { apart: true } : {}),
      });
    }
    return { taken, wakeMs: Number(reply[1]) };
  }

  /** The terms a write may take its own messages on, for a dispatcher taking with these options. */
  leaseTerms(opts: { leaseMs: number; horizonMs: number; chatSlackMs: number }): LeaseTerms {
    return {
      leases: this.keys.leases,
      chats: this.keys.chats,
      leaseMs: opts.leaseMs,
      globalMs: this.intervals.globalMs,
      chatMs: this.intervals.chatMs + opts.chatSlackMs,
      horizonMs: opts.horizonMs,
    };
  }

  /**
   * An idle dispatcher's look: whether any message waits in the queue (one ZRANGE), and with
   * `leases`, whether a taken message's lease has ended (its holder died), from the earliest
   * lease's end (one more ZRANGE in the same round trip). Either calls for a take; neither, none.
   */
  async idleLook(leases: boolean): Promise<{ waiting: boolean; leaseEnded: boolean }> {
    if (!leases)
      return { waiting: (await this.redis.zrange(this.keys.queue, 0, 0)).length > 0, leaseEnded: false };
    const replies = await this.redis
      .pipeline()
      .zrange(this.keys.queue, 0, 0)
      .zrange(this.keys.leases, 0, 0, "WITHSCORES")
      .exec();
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error("idle look at the outgoing queue was aborted");
    const waiting = (replies[0]![1] as string[]).length > 0;
    const earliest = replies[1]![1] as string[];
    // Lease ends are on Redis's clock, compared here on this process's: a skew only moves the
    // moment the take that offers the message again is made.
    return { waiting, leaseEnded: earliest.length === 2 && Number(earliest[1]) <= this.now() };
  }

  /** The messages were sent (or will never be): they leave the queue for good, in one ZREM. */
  async ack(members: readonly string[]): Promise<void> {
    if (members.length === 0) return;
    await this.redis.zrem(this.keys.leases, ...members);
  }

  /**
   * Extends the lease of a message being sent to `leaseMs` from now, unless it is no longer this
   * holder's (`leaseEnd` is what the take or the last renewal gave). Returns the new lease end, or
   * 0 when the lease was lost: the message was offered again and may be another process's now.
   */
  async renew(member: string, leaseEnd: number, leaseMs: number): Promise<number> {
    return Number(await this.scripts["renewLease-1"](this.keys.leases, member, leaseEnd, leaseMs));
  }

  /** The message could not be sent now: offered again, behind those of its priority already waiting. */
  async release(member: string): Promise<void> {
    const kind = member.slice(0, member.indexOf(":")) as keyof typeof PRIORITY;
    const score = (PRIORITY[kind] ?? PRIORITY.bcast) * 1e13 + this.now();
    await this.redis.multi().zrem(this.keys.leases, member).zadd(this.keys.queue, "NX", score, member).exec();
  }

  /** Messages waiting or in flight, for metrics. */
  async depth(): Promise<number> {
    const [waiting, taken] = await Promise.all([
      this.redis.zcard(this.keys.queue),
      this.redis.zcard(this.keys.leases),
    ]);
    return waiting + taken;
  }
}
