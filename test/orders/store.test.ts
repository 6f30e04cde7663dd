import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Effect } from "../../src/orders/effects.js";
import { finalMessage, send } from "../../src/orders/lifecycle.js";
import { migrateIndexes, migrateRecords } from "../../src/orders/migrations.js";
import { OrderStore } from "../../src/orders/store.js";
import { FINAL_STATES, type Order } from "../../src/orders/types.js";
import { OutgoingQueue, type TakenMessage } from "../../src/outgoing/queue.js";
import { commandsProcessed, testRedis, uniquePrefix, watchCommands } from "../helpers/redis.js";

function sampleOrder(overrides: Partial<Order> = {}): Order {
  const t = Date.now();
  return {
    id: randomUUID(),
    state: "quoted",
    item: { kind: "stars", product: "stars", recipient: "someone", quantity: 50 },
    customer: { userId: 1, chatId: 1, locale: "en" },
    currency: "XTR",
    refund: "none",
    stuck: false,
    createdAt: t,
    updatedAt: t,
    times: { quoted: t },
    ...overrides,
  };
}

describe("order store", () => {
  let redis: Redis;
  let store: OrderStore;
  beforeAll(() => {
    redis = testRedis();
    store = new OrderStore(redis, uniquePrefix("store"));
  });
  afterAll(async () => {
    await redis.quit();
  });

  it("creates an order once per id", async () => {
    const order = sampleOrder();
    expect(await store.create(order, [])).toBe(true);
    expect(await store.create({ ...order, state: "paid" }, [])).toBe(false);
    expect((await store.get(order.id))?.state).toBe("quoted");
  });

  it("lets exactly one of many racing writers move an order", async () => {
    const order = sampleOrder();
    await store.create(order, []);
    const racers = Array.from({ length: 20 }, (_, i) =>
      store.update(order.id, (o) =>
        o.state === "quoted" ? { next: { ...o, state: "paid", telegramChargeId: `charge-${i}` } } : null,
      ),
    );
    const results = await Promise.all(racers);
    expect(results.filter((r) => r.won)).toHaveLength(1);
    const winner = results.find((r) => r.won)?.order?.telegramChargeId;
    expect((await store.get(order.id))?.telegramChargeId).toBe(winner);
  });

  it("lists an order in flight from payment to settling, then under its final state, and an unpaid quote in none", async () => {
    const store = new OrderStore(redis, uniquePrefix("store-index"));
    const order = sampleOrder();
    const k = store.keys;
    const indexesOf = async () => {
      const found: string[] = [];
      for (const key of [k.inflight, ...FINAL_STATES.map((s) => k.stateIndex(s)!)]) {
        if ((await redis.zscore(key, order.id)) !== null) found.push(key.slice(key.indexOf("idx:")));
      }
      return found;
    };
    await store.create(order, []);
    expect(await indexesOf()).toEqual([]);
    await store.update(order.id, (o) => ({ next: { ...o, state: "paid" } }));
    expect(await indexesOf()).toEqual(["idx:inflight"]);
    await store.update(order.id, (o) => ({ next: { ...o, state: "pending" } }));
    expect(await indexesOf()).toEqual(["idx:inflight"]);
    expect((await store.pageByFilter("pending", 0, 10)).items.map((o) => o.id)).toEqual([order.id]);
    await store.update(order.id, (o) => ({ next: { ...o, state: "delivered" } }));
    expect(await indexesOf()).toEqual(["idx:state:delivered"]);
    expect((await store.pageByFilter("pending", 0, 10)).total).toBe(0);
    expect((await store.pageByFilter("delivered", 0, 10)).items.map((o) => o.id)).toEqual([order.id]);
  });

  it("moves the per-state indexes of the earlier layout into the in-flight one at start-up", async () => {
    const store = new OrderStore(redis, uniquePrefix("store-migrate"));
    const p = store.keys.prefix;
    await redis.zadd(`${p}idx:state:paid`, 5, "a");
    await redis.zadd(`${p}idx:state:pending`, 3, "b");
    await redis.zadd(`${p}idx:state:quoted`, 4, "c");
    await redis.zadd(`${p}idx:state:draft`, 2, "d");
    await redis.zadd(store.keys.inflight, 1, "e");
    await migrateIndexes(redis, store.keys);
    expect(await redis.zrange(store.keys.inflight, 0, -1, "WITHSCORES")).toEqual([
      "e",
      "1",
      "b",
      "3",
      "a",
      "5",
    ]);
    for (const s of ["paid", "pending", "quoted", "draft"])
      expect(await redis.exists(`${p}idx:state:${s}`)).toBe(0);
    await migrateIndexes(redis, store.keys);
    expect(await redis.zcard(store.keys.inflight)).toBe(3);
  });

  it("records the jobs of a write atomically with it", async () => {
    const order = sampleOrder();
    await store.create(order, [{ member: `submit:${order.id}`, dueAt: 5 }]);
    expect(await redis.zscore(store.jobsKey, `submit:${order.id}`)).toBe("5");
  });

  it("reads a page of ten in a bounded number of round trips, newest first", async () => {
    const chatId = 777_000 + Math.floor(Math.random() * 1000);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const o = sampleOrder({ createdAt: 1_000 + i, customer: { userId: 2, chatId, locale: "ru" } });
      ids.push(o.id);
      await store.create(o, []);
    }
    const before = await commandsProcessed(redis);
    const page = await store.page(store.chatIndex(chatId), 10, 10);
    const after = await commandsProcessed(redis);
    expect(page.total).toBe(25);
    expect(page.items.map((o) => o.id)).toEqual(ids.slice().reverse().slice(10, 20));
    // MULTI/ZREVRANGE/ZCARD/EXEC + 10 pipelined HGETs + the INFO call itself: independent of the shop's size.
    expect(after - before).toBeLessThanOrEqual(16);
  });

  it("records the final message's time in a key of its own, seen by every reader, and clears it when a write drops it", async () => {
    const order = sampleOrder({ state: "delivered" });
    await store.create(order, []);
    const key = store.keys.order(order.id);
    const record = await redis.get(key);
    await store.markFinalNotified(order.id, 12_345);
    expect(await redis.get(key)).toBe(record);
    // Another process (a fresh store, nothing cached) reads it, singly and in pages.
    const other = new OrderStore(redis, store.keys.prefix);
    expect((await other.get(order.id))?.finalNotifiedAt).toBe(12_345);
    const page = await other.page(other.chatIndex(order.customer.chatId), 0, 50);
    expect(page.items.find((o) => o.id === order.id)?.finalNotifiedAt).toBe(12_345);
    // The operators' resend writes the record without it: the field goes with it.
    await other.update(order.id, (o) => ({ next: { ...o, finalNotifiedAt: undefined } }));
    expect(await redis.exists(store.keys.sent(order.id))).toBe(0);
    expect((await new OrderStore(redis, store.keys.prefix).get(order.id))?.finalNotifiedAt).toBeUndefined();
  });

  it("writes the marks of final messages sent together in one MSET, each awaited until it is written", async () => {
    const prefix = uniquePrefix("store-marks");
    const own = testRedis();
    const writer = new OrderStore(own, prefix);
    const orders = [0, 1, 2].map(() => sampleOrder({ state: "delivered" }));
    for (const o of orders) await writer.create(o, []);
    const sent: string[] = [];
    watchCommands(own, (command) => sent.push(command.name));
    // A send group's three finals answered a moment apart.
    const marks = orders.map(async (o, i) => {
      await new Promise((r) => setTimeout(r, i));
      await writer.markFinalNotified(o.id, 1000 + i);
      // Awaited means written: another process sees it at once.
      return (await new OrderStore(redis, prefix).get(o.id))?.finalNotifiedAt;
    });
    expect(await Promise.all(marks)).toEqual([1000, 1001, 1002]);
    expect(sent.filter((c) => c === "mset" || c === "set")).toEqual(["mset"]);
    // A mark on its own is written alone, as soon.
    await writer.markFinalNotified(orders[0]!.id, 2000);
    expect(await redis.get(writer.keys.sent(orders[0]!.id))).toBe("2000");
    await own.quit();
  });

  it("queues an order's two messages of one write with one ZADD: a settled order's write is six commands", async () => {
    const prefix = uniquePrefix("store-settle");
    const outgoing = new OutgoingQueue(redis, prefix);
    const s = new OrderStore(redis, prefix, { outgoing });
    const pending = sampleOrder({ state: "pending" });
    await s.create(pending, [{ member: `track:${pending.id}`, dueAt: Date.now() + 60_000 }]);
    const commands = () => commandsProcessed(redis);
    const before = await commands();
    const card = send({ kind: "card", chatId: pending.customer.chatId, orderId: pending.id });
    const delivered = { ...pending, state: "delivered" as const };
    expect(
      await s.write(pending, 1, delivered, [
        finalMessage(delivered),
        { cancel: `track:${pending.id}` },
        card,
      ]),
    ).toBe(true);
    const after = await commands();
    // EVALSHA, SET … XX GET (the record, its version checked on the value it replaced), ZREM (in
    // flight), ZADD (delivered), ZREM (the job), one ZADD NX for both messages; then INFO.
    expect(after - before).toBe(7);
    expect(await redis.zrange(outgoing.keys.queue, 0, -1)).toEqual([
      `final:${pending.customer.chatId}:${pending.id}`,
      `card:${pending.customer.chatId}:${pending.id}`,
    ]);
    expect(await redis.zscore(s.keys.jobs, `track:${pending.id}`)).toBeNull();
  });

  describe("a write that takes its own messages", () => {
    const TERMS = { leaseMs: 10_000, horizonMs: 1000, chatSlackMs: 204 };

    /** A store whose writes may take their messages, recording what they took and what they woke. */
    function leasingStore(prefix: string) {
      const outgoing = new OutgoingQueue(redis, prefix);
      const taken: TakenMessage[][] = [];
      const woken: Effect[][] = [];
      const s = new OrderStore(redis, prefix, {
        outgoing,
        leaseTerms: () => outgoing.leaseTerms(TERMS),
        onLeased: (t) => taken.push(t),
        onEffects: (e) => woken.push(e),
      });
      return { s, outgoing, taken, woken };
    }

    async function settle(s: OrderStore, chatId = 5) {
      const pending = sampleOrder({ state: "pending", customer: { userId: chatId, chatId, locale: "en" } });
      await s.create(pending, []);
      const delivered = { ...pending, state: "delivered" as const };
      const card = send({ kind: "card", chatId, orderId: pending.id });
      expect(await s.write(pending, 1, delivered, [card, finalMessage(delivered)])).toBe(true);
      return delivered;
    }

    it("leases an order's final message and card in its final write when the queue is empty, as a take would", async () => {
      const prefix = uniquePrefix("store-lease");
      const { s, outgoing, taken, woken } = leasingStore(prefix);
      const pending = sampleOrder({ state: "pending" });
      await s.create(pending, []);
      const mid = await commandsProcessed(redis);
      const delivered = { ...pending, state: "delivered" as const };
      const card = send({ kind: "card", chatId: pending.customer.chatId, orderId: pending.id });
      expect(await s.write(pending, 1, delivered, [card, finalMessage(delivered)])).toBe(true);
      const after = await commandsProcessed(redis);
      // EVALSHA, SET, ZREM (in flight), ZADD (delivered); ZCARD (the queue is empty), ZMSCORE (the
      // global slot and the chat, neither reserved lately: no TIME, the writer's clock will do),
      // ZADD (both leases), ZADD (slot and chat); then INFO: where queueing cost one ZADD NX and
      // the take seven more.
      expect(after - mid).toBe(9);
      const final = `final:${pending.customer.chatId}:${pending.id}`;
      const cardMember = `card:${pending.customer.chatId}:${pending.id}`;
      expect(taken).toHaveLength(1);
      // The final message first, at once; the card a chat interval (and the sender's slack) later.
      expect(taken[0]!.map((t) => t.member)).toEqual([final, cardMember]);
      expect(taken[0]![0]!.waitMs).toBeLessThanOrEqual(5);
      expect(taken[0]![0]!.apart).toBeUndefined();
      expect(taken[0]![1]!.waitMs - taken[0]![0]!.waitMs).toBe(1000 + 204);
      expect(taken[0]![1]!.apart).toBe(true);
      // Leased in Redis under the tokens handed over; nothing queued, nothing woken for them.
      expect(await redis.zcard(outgoing.keys.queue)).toBe(0);
      expect(Number(await redis.zscore(outgoing.keys.leases, final))).toBe(taken[0]![0]!.leaseEnd);
      expect(Number(await redis.zscore(outgoing.keys.leases, cardMember))).toBe(taken[0]![1]!.leaseEnd);
      expect(woken.flat().some((e) => "message" in e)).toBe(false);
      // The pace as a take leaves it: the global slot one interval on, the chat after the card.
      const slot = Number(await redis.zscore(outgoing.keys.chats, "*"));
      const chat = Number(await redis.zscore(outgoing.keys.chats, String(pending.customer.chatId)));
      expect(chat - slot).toBe(2 * 1204 - 34);
    });

    it("reads Redis's clock for the slot when a send was reserved within the last second", async () => {
      const prefix = uniquePrefix("store-lease");
      const { s, outgoing, taken } = leasingStore(prefix);
      // Another process reserved the global slot 300 ms ago, on Redis's clock.
      const [secs, micros] = await redis.time();
      const redisNow = Number(secs) * 1000 + Math.floor(Number(micros) / 1000);
      await redis.zadd(outgoing.keys.chats, redisNow - 300, "*");
      const pending = sampleOrder({ state: "pending", customer: { userId: 9, chatId: 9, locale: "en" } });
      await s.create(pending, []);
      const mid = await commandsProcessed(redis);
      const delivered = { ...pending, state: "delivered" as const };
      const card = send({ kind: "card", chatId: 9, orderId: pending.id });
      expect(await s.write(pending, 1, delivered, [card, finalMessage(delivered)])).toBe(true);
      // The eight of a quiet queue's write and TIME, then INFO.
      expect((await commandsProcessed(redis)) - mid).toBe(10);
      expect(taken).toHaveLength(1);
      expect(taken[0]![0]!.waitMs).toBeLessThanOrEqual(5);
      const slot = Number(await redis.zscore(outgoing.keys.chats, "*"));
      expect(slot).toBeGreaterThanOrEqual(redisNow + 34);
      expect(slot).toBeLessThan(redisNow + 34 + 1000);
    });

    it("queues them when other messages wait, or when their chat is not free by the next slot", async () => {
      const prefix = uniquePrefix("store-lease");
      const { s, outgoing, taken, woken } = leasingStore(prefix);
      await outgoing.enqueue({ kind: "card", chatId: 99, orderId: "other" });
      const first = await settle(s, 6);
      expect(taken).toHaveLength(0);
      expect(await redis.zrange(outgoing.keys.queue, 0, -1)).toEqual(
        expect.arrayContaining([`final:6:${first.id}`, `card:6:${first.id}`]),
      );
      expect(woken.flat().filter((e) => "message" in e)).toHaveLength(2);

      // The queue empty again, but chat 7 busy for another second: queued, to wait for it.
      await redis.del(outgoing.keys.queue);
      await redis.zadd(outgoing.keys.chats, Date.now() + 1000, "7");
      const second = await settle(s, 7);
      expect(taken).toHaveLength(0);
      expect(await redis.zrange(outgoing.keys.queue, 0, -1)).toEqual([
        `final:7:${second.id}`,
        `card:7:${second.id}`,
      ]);
    });

    it("leaves messages it took to be offered again when their holder dies before sending them", async () => {
      const prefix = uniquePrefix("store-lease");
      const outgoing = new OutgoingQueue(redis, prefix);
      const dead = new OrderStore(redis, prefix, {
        outgoing,
        leaseTerms: () => outgoing.leaseTerms({ leaseMs: 100, horizonMs: 1000, chatSlackMs: 0 }),
        // The process dies before it sends anything.
        onLeased: () => {},
      });
      const order = await settle(dead, 8);
      expect(await redis.zcard(outgoing.keys.leases)).toBe(2);
      await new Promise((r) => setTimeout(r, 1200));
      // The next take that tidies up offers them again: the final message at once, the card when
      // its chat is free.
      const again = await outgoing.take({ leaseMs: 10_000, horizonMs: 5000, housekeeping: true, max: 64 });
      expect(again.taken.map((t) => t.member)).toContain(`final:8:${order.id}`);
      const offered = [
        ...again.taken.map((t) => t.member),
        ...(await redis.zrange(outgoing.keys.queue, 0, -1)),
      ];
      expect(offered.sort()).toEqual([`card:8:${order.id}`, `final:8:${order.id}`]);
    });
  });

  it("checks and writes the record in one command, and a write from a stale version changes nothing", async () => {
    const s = new OrderStore(redis, uniquePrefix("store-cas"));
    const draft = sampleOrder({ state: "draft" });
    expect(await s.create(draft, [])).toBe(true);
    const quoted = { ...draft, state: "quoted" as const, priceKopecks: 7_500 };
    const before = await commandsProcessed(redis);
    expect(await s.write(draft, 1, quoted, [])).toBe(true);
    // EVALSHA and one SET inside it; then INFO.
    expect((await commandsProcessed(redis)) - before).toBe(3);
    const written = await redis.get(s.keys.order(draft.id));
    expect(written).toMatch(/^2\|quoted\|\{/);
    // A writer that read version 1 loses, and the record it raced is the same byte for byte.
    expect(await s.write(draft, 1, { ...draft, state: "cancelled" }, [])).toBe(false);
    expect(await s.write(draft, 7, { ...draft, state: "cancelled" }, [])).toBe(false);
    expect(await redis.get(s.keys.order(draft.id))).toBe(written);
    // A record that is not there is not created by a write that expects one.
    const ghost = sampleOrder();
    expect(await s.write(ghost, 3, ghost, [])).toBe(false);
    expect(await redis.exists(s.keys.order(ghost.id))).toBe(0);
    expect((await new OrderStore(redis, s.keys.prefix).get(draft.id))?.priceKopecks).toBe(7_500);
  });

  it("answers 'exists', not 'limit', for a quote already written when its chat is at the cap", async () => {
    const s = new OrderStore(redis, uniquePrefix("store-cap"));
    const chat = { userId: 77, chatId: 77, locale: "en" as const };
    const expiresAt = Date.now() + 60_000;
    const first = sampleOrder({ state: "draft", customer: chat, expiresAt });
    expect(await s.createQuote(first, [], 1)).toBe("created");
    expect(await s.createQuote(first, [], 1)).toBe("exists");
    expect(await s.createQuote(sampleOrder({ state: "draft", customer: chat, expiresAt }), [], 1)).toBe(
      "limit",
    );
  });

  it("leaves a paid quote in its chat's open index to the next quote, which takes it out and does not count it", async () => {
    const s = new OrderStore(redis, uniquePrefix("store-open"));
    const chat = { userId: 78, chatId: 78, locale: "en" as const };
    const expiresAt = Date.now() + 60_000;
    const first = sampleOrder({ state: "quoted", customer: chat, expiresAt });
    const second = sampleOrder({ state: "quoted", customer: chat, expiresAt });
    // A quote of an hour ago, paid and past its expiry.
    const old = sampleOrder({ state: "quoted", customer: chat, expiresAt: Date.now() - 1 });
    for (const o of [first, second, old]) expect(await s.createQuote(o, [], 5)).toBe("created");
    expect(await s.write(old, 1, { ...old, state: "paid" }, [])).toBe(true);
    const before = await commandsProcessed(redis);
    expect(await s.write(first, 1, { ...first, state: "paid" }, [])).toBe(true);
    // EVALSHA, SET, ZADD (in flight): no ZREM of the open index; then INFO.
    expect((await commandsProcessed(redis)) - before).toBe(4);
    const open = s.keys.open(chat.chatId);
    expect((await redis.zrange(open, 0, -1)).sort()).toEqual([first.id, second.id, old.id].sort());
    expect((await s.openQuotes(chat.chatId)).map((o) => o.id)).toEqual([second.id]);

    // At the cap of two, the paid one is not counted: a new quote is taken, and the index keeps
    // only the unpaid quotes.
    const third = sampleOrder({ state: "draft", customer: chat, expiresAt });
    expect(await s.createQuote(third, [], 2)).toBe("created");
    expect((await redis.zrange(open, 0, -1)).sort()).toEqual([second.id, third.id].sort());
    expect(await s.createQuote(sampleOrder({ state: "draft", customer: chat, expiresAt }), [], 2)).toBe(
      "limit",
    );
  });

  it("moves the records of the earlier layout (hashes) at start-up, once, and any met later when read", async () => {
    const s = new OrderStore(redis, uniquePrefix("store-layout"));
    const legacy = async (o: Order, v: number, fn?: number) => {
      await redis.hset(s.keys.legacy(o.id), {
        v: String(v),
        state: o.state,
        json: JSON.stringify(o),
        ...(fn !== undefined ? { fn: String(fn) } : {}),
      });
      await redis.zadd(s.keys.all, o.createdAt, o.id);
      await redis.zadd(s.keys.chat(o.customer.chatId), o.createdAt, o.id);
    };
    const pending = sampleOrder({ state: "pending" });
    const delivered = sampleOrder({ state: "delivered" });
    await legacy(pending, 4);
    await legacy(delivered, 5, 4_242);
    expect(await migrateRecords(redis, s)).toBe(2);
    expect(await redis.exists(s.keys.legacy(pending.id), s.keys.legacy(delivered.id))).toBe(0);
    const other = new OrderStore(redis, s.keys.prefix);
    expect((await other.get(delivered.id))?.finalNotifiedAt).toBe(4_242);
    // The version carried over: a write from it wins, one from an older version does not.
    expect(await other.write(pending, 3, { ...pending, state: "failed" }, [])).toBe(false);
    expect(await other.write(pending, 4, { ...pending, state: "delivered" }, [])).toBe(true);
    // Done once: the next start does not walk the orders again.
    const stray = sampleOrder({ state: "paid" });
    await legacy(stray, 3);
    expect(await migrateRecords(redis, s)).toBe(0);
    expect(await redis.exists(s.keys.legacy(stray.id))).toBe(1);
    // A record written the old way after that (a process of the old version) is moved when read,
    // by a single read or by a list, and is then written like any other.
    const page = await new OrderStore(redis, s.keys.prefix).page(s.chatIndex(stray.customer.chatId), 0, 10);
    expect(page.items.map((o) => o.id).sort()).toEqual([pending.id, delivered.id, stray.id].sort());
    expect(await redis.exists(s.keys.legacy(stray.id))).toBe(0);
    const later = sampleOrder({ state: "paid" });
    await legacy(later, 3);
    const fresh = new OrderStore(redis, s.keys.prefix);
    expect(
      (
        await fresh.update(later.id, (o) =>
          o.state === "paid" ? { next: { ...o, state: "pending" } } : null,
        )
      ).won,
    ).toBe(true);
    expect((await fresh.get(later.id))?.state).toBe("pending");
  });

  it("hands a claimed job to no one else until its lease runs out", async () => {
    const s = new OrderStore(redis, uniquePrefix("jobs"));
    await s.jobs.schedule("track:a", 100);
    const first = await s.jobs.claim(200, 10, 1000);
    expect(first.map((j) => j.member)).toEqual(["track:a"]);
    expect(await s.jobs.claim(500, 10, 1000)).toEqual([]);
    const again = await s.jobs.claim(1300, 10, 1000);
    expect(again.map((j) => j.member)).toEqual(["track:a"]);
    // The first holder's lease is gone, so it cannot remove the job from under the new holder.
    expect(await s.jobs.finish("track:a", first[0]!.lease)).toBe(false);
    expect(await s.jobs.finish("track:a", again[0]!.lease)).toBe(true);
    expect(await s.jobs.pending()).toBe(0);
  });

  it("keeps a job that was scheduled again while it ran", async () => {
    const s = new OrderStore(redis, uniquePrefix("jobs"));
    await s.jobs.schedule("card:b", 100);
    const [claimed] = await s.jobs.claim(200, 10, 1000);
    await s.jobs.schedule("card:b", 300);
    expect(await s.jobs.finish("card:b", claimed!.lease)).toBe(false);
    expect(await s.jobs.pending()).toBe(1);
  });
});
