import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { OutgoingDispatcher, SEND_GROUP } from "../../src/outgoing/dispatcher.js";
import { encodeMessage, type OutgoingMessage } from "../../src/outgoing/messages.js";
import { OutgoingQueue } from "../../src/outgoing/queue.js";
import { commandsProcessed, testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});

const final = (chatId: number, orderId = `o${chatId}`): OutgoingMessage => ({
  kind: "final",
  chatId,
  orderId,
});
const card = (chatId: number, orderId = `o${chatId}`): OutgoingMessage => ({ kind: "card", chatId, orderId });
const take = (q: OutgoingQueue, max = 64, horizonMs = 60_000) =>
  q.take({ leaseMs: 30_000, horizonMs, housekeeping: false, max });

/** Runs a dispatcher over `queue` until `count` messages were delivered; returns them in order. */
async function drain(queue: OutgoingQueue, count: number, deliver?: (m: string) => Promise<void>) {
  const sent: string[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((r) => {
    done = r;
  });
  const dispatcher = new OutgoingDispatcher({
    queue,
    log: logger,
    idleMs: 50,
    async deliver(member) {
      await deliver?.(member);
      sent.push(member);
      if (sent.length >= count) done();
    },
  });
  dispatcher.start();
  await all;
  await dispatcher.stop(1000);
  return sent;
}

/**
 * Send times by tick of the dispatcher's grid; each must be on it (a timer fires a ms early or a
 * few late, never mid-tick).
 */
function byTick(times: number[], tickMs: number): Map<number, number> {
  const groups = new Map<number, number>();
  for (const t of times) {
    const tick = Math.round(t / tickMs);
    expect(Math.abs(t - tick * tickMs)).toBeLessThan(25);
    groups.set(tick, (groups.get(tick) ?? 0) + 1);
  }
  return groups;
}

describe("the outgoing queue", () => {
  it("sends final messages before card updates that were queued earlier", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    for (let chat = 1; chat <= 5; chat++) await q.enqueue(card(chat));
    for (let chat = 6; chat <= 10; chat++) await q.enqueue(final(chat));
    const sent = await drain(q, 10);
    expect(sent.slice(0, 5).every((m) => m.startsWith("final:"))).toBe(true);
    expect(sent.slice(5).every((m) => m.startsWith("card:"))).toBe(true);
    // First come, first served within a priority.
    expect(sent.slice(0, 5)).toEqual([6, 7, 8, 9, 10].map((c) => encodeMessage(final(c))));
  });

  it("keeps one entry for a card updated again before its turn, so only its latest state is sent", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    let state = "paid";
    await q.enqueue(card(1));
    state = "pending";
    await q.enqueue(card(1));
    state = "delivered";
    await q.enqueue(card(1));
    const shown: string[] = [];
    await drain(q, 1, async () => {
      shown.push(state);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(shown).toEqual(["delivered"]);
    expect(await q.depth()).toBe(0);
  });

  it("reserves send slots a pace apart: overall, and a chat's interval apart within one chat", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 10, chatPerSecond: 0.5 },
    });
    await q.enqueue(final(1));
    await q.enqueue(card(1));
    await q.enqueue(final(2));
    await q.enqueue(final(1, "o1b"));
    const first = await take(q, 64, 1000);
    // Both finals of chats 1 and 2 are taken at the overall pace. Chat 1's second final waits for
    // its chat's next turn, two seconds on: the queue holds nothing else that may go, so that
    // moment is reserved now (apart), ahead of chat 1's card (final messages first).
    expect(first.taken.map((t) => t.member)).toEqual([
      encodeMessage(final(1)),
      encodeMessage(final(2)),
      encodeMessage(final(1, "o1b")),
    ]);
    const [a, b, c] = first.taken;
    // final(2) gets the next overall slot, 100 ms on.
    expect(b!.waitMs - a!.waitMs).toBeGreaterThanOrEqual(90);
    expect(c!.apart).toBe(true);
    expect(a!.apart ?? b!.apart).toBeUndefined();
    expect(c!.waitMs - a!.waitMs).toBeGreaterThanOrEqual(2000 - 5);
    // One message a take goes apart: the card waits for chat 1's turn after that, and the reply
    // says to look again then.
    expect(first.wakeMs).toBeGreaterThanOrEqual(3500);
    const second = await take(q, 64, 1000);
    expect(second.taken).toEqual([]);
    expect(second.wakeMs).toBeGreaterThanOrEqual(3500);
  });

  it("reserves a lone order's card a chat interval after its final message in the same take, and sends it then", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 1 },
    });
    await q.enqueue(final(1));
    await q.enqueue(card(1));
    const before = await commandsProcessed(redis);
    const one = await q.take({
      leaseMs: 30_000,
      horizonMs: 1000,
      housekeeping: false,
      max: 64,
      chatSlackMs: 204,
    });
    const after = await commandsProcessed(redis);
    expect(one.taken.map((t) => t.member)).toEqual([encodeMessage(final(1)), encodeMessage(card(1))]);
    expect(one.taken[1]!.waitMs - one.taken[0]!.waitMs).toBeGreaterThanOrEqual(1204 - 5);
    // One script call (seven commands inside it, then INFO), where the card took a second take
    // of its own before; nothing else waits, so no look again until something is queued.
    expect(after - before).toBe(8);
    expect(one.wakeMs).toBe(-1);
  });

  it("does not hold back a message taken after one reserved apart whose slot comes later", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 1 },
    });
    await q.enqueue(final(1));
    await q.enqueue(card(1));
    const at = new Map<string, number>();
    await drain(q, 3, async (member) => {
      at.set(member, Date.now());
      // Another customer's final message, queued once chat 1's card is reserved a second ahead.
      if (member === encodeMessage(final(1))) await q.enqueue(final(2));
    });
    const f1 = at.get(encodeMessage(final(1)))!;
    const f2 = at.get(encodeMessage(final(2)))!;
    const c1 = at.get(encodeMessage(card(1)))!;
    expect(f2 - f1).toBeLessThan(700);
    expect(c1 - f1).toBeGreaterThanOrEqual(1000 - 2);
    expect(f2).toBeLessThan(c1);
  });

  it("paces alerts into an operators' group at the group's interval, other chats at theirs", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 10, chatPerSecond: 1, operatorsIntervalMs: 3000 },
    });
    const alert = (orderId: string): OutgoingMessage => ({ kind: "alert", alert: "stuck", orderId });
    await q.enqueue(alert("a1"));
    await q.enqueue(alert("a2"));
    const first = await take(q);
    expect(first.taken.map((t) => t.member)).toEqual([encodeMessage(alert("a1"))]);
    // The next alert waits for the group's three seconds.
    expect(first.wakeMs).toBeGreaterThanOrEqual(2500);

    // A customer's chat keeps its second.
    await q.enqueue(final(1));
    await q.enqueue(final(1, "o1b"));
    const customer = await take(q);
    expect(customer.taken.map((t) => t.member)).toEqual([
      encodeMessage(final(1)),
      encodeMessage(final(1, "o1b")),
    ]);
    expect(customer.taken[1]!.waitMs - customer.taken[0]!.waitMs).toBeGreaterThanOrEqual(1000 - 5);
  });

  it("takes a batch of messages in one call, no more than the horizon holds, and says when to take again", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 10, chatPerSecond: 1 },
    });
    for (let chat = 1; chat <= 30; chat++) await q.enqueue(final(chat));
    const before = await commandsProcessed(redis);
    // A 1 s horizon at 10/s holds 11 slots (now, +100 ms, … +1000 ms).
    const batch = await take(q, 64, 1000);
    const after = await commandsProcessed(redis);
    expect(batch.taken.map((t) => t.member)).toEqual(
      Array.from({ length: 11 }, (_, i) => encodeMessage(final(i + 1))),
    );
    expect(batch.taken.at(-1)!.waitMs).toBeLessThanOrEqual(1000);
    // One script call: the commands inside it count too (seven, whatever the batch's size), and
    // so does the INFO call; a call per message would be about seven per message.
    expect(after - before).toBeLessThanOrEqual(8);
    // Look again once half the reserved time has passed.
    expect(batch.wakeMs).toBeGreaterThan(400);
    expect(batch.wakeMs).toBeLessThanOrEqual(700);
    // At most `max` per call.
    const small = await take(new OutgoingQueue(redis, uniquePrefix("out")), 3);
    expect(small.taken).toEqual([]);
    const q2 = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    for (let chat = 1; chat <= 10; chat++) await q2.enqueue(final(chat));
    const three = await take(q2, 3);
    expect(three.taken).toHaveLength(3);
    expect(three.wakeMs).toBe(0);
  });

  it("looks at an empty queue with one command inside the script, and reads the clock only to tidy up", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"));
    const before = await commandsProcessed(redis);
    const empty = await take(q, 64, 1000);
    const after = await commandsProcessed(redis);
    expect(empty).toEqual({ taken: [], wakeMs: -1 });
    // The script call and ZRANGE; then INFO.
    expect(after - before).toBe(3);
    const tidy = await q.take({ leaseMs: 30_000, horizonMs: 1000, housekeeping: true, max: 64 });
    const afterTidy = await commandsProcessed(redis);
    expect(tidy.taken).toEqual([]);
    // The script call, TIME, the expired leases and the idle chats, ZRANGE; then INFO.
    expect(afterTidy - after).toBe(6);
  });

  it("takes a lone message with seven commands: the global slot is read and written with the chats", async () => {
    const prefix = uniquePrefix("out");
    const q = new OutgoingQueue(redis, prefix, { pace: { globalPerSecond: 10, chatPerSecond: 1 } });
    await q.enqueue(final(1));
    const before = await commandsProcessed(redis);
    const one = await take(q, 64, 1000);
    const after = await commandsProcessed(redis);
    expect(one.taken.map((t) => t.member)).toEqual([encodeMessage(final(1))]);
    // The script call, TIME, ZRANGE, ZMSCORE, ZREM, ZADD (lease), ZADD (chat and global slot); then INFO.
    expect(after - before).toBe(8);
    // The next global slot is one interval on, kept beside the chats: a second process waits for it.
    const slot = Number(await redis.zscore(`${prefix}out:chats`, "*"));
    const chat = Number(await redis.zscore(`${prefix}out:chats`, "1"));
    expect(chat - slot).toBe(1000 - 100);
    await q.enqueue(final(2));
    const next = await new OutgoingQueue(redis, prefix, {
      pace: { globalPerSecond: 10, chatPerSecond: 1 },
    }).take({
      leaseMs: 30_000,
      horizonMs: 1000,
      housekeeping: false,
      max: 64,
    });
    expect(next.taken.map((t) => t.member)).toEqual([encodeMessage(final(2))]);
    expect(next.taken[0]!.waitMs).toBeGreaterThanOrEqual(50);
  });

  it("keeps the pace after the process stalled: messages whose times passed go a group at a time, not in a burst", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 20, chatPerSecond: 1000 },
    });
    for (let chat = 1; chat <= 20; chat++) await q.enqueue(final(chat));
    const starts: number[] = [];
    const stall = setTimeout(() => {
      // The event loop is blocked for 700 ms once the batch is taken: several ticks pass meanwhile.
      const until = Date.now() + 700;
      while (Date.now() < until) {}
    }, 120);
    await drain(q, 20, async () => {
      starts.push(Date.now());
    });
    clearTimeout(stall);
    // 20/s is a tick every 300 ms (six intervals of 50): the late messages go at the next ticks, a
    // group of six at a time, each on the grid (timers fire a ms early or a few late), not all at
    // once mid-tick.
    const tickMs = SEND_GROUP * q.intervals.globalMs;
    expect(tickMs).toBe(300);
    const groups = byTick(starts, tickMs);
    expect(Math.max(...groups.values())).toBeLessThanOrEqual(SEND_GROUP);
    expect(groups.size).toBeGreaterThanOrEqual(4);
  });

  it("starts the sends whose slots fall within one tick together, and keeps a chat's sends a second apart", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 1 },
    });
    // Nine chats, and a second message into three of them.
    for (let chat = 1; chat <= 9; chat++) await q.enqueue(final(chat));
    for (let chat = 1; chat <= 3; chat++) await q.enqueue(card(chat));
    const starts: { member: string; at: number }[] = [];
    await drain(q, 12, async (member) => {
      starts.push({ member, at: Date.now() });
    });
    // Every start is on the grid of 204 ms ticks, so nine slots 34 ms apart go in two ticks rather
    // than nine wake-ups, and no tick holds more than a group.
    const tickMs = SEND_GROUP * q.intervals.globalMs;
    const groups = byTick(
      starts.map((s) => s.at),
      tickMs,
    );
    expect(groups.size).toBeLessThanOrEqual(5);
    expect(Math.max(...groups.values())).toBeLessThanOrEqual(SEND_GROUP);
    for (let chat = 1; chat <= 3; chat++) {
      const f = starts.find((s) => s.member.startsWith(`final:${chat}:`))!;
      const c = starts.find((s) => s.member.startsWith(`card:${chat}:`))!;
      expect(c.at - f.at).toBeGreaterThanOrEqual(1000 - 2);
    }
  });

  it("costs the same few Redis commands per message whether 10 or 300 are waiting", async () => {
    const perMessage = async (n: number) => {
      const q = new OutgoingQueue(redis, uniquePrefix("out"), {
        pace: { globalPerSecond: 100_000, chatPerSecond: 100_000 },
      });
      for (let chat = 1; chat <= n; chat++) await q.enqueue(final(chat));
      const before = await commandsProcessed(redis);
      await drain(q, n);
      const after = await commandsProcessed(redis);
      return (after - before) / n;
    };
    const small = await perMessage(10);
    const large = await perMessage(300);
    // A share of a batched take and an acknowledgement; no polling while waiting.
    expect(large).toBeLessThan(5);
    expect(large).toBeLessThanOrEqual(small + 1);
  });

  it("offers again a message whose sender died before acknowledging it", async () => {
    const prefix = uniquePrefix("out");
    const first = new OutgoingQueue(redis, prefix, { pace: { globalPerSecond: 1000, chatPerSecond: 1000 } });
    await first.enqueue(final(1));
    const taken = await first.take({ leaseMs: 200, horizonMs: 1000, housekeeping: false, max: 64 });
    expect(taken.taken).toHaveLength(1);
    // The process that took it is gone; a new one (nothing shared but Redis) finds it after the lease.
    const second = new OutgoingQueue(redis, prefix, { pace: { globalPerSecond: 1000, chatPerSecond: 1000 } });
    expect((await second.take({ leaseMs: 200, horizonMs: 1000, housekeeping: true, max: 64 })).taken).toEqual(
      [],
    );
    await new Promise((r) => setTimeout(r, 250));
    expect(await drain(second, 1)).toEqual([encodeMessage(final(1))]);
  });

  it("gives each taken message a lease token: the score it holds, which renewal moves on", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    await q.enqueue(final(1));
    const [taken] = (await q.take({ leaseMs: 5000, horizonMs: 1000, housekeeping: false, max: 64 })).taken;
    if (!taken) throw new Error("nothing taken");
    expect(Number(await redis.zscore(q.keys.leases, taken.member))).toBe(taken.leaseEnd);
    const renewed = await q.renew(taken.member, taken.leaseEnd, 60_000);
    expect(renewed).toBeGreaterThan(taken.leaseEnd);
    expect(Number(await redis.zscore(q.keys.leases, taken.member))).toBe(renewed);
    // The old token no longer holds it: a process still using it has lost the lease.
    expect(await q.renew(taken.member, taken.leaseEnd, 60_000)).toBe(0);
    expect(Number(await redis.zscore(q.keys.leases, taken.member))).toBe(renewed);
  });

  it("sends nothing and leaves the message alone when another process took its lease over", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    await q.enqueue(final(1));
    const member = encodeMessage(final(1));
    let entered: () => void = () => {};
    const inDeliver = new Promise<void>((r) => {
      entered = r;
    });
    let proceed: () => void = () => {};
    const gate = new Promise<void>((r) => {
      proceed = r;
    });
    const sent: string[] = [];
    const outcomes: string[] = [];
    let abortedAtSend: boolean | undefined;
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 50,
      leaseMs: 300,
      async deliver(m, signal) {
        entered();
        // Telegram is slow here; meanwhile the lease passes to another process.
        await gate;
        abortedAtSend = signal.aborted;
        if (!signal.aborted) sent.push(m);
      },
      onOutcome: (_m, outcome) => outcomes.push(outcome),
    });
    dispatcher.start();
    await inDeliver;
    // Another process's lease on the message (it was offered again and taken there).
    const theirs = Date.now() + 60_000;
    await redis.zadd(q.keys.leases, theirs, member);
    // Past a renewal turn (a third of the lease), which finds the lease lost.
    await new Promise((r) => setTimeout(r, 250));
    proceed();
    await dispatcher.stop(1000);
    expect(abortedAtSend).toBe(true);
    expect(sent).toEqual([]);
    expect(outcomes).toEqual([]);
    // Neither acknowledged nor offered again: the new holder's lease stands.
    expect(Number(await redis.zscore(q.keys.leases, member))).toBe(theirs);
    expect(await redis.zcard(q.keys.queue)).toBe(0);
  });
});

