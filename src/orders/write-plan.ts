import type { LeaseTerms, OutgoingQueue, TakenMessage } from "../outgoing/queue.js";
import type { Effect, HeldJob, MessageSpec } from "./effects.js";
import type { OrderKeys } from "./keys.js";
import { isOpenQuote, needsAttention } from "./lifecycle.js";
import type { Order } from "./types.js";

/**
 * What one write of an order changes besides its record, as lua/writeOrder.lua takes it: the keys
 * it touches (the record first) and the index and schedule operations, four values each (op, key
 * index, score, member). Pure: the store sends the plan in one script call.
 *
 * The indexes an order is in (keys.ts): `idx:all` and its chat's from creation, its state's index
 * (in flight, or its final state's), its chat's `idx:open` while it is an unpaid quote (scored by
 * expiry; a paid one until the chat's next quote), `idx:attention` while it needs the operators. The write's effects add jobs (already
 * leased to this process when `runHere` and `holdJobsMs` are given), take jobs off, and queue
 * messages for the outgoing queue (a message already waiting keeps its place). Given `lease`
 * terms, a write's one or two messages into one customer's chat (an order's final message and
 * card) are taken by the write itself when the queue is empty, as the dispatcher's take would
 * take them (see lua/writeOrder.lua), and queued otherwise.
 */
export interface WritePlan {
  keys: string[];
  ops: (string | number)[];
  /** Jobs written leased to this process, for it to run (store.ts `onHeld`). */
  held: HeldJob[];
}

export function planWrite(
  orderKeys: OrderKeys,
  prev: Order | null,
  next: Order,
  effects: readonly Effect[],
  opts: {
    now: number;
    /** Refuse the write when the chat already holds this many unexpired unpaid quotes. */
    maxOpen?: number;
    holdJobsMs?: number;
    outgoing?: Pick<OutgoingQueue, "spec">;
    lease?: LeaseTerms;
    /** This process's clock (ms), for a take on a quiet queue (lua/writeOrder.lua `QUIET_MS`). */
    clock?: number;
  },
): WritePlan {
  const keys: string[] = [orderKeys.order(next.id)];
  const keyIndex = (k: string) => {
    const i = keys.indexOf(k);
    if (i >= 0) return i + 1;
    keys.push(k);
    return keys.length;
  };
  const ops: (string | number)[] = [];
  const add = (k: string, score: number, member: string, op = "add") =>
    ops.push(op, keyIndex(k), score, member);
  const rem = (k: string, member: string) => ops.push("rem", keyIndex(k), 0, member);
  const held: HeldJob[] = [];

  if (!prev) {
    add(orderKeys.all, next.createdAt, next.id);
    add(orderKeys.chat(next.customer.chatId), next.createdAt, next.id);
  }
  const prevIndex = prev ? orderKeys.stateIndex(prev.state) : undefined;
  const nextIndex = orderKeys.stateIndex(next.state);
  if (prevIndex !== nextIndex) {
    if (prevIndex) rem(prevIndex, next.id);
    if (nextIndex) add(nextIndex, next.createdAt, next.id);
  }
  // The chat's unpaid quotes, scored by expiry: what MAX_OPEN_QUOTES counts.
  const openKey = orderKeys.open(next.customer.chatId);
  if (opts.maxOpen !== undefined) ops.push("cap", keyIndex(openKey), opts.now, opts.maxOpen);
  const wasOpen = prev !== null && isOpenQuote(prev);
  if (isOpenQuote(next) && (!wasOpen || prev.expiresAt !== next.expiresAt)) {
    add(openKey, next.expiresAt ?? next.createdAt, next.id);
  } else if (wasOpen && !isOpenQuote(next) && next.state !== "paid") {
    // A payment leaves the entry: the chat's next quote checks the cap, reads the state of the
    // entries it would count and takes out those paid (lua/writeOrder.lua), so the payment, on
    // every order's way, is one command shorter, and most customers' next quote finds it expired.
    rem(openKey, next.id);
  }
  // The final message's time is a key of its own (store.ts `markFinalNotified`): cleared with the
  // record when the operators send the final message again.
  if (prev?.finalNotifiedAt !== undefined && next.finalNotifiedAt === undefined) {
    ops.push("del", keyIndex(orderKeys.sent(next.id)), 0, "");
  }
  const wasAttention = prev ? needsAttention(prev) : false;
  const isAttention = needsAttention(next);
  if (isAttention && !wasAttention) add(orderKeys.attention, next.createdAt, next.id);
  if (!isAttention && wasAttention) rem(orderKeys.attention, next.id);
  // Messages go last, side by side: the script sends a run of them to one queue as one ZADD.
  const messages: MessageSpec[] = [];
  for (const effect of effects) {
    if ("cancel" in effect) {
      rem(orderKeys.jobs, effect.cancel);
      continue;
    }
    if ("stands" in effect) continue;
    if ("member" in effect) {
      if (effect.runHere && opts.holdJobsMs !== undefined) {
        const lease = opts.now + Math.min(opts.holdJobsMs, effect.holdMs ?? opts.holdJobsMs);
        held.push({ member: effect.member, lease });
        add(orderKeys.jobs, lease, effect.member);
      } else {
        add(orderKeys.jobs, effect.dueAt, effect.member);
      }
      continue;
    }
    messages.push(effect);
  }
  const outgoing = opts.outgoing;
  if (messages.length > 0 && !outgoing) throw new Error("this order store has no outgoing queue");
  const specs = outgoing
    ? messages.map((m) => outgoing.spec(m.message)).sort((a, b) => a.score - b.score)
    : [];
  if (opts.lease && mayTakeItself(specs.map((s) => s.member))) {
    const { leases, chats, leaseMs, globalMs, chatMs, horizonMs } = opts.lease;
    const clock = opts.clock === undefined ? "" : `:${Math.floor(opts.clock)}`;
    ops.push(
      "pace",
      keyIndex(leases),
      keyIndex(chats),
      `${leaseMs}:${globalMs}:${chatMs}:${horizonMs}${clock}`,
    );
    for (const spec of specs) add(spec.key, spec.score, spec.member, "lease");
  } else {
    for (const spec of specs) add(spec.key, spec.score, spec.member, "addnx");
  }
  return { keys, ops, held };
}

/**
 * Whether a write's messages are few enough for the write to take them itself: one or two into
 * one customer's chat (a take reserves at most one message of a chat apart from the pace).
 * Messages encode their chat after their kind (`final:<chat>:…`, outgoing/messages.ts).
 */
function mayTakeItself(members: readonly string[]): boolean {
  if (members.length === 0 || members.length > 2) return false;
  const chat = members[0]!.split(":")[1];
  return chat !== undefined && chat !== "ops" && members.every((m) => m.split(":")[1] === chat);
}

/** The messages a write took, from its reply { 1, message, wait, lease end, apart, … }. */
export function takenOf(reply: unknown[]): TakenMessage[] {
  const taken: TakenMessage[] = [];
  for (let i = 1; i + 3 < reply.length; i += 4) {
    taken.push({
      member: String(reply[i]),
      waitMs: Number(reply[i + 1]),
      leaseEnd: Number(reply[i + 2]),
      ...(Number(reply[i + 3]) === 1 ? { apart: true } : {}),
    });
  }
  return taken;
}