describe("waking the dispatcher", () => {
  it("asks in one ZRANGE whether anything waits while idle, and takes what another process queued", async () => {
    const own = testRedis();
    const prefix = uniquePrefix("out");
    const q = new OutgoingQueue(own, prefix, { pace: { globalPerSecond: 1000, chatPerSecond: 1000 } });
    const sent: string[] = [];
    watchCommands(own, (command) => {
      if (command.args.map(String).includes(q.keys.queue)) sent.push(command.name);
    });
    const delivered: string[] = [];
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 100,
      async deliver(member) {
        delivered.push(member);
      },
    });
    dispatcher.start();
    try {
      // The first look takes (with housekeeping; the script loaded on its first use); idle looks
      // after it only ask.
      for (let i = 0; i < 100 && !sent.includes("zrange"); i++) await new Promise((r) => setTimeout(r, 10));
      expect(sent[0]).toBe("evalsha");
      expect(sent.at(-1)).toBe("zrange");
      sent.length = 0;
      await new Promise((r) => setTimeout(r, 450));
      expect(sent.length).toBeGreaterThanOrEqual(3);
      expect(new Set(sent)).toEqual(new Set(["zrange"]));
      // Another process queues a message and does not wake this one: the next idle look takes it.
      await redis.zadd(q.keys.queue, "NX", 0, encodeMessage(final(1)));
      for (let i = 0; i < 100 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(delivered).toEqual([encodeMessage(final(1))]);
      expect(sent).toContain("evalsha");
    } finally {
      await dispatcher.stop(1000);
      await own.quit();
    }
  });

  it("holds a message Telegram refused (a bad request) as long as one to a blocked chat, then tries it again", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    const tries: number[] = [];
    const refusal = new Error("Bad Request: BUTTON_DATA_INVALID");
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 50,
      housekeepingMs: 100,
      leaseMs: 1_000,
      unreachableHoldMs: 1_500,
      refused: (err) => err === refusal,
      async deliver() {
        tries.push(Date.now());
        if (tries.length === 1) throw refusal;
      },
    });
    await q.enqueue(final(1));
    dispatcher.start();
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      // Offered again at once, it would have been tried every take (some 20 times by now).
      expect(tries).toHaveLength(1);
      for (let i = 0; i < 200 && tries.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(tries).toHaveLength(2);
      expect(tries[1]! - tries[0]!).toBeGreaterThanOrEqual(1_400);
      for (let i = 0; i < 100 && (await q.depth()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await q.depth()).toBe(0);
    } finally {
      await dispatcher.stop(1000);
    }
  });

  it("keeps house while idle with a look at the earliest lease, and takes only for a lease that ended", async () => {
    const own = testRedis();
    const q = new OutgoingQueue(own, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    const sent: string[] = [];
    watchCommands(own, (command) => {
      const args = command.args.map(String);
      if (args.includes(q.keys.queue) || args.includes(q.keys.leases)) sent.push(command.name);
    });
    const delivered: string[] = [];
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 40,
      housekeepingMs: 100,
      async deliver(member) {
        delivered.push(member);
      },
    });
    // A message another process holds: its lease runs 700 ms more.
    const held = encodeMessage(final(7));
    await redis.zadd(q.keys.leases, Date.now() + 700, held);
    dispatcher.start();
    try {
      for (let i = 0; i < 100 && !sent.includes("zrange"); i++) await new Promise((r) => setTimeout(r, 10));
      sent.length = 0;
      // Housekeeping falls due several times; with the lease still running, no take.
      await new Promise((r) => setTimeout(r, 450));
      expect(sent.filter((c) => c === "zrange").length).toBeGreaterThanOrEqual(6);
      expect(new Set(sent)).toEqual(new Set(["zrange"]));
      expect(delivered).toEqual([]);
      // The holder died: once its lease ends, the next housekeeping look offers the message again.
      for (let i = 0; i < 150 && delivered.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(delivered).toEqual([held]);
      expect(sent).toContain("evalsha");
    } finally {
      await dispatcher.stop(1000);
      await own.quit();
    }
  });

  it("sends a message queued while a take was under way at once, not after the idle sleep", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    let dispatcher: OutgoingDispatcher | undefined;
    let duringTake: (() => Promise<void>) | undefined;
    const take = q.take.bind(q);
    q.take = async (opts) => {
      const result = await take(opts);
      // The take has read the empty queue; the message is queued and the dispatcher kicked before its answer arrives.
      const during = duringTake;
      duringTake = undefined;
      await during?.();
      return result;
    };
    const sent: number[] = [];
    dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 5000,
      async deliver() {
        sent.push(Date.now());
      },
    });
    dispatcher.start();
    await new Promise((r) => setTimeout(r, 50));
    let queuedAt = 0;
    duringTake = async () => {
      await q.enqueue(final(1));
      queuedAt = Date.now();
      dispatcher?.kick();
    };
    dispatcher.kick();
    for (let i = 0; i < 200 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await dispatcher.stop(1000);
    expect(queuedAt).toBeGreaterThan(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]! - queuedAt).toBeLessThan(1000);
  });
});

describe("messages a write took itself", () => {
  it("offers its terms only while it runs with nothing of its own to send, sends what it is handed at the slots given, and acknowledges it", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 5 },
    });
    const sent: { member: string; at: number }[] = [];
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 50,
      async deliver(member) {
        sent.push({ member, at: Date.now() });
      },
    });
    expect(dispatcher.leaseTerms()).toBeUndefined();
    dispatcher.start();
    const terms = dispatcher.leaseTerms();
    expect(terms).toMatchObject({
      leases: q.keys.leases,
      chats: q.keys.chats,
      globalMs: 34,
      chatMs: 200 + 204,
    });
    // As lua/writeOrder.lua leases them: the final message at once, the card a chat interval later.
    const [secs, micros] = await redis.time();
    const now = Number(secs) * 1000 + Math.floor(Number(micros) / 1000);
    const f = encodeMessage(final(3));
    const c = encodeMessage(card(3));
    await redis.zadd(q.keys.leases, now + 10_000, f, now + 404 + 10_000, c);
    const handedAt = Date.now();
    dispatcher.adopt(
      [
        { member: f, waitMs: 0, leaseEnd: now + 10_000 },
        { member: c, waitMs: 404, leaseEnd: now + 404 + 10_000, apart: true },
      ],
      handedAt,
    );
    // Sends of its own to make: a write now queues its messages for the take.
    expect(dispatcher.leaseTerms()).toBeUndefined();
    for (let i = 0; i < 200 && (sent.length < 2 || (await redis.zcard(q.keys.leases)) > 0); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(sent.map((s) => s.member)).toEqual([f, c]);
    expect(sent[1]!.at - handedAt).toBeGreaterThanOrEqual(404 - 5);
    expect(await redis.zcard(q.keys.leases)).toBe(0);
    expect(dispatcher.leaseTerms()).toBeDefined();
    await dispatcher.stop(1000);
    expect(dispatcher.leaseTerms()).toBeUndefined();
  });
});

describe("acknowledging sent messages", () => {
  it("acknowledges messages sent close together in one command, and leaves no lease behind", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    const batches: number[] = [];
    const ack = q.ack.bind(q);
    q.ack = async (members) => {
      batches.push(members.length);
      return ack(members);
    };
    for (let chat = 1; chat <= 30; chat++) await q.enqueue(final(chat));
    expect(await drain(q, 30)).toHaveLength(30);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(30);
    expect(batches.length).toBeLessThan(10);
    expect(await redis.zcard(q.keys.leases)).toBe(0);
    expect(await q.depth()).toBe(0);
  });

  it("holds a sent message's acknowledgement for the next one taken here (a lone order's card), within a bound", async () => {
    const acksOf = async (leaseMs: number) => {
      const q = new OutgoingQueue(redis, uniquePrefix("out"), {
        pace: { globalPerSecond: 1000, chatPerSecond: 2 },
      });
      const batches: { at: number; members: readonly string[] }[] = [];
      const ack = q.ack.bind(q);
      q.ack = async (members) => {
        if (members.length > 0) batches.push({ at: Date.now(), members });
        return ack(members);
      };
      // A lone order's two messages: the card goes half a second (the chat's interval) after the final message.
      await q.enqueue(final(1));
      await q.enqueue(card(1));
      const sent: { member: string; at: number }[] = [];
      let done: () => void = () => {};
      const both = new Promise<void>((r) => {
        done = r;
      });
      const dispatcher = new OutgoingDispatcher({
        queue: q,
        log: logger,
        idleMs: 50,
        leaseMs,
        async deliver(member) {
          sent.push({ member, at: Date.now() });
          if (sent.length === 2) done();
        },
      });
      dispatcher.start();
      await both;
      await new Promise((r) => setTimeout(r, 300));
      await dispatcher.stop(1000);
      expect(await redis.zcard(q.keys.leases)).toBe(0);
      return { batches, sent };
    };
    // Both acknowledged in one ZREM once the card was sent.
    const held = await acksOf(10_000);
    expect(held.batches.map((b) => b.members.length)).toEqual([2]);
    expect(held.batches[0]!.at).toBeGreaterThanOrEqual(held.sent[1]!.at);
    // A short lease bounds the hold (a quarter of it): the final message's acknowledgement goes alone.
    const bounded = await acksOf(1000);
    expect(bounded.batches.map((b) => b.members.length)).toEqual([1, 1]);
    expect(bounded.batches[0]!.at - bounded.sent[0]!.at).toBeLessThan(400);
  });

  it("does not hold acknowledgements back while a rush is being sent: sent messages leave the leases within a tick or so", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 1000 },
    });
    const batches: { at: number; size: number }[] = [];
    const ack = q.ack.bind(q);
    q.ack = async (members) => {
      if (members.length > 0) batches.push({ at: Date.now(), size: members.length });
      return ack(members);
    };
    for (let chat = 1; chat <= 30; chat++) await q.enqueue(final(chat));
    const starts: number[] = [];
    expect(
      await drain(q, 30, async () => {
        starts.push(Date.now());
      }),
    ).toHaveLength(30);
    expect(batches.reduce((a, b) => a + b.size, 0)).toBe(30);
    // The first group's acknowledgements go out while later groups still wait for their slots.
    expect(batches[0]!.at - starts[0]!).toBeLessThan(700);
    expect(batches.length).toBeGreaterThan(1);
    expect(await redis.zcard(q.keys.leases)).toBe(0);
  });

  it("in a rush, acknowledges and takes again at the send groups' moments, not on timers of their own", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 30, chatPerSecond: 1000 },
    });
    const acks: number[] = [];
    const takes: number[] = [];
    const ack = q.ack.bind(q);
    q.ack = async (members) => {
      if (members.length > 0) acks.push(Date.now());
      return ack(members);
    };
    const takeOriginal = q.take.bind(q);
    q.take = async (opts) => {
      takes.push(Date.now());
      return takeOriginal(opts);
    };
    for (let chat = 1; chat <= 60; chat++) await q.enqueue(final(chat));
    const starts: number[] = [];
    expect(
      await drain(q, 60, async () => {
        starts.push(Date.now());
      }),
    ).toHaveLength(60);
    const tickMs = SEND_GROUP * q.intervals.globalMs;
    // Every send group wakes the process once: its acknowledgements of the group before and, when
    // due, the next take go then. Only the first take (before any group) and the last
    // acknowledgement (no group after it) have moments of their own.
    const onGrid = (t: number) => Math.abs(t - Math.round(t / tickMs) * tickMs) < 25;
    expect(acks.length).toBeGreaterThan(3);
    expect(acks.slice(0, -1).filter((t) => !onGrid(t))).toEqual([]);
    expect(takes.length).toBeGreaterThan(2);
    expect(takes.slice(1).filter((t) => !onGrid(t))).toEqual([]);
    expect(starts.filter((t) => !onGrid(t))).toEqual([]);
    expect(await redis.zcard(q.keys.leases)).toBe(0);
  });

  it("keeps the lease of a message taken again here before its earlier send was acknowledged", async () => {
    const q = new OutgoingQueue(redis, uniquePrefix("out"), {
      pace: { globalPerSecond: 1000, chatPerSecond: 1000 },
    });
    const member = encodeMessage(card(1));
    let second: () => void = () => {};
    const secondStarted = new Promise<void>((r) => {
      second = r;
    });
    let finish: () => void = () => {};
    const gate = new Promise<void>((r) => {
      finish = r;
    });
    let sends = 0;
    const dispatcher = new OutgoingDispatcher({
      queue: q,
      log: logger,
      idleMs: 20,
      async deliver() {
        sends += 1;
        if (sends === 1) {
          // The card changes again while its first state is being sent: queued anew.
          await q.enqueue(card(1));
          return;
        }
        second();
        await gate;
      },
    });
    dispatcher.start();
    await q.enqueue(card(1));
    dispatcher.kick();
    await secondStarted;
    // The first send's acknowledgement is due by now; the second send's lease must survive it.
    await new Promise((r) => setTimeout(r, 250));
    expect(await redis.zscore(q.keys.leases, member)).not.toBeNull();
    finish();
    await dispatcher.stop(1000);
    expect(sends).toBe(2);
    expect(await redis.zscore(q.keys.leases, member)).toBeNull();
  });
});
