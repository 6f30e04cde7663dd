import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formatRub } from "../../src/bot/format/money.js";
import { ConfigError, createConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { OrderArchive, withArchive } from "../../src/orders/archive.js";
import { createOrdersEngine } from "../../src/orders/engine.js";
import { encodeJob } from "../../src/orders/jobs.js";
import { sweepArchive } from "../../src/orders/retention.js";
import { OrderStore } from "../../src/orders/store.js";
import type { Order, OrderState } from "../../src/orders/types.js";
import { allData, OPERATOR_ID, OperatorBot } from "../bot/operator-harness.js";
import { type EngineHarness, startEngineHarness } from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const DAY = 24 * 3600_000;
/** 2025-06-15 12:00 UTC: the sweeps' clock. */
const NOW = Date.UTC(2025, 5, 15, 12);
const RETENTION = { retentionMs: 90 * DAY, batch: 100 };
const log = createLogger({ level: "silent", secrets: [] });

let redis: Redis;
const dirs: string[] = [];
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "shopbot-archive-"));
  dirs.push(dir);
  return dir;
}

function record(state: OrderState, createdAt: number, lastChange: number, over: Partial<Order> = {}): Order {
  const chat = 900_000 + Math.floor(Math.random() * 1000);
  return {
    id: randomUUID(),
    state,
    item: { kind: "stars", product: "stars", recipient: "someone", quantity: 50 },
    customer: { userId: chat, chatId: chat, locale: "en" },
    priceKopecks: 11_000,
    wholesaleKopecks: 10_000,
    currency: "XTR",
    refund: "none",
    stuck: false,
    createdAt,
    updatedAt: lastChange,
    times: { quoted: createdAt, [state]: lastChange },
    ...over,
  };
}

/** Every place in Redis that names the order: its hash, the indexes and the job schedule. */
async function tracesOf(store: OrderStore, order: Order): Promise<string[]> {
  const k = store.keys;
  const found: string[] = [];
  if (await redis.exists(k.order(order.id))) found.push("hash");
  for (const [name, key] of [
    ["idx:all", k.all],
    ["idx:chat", k.chat(order.customer.chatId)],
    [`idx:state:${order.state}`, k.stateIndex(order.state) ?? k.inflight],
    ["idx:attention", k.attention],
    ["idx:open", k.open(order.customer.chatId)],
  ] as const) {
    if ((await redis.zscore(key, order.id)) !== null) found.push(name);
  }
  const jobs = await redis.zrange(k.jobs, 0, -1);
  if (jobs.some((m) => m.includes(order.id))) found.push("jobs");
  return found;
}

function linesOf(file: string): Order[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Order);
}

describe("the archive sweep", () => {
  it("moves an old delivered order to its creation month's file and out of Redis, its indexes and jobs", async () => {
    const store = new OrderStore(redis, uniquePrefix("retention"));
    const archive = new OrderArchive(tempDir());
    const delivered = record("delivered", Date.UTC(2025, 1, 27, 23), Date.UTC(2025, 2, 2));
    // Rejected with its refund made: on the attention list until it leaves.
    const rejected = record("rejected", Date.UTC(2025, 2, 3), Date.UTC(2025, 2, 3, 1), { refund: "done" });
    const stale = [
      { member: encodeJob({ type: "card", orderId: delivered.id }), dueAt: NOW + DAY },
      {
        member: encodeJob({ type: "alert", kind: "delivery_failed", orderId: delivered.id }),
        dueAt: NOW + DAY,
      },
    ];
    expect(await store.create(delivered, stale)).toBe(true);
    expect(await store.create(rejected, [])).toBe(true);
    expect(await tracesOf(store, delivered)).toEqual([
      "hash",
      "idx:all",
      "idx:chat",
      "idx:state:delivered",
      "jobs",
    ]);
    expect(await tracesOf(store, rejected)).toContain("idx:attention");
    // Paid as a quote whose chat never asked for another: still listed among its open quotes.
    await redis.zadd(store.keys.open(delivered.customer.chatId), delivered.createdAt, delivered.id);

    const res = await sweepArchive({ store, log }, { archive, ...RETENTION }, NOW);

    expect(res).toEqual({ archived: 2, changed: 0, full: false });
    // The month the order was created in (February), not the one it was delivered or archived in.
    expect(linesOf(archive.fileOf("2025-02"))).toEqual([delivered]);
    expect(linesOf(archive.fileOf("2025-03"))).toEqual([rejected]);
    expect(await tracesOf(store, delivered)).toEqual([]);
    expect(await tracesOf(store, rejected)).toEqual([]);
    expect(await store.get(delivered.id)).toBeNull();
  });

  it("leaves recent orders, orders not final and orders that still owe a refund in Redis", async () => {
    const store = new OrderStore(redis, uniquePrefix("retention"));
    const archive = new OrderArchive(tempDir());
    const old = NOW - 200 * DAY;
    const keep = {
      recent: record("delivered", NOW - 30 * DAY, NOW - 30 * DAY),
      // Created long ago, but changed within the retention (an operator resent its message).
      touched: record("delivered", old, NOW - 10 * DAY),
      pending: record("pending", old, old),
      paid: record("paid", old, old),
      quoted: record("quoted", old, old),
      refundOwed: record("failed", old, old, { currency: "RUB", refund: "needed" }),
      starsRefundDue: record("failed", old, old, { telegramChargeId: "tgCharge1" }),
    };
    const gone = record("expired", old, old);
    for (const o of [...Object.values(keep), gone]) expect(await store.create(o, [])).toBe(true);

    const res = await sweepArchive({ store, log }, { archive, ...RETENTION }, NOW);

    expect(res.archived).toBe(1);
    expect((await archive.readMonth(OrderArchive.monthOf(old))).map((o) => o.id)).toEqual([gone.id]);
    for (const [name, o] of Object.entries(keep)) {
      expect(await store.get(o.id), name).toEqual(o);
      expect(await tracesOf(store, o), name).toContain("idx:all");
    }
    // A second sweep finds nothing more to do.
    expect(await sweepArchive({ store, log }, { archive, ...RETENTION }, NOW)).toEqual({
      archived: 0,
      changed: 0,
      full: false,
    });
  });

  it("takes at most a batch per sweep, oldest first, and the rest on later sweeps", async () => {
    const store = new OrderStore(redis, uniquePrefix("retention"));
    const archive = new OrderArchive(tempDir());
    const orders = Array.from({ length: 7 }, (_, i) =>
      record("delivered", NOW - (200 - i) * DAY, NOW - (200 - i) * DAY),
    );
    for (const o of orders) await store.create(o, []);
    const settings = { archive, retentionMs: 90 * DAY, batch: 3 };
    expect(await sweepArchive({ store, log }, settings, NOW)).toEqual({
      archived: 3,
      changed: 0,
      full: true,
    });
    expect((await store.get(orders[3]!.id))?.id).toBe(orders[3]!.id);
    await sweepArchive({ store, log }, settings, NOW);
    await sweepArchive({ store, log }, settings, NOW);
    const archived = (await archive.createdBetween(0, NOW)).map((o) => o.id);
    expect(archived.sort()).toEqual(orders.map((o) => o.id).sort());
    expect(await redis.zcard(store.keys.all)).toBe(0);
  });

  it("loses nothing when the process dies between the file and Redis: the next sweep finishes, readers see one order", async () => {
    const store = new OrderStore(redis, uniquePrefix("retention"));
    const archive = new OrderArchive(tempDir());
    const order = record("delivered", Date.UTC(2025, 0, 10), Date.UTC(2025, 0, 11));
    await store.create(order, []);
    // The file is written and fsynced, then the process dies before the delete.
    const dying = Object.assign(Object.create(store) as OrderStore, {
      removeArchived: () => Promise.reject(new Error("killed")),
    });
    await expect(sweepArchive({ store: dying, log }, { archive, ...RETENTION }, NOW)).rejects.toThrow(
      "killed",
    );
    expect(linesOf(archive.fileOf("2025-01"))).toEqual([order]);
    expect(await store.get(order.id)).toEqual(order);

    // The restarted sweep archives it again (a duplicate line) and removes it.
    expect((await sweepArchive({ store, log }, { archive, ...RETENTION }, NOW)).archived).toBe(1);
    expect(linesOf(archive.fileOf("2025-01"))).toEqual([order, order]);
    expect(await tracesOf(store, order)).toEqual([]);
    expect(await archive.readMonth("2025-01")).toEqual([order]);
    expect(await archive.count("all")).toBe(1);
  });

  it("keeps an order that changed between the file and the delete in Redis, newer than its archived line", async () => {
    const store = new OrderStore(redis, uniquePrefix("retention"), { now: () => NOW });
    const archive = new OrderArchive(tempDir());
    const order = record("failed", Date.UTC(2025, 0, 10), Date.UTC(2025, 0, 11), {
      currency: "RUB",
      refund: "done",
    });
    await store.create(order, []);
    const racing = Object.assign(Object.create(store) as OrderStore, {
      async removeArchived(o: Order, version: number, jobs: readonly string[]) {
        // An operator touches the order just after the sweep wrote it to the archive.
        await store.update(o.id, (cur) => ({ next: { ...cur, errorMessage: "noted by operator" } }));
        return store.removeArchived(o, version, jobs);
      },
    });
    const res = await sweepArchive({ store: racing, log }, { archive, ...RETENTION }, NOW);

    expect(res).toEqual({ archived: 0, changed: 1, full: false });
    const live = await store.get(order.id);
    expect(live?.errorMessage).toBe("noted by operator");
    expect(await tracesOf(store, live!)).toContain("idx:all");
    expect(linesOf(archive.fileOf("2025-01"))).toHaveLength(1);
    // Readers over both count it once, as Redis has it.
    const both = await withArchive(store, archive).createdBetween(Date.UTC(2025, 0, 1), NOW);
    expect(both.map((o) => [o.id, o.errorMessage])).toEqual([[order.id, "noted by operator"]]);
  });

  it("reads a month file with a line torn by a crash, and appends after it on a new line", async () => {
    const archive = new OrderArchive(tempDir());
    const a = record("delivered", Date.UTC(2025, 0, 5), Date.UTC(2025, 0, 5));
    const b = record("cancelled", Date.UTC(2025, 0, 6), Date.UTC(2025, 0, 6));
    await archive.append([a]);
    writeFileSync(archive.fileOf("2025-01"), `${JSON.stringify(a)}\n{"id":"torn`, { flag: "w" });
    await archive.append([b]);
    expect((await archive.readMonth("2025-01")).map((o) => o.id)).toEqual([a.id, b.id]);
  });
});

describe("retention settings", () => {
  const env = {
    BOT_TOKEN: "123:abc",
    RESELLER_API_URL: "https://reseller.example.com",
    RESELLER_API_KEY: "key",
    OPERATOR_IDS: "1",
  };

  it("default to 90 days and ./archive, and take other values", () => {
    expect(createConfig(env)).toMatchObject({ orderRetentionDays: 90, archiveDir: "archive" });
    expect(
      createConfig({ ...env, ORDER_RETENTION_DAYS: "400", ARCHIVE_DIR: "/var/lib/shopbot/archive" }),
    ).toMatchObject({ orderRetentionDays: 400, archiveDir: "/var/lib/shopbot/archive" });
  });

  it.each(["0", "-5", "1.5", "ninety"])(
    "refuse ORDER_RETENTION_DAYS=%s in the one message naming every bad variable",
    (days) => {
      let problems: string[] = [];
      try {
        createConfig({ ...env, ORDER_RETENTION_DAYS: days, HTTP_PORT: "99999" });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        problems = (err as ConfigError).problems.map((p) => p.variable);
      }
      expect(problems.sort()).toEqual(["HTTP_PORT", "ORDER_RETENTION_DAYS"]);
    },
  );
});

describe("operators over archived months", () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("the engine's periodic sweep archives old orders; /stats and the operator /orders still show them", async () => {
    const dir = tempDir();
    const now = Date.now();
    const engine = createOrdersEngine({
      redis: h.redis,
      // Its own prefix: the harness's engine (no archive) must not take this one's sweep job.
      prefix: uniquePrefix("retention"),
      reseller: h.client,
      notifier: h.notifier,
      logger: createLogger({ level: "silent", secrets: [] }, new Writable({ write: (_c, _e, cb) => cb() })),
      config: {
        checkout: ["stars"],
        priceMarkupPercent: 10,
        starPriceRub: 1.5,
        quoteTtlSeconds: 900,
        pollIntervalSeconds: 0.1,
        trackingTimeoutHours: 24,
        lowBalanceRub: 1000,
        resellerCallbackUrl: undefined,
      },
      idleDelayMs: 20,
      // A day's retention: orders from the last 30 days are archived, so /stats needs the archive.
      retention: { days: 1, dir },
    });
    const archivedOrders = [
      record("delivered", now - 12 * DAY, now - 5 * DAY, { priceKopecks: 50_000, chargedKopecks: 40_000 }),
      record("delivered", now - 20 * DAY, now - 19 * DAY, { priceKopecks: 30_000, chargedKopecks: 20_000 }),
      record("failed", now - 15 * DAY, now - 15 * DAY, { refund: "done", times: { paid: now - 15 * DAY } }),
    ];
    const live = record("delivered", now - 3600_000, now - 3600_000, {
      priceKopecks: 20_000,
      chargedKopecks: 15_000,
    });
    for (const o of [...archivedOrders, live]) expect(await engine.store.create(o, [])).toBe(true);

    engine.start();
    try {
      await eventually(
        async () => (await redis.zcard(engine.store.keys.all)) === 1,
        10_000,
        "the sweep archived the old orders",
      );
    } finally {
      await engine.stop(2000);
    }
    for (const o of archivedOrders) {
      expect(await engine.store.get(o.id)).toBeNull();
      const file = join(dir, `orders-${OrderArchive.monthOf(o.createdAt)}.jsonl`);
      expect(linesOf(file).map((x) => x.id)).toContain(o.id);
    }

    const bot = new OperatorBot(h, { orders: engine });
    // The list: the order in Redis first, then the archive's, newest first.
    const list = OperatorBot.one(await bot.send(OPERATOR_ID, "/orders"));
    expect(list.text).toMatch(/· 4\n/);
    const rows = allData(list.keyboard)
      .filter((d) => d.startsWith("op:o:"))
      .map((d) => d.slice(5));
    expect(rows).toEqual([live.id, archivedOrders[0]!.id, archivedOrders[2]!.id, archivedOrders[1]!.id]);
    const failedList = OperatorBot.one(await bot.press(OPERATOR_ID, "op:l:f:0", 5000));
    expect(failedList.text).toMatch(/· 1\n/);

    // An archived row opens a read-only card saying where the order is kept; so does /order #ref.
    const old = archivedOrders[1]!;
    const card = OperatorBot.one(await bot.press(OPERATOR_ID, `op:o:${old.id}`, 5000));
    expect(card.method).toBe("sendMessage");
    expect(card.text).toContain(old.id);
    expect(card.text).toContain(`kept in the archive file of ${OrderArchive.monthOf(old.createdAt)}`);
    expect(allData(card.keyboard)).toEqual([]);
    const byRef = OperatorBot.one(await bot.send(OPERATOR_ID, `/order #${old.id.slice(0, 8)}`));
    expect(byRef.text).toContain(old.id);
    expect(byRef.text).toContain("Archived");
    const gone = await bot.press(OPERATOR_ID, `op:o:${randomUUID()}`, 5000);
    expect(OperatorBot.callbackAnswer(gone)?.text).toBe("This order no longer exists.");

    // /stats: the 30-day window counts the archived orders; today only the live one.
    const stats = OperatorBot.one(await bot.send(OPERATOR_ID, "/stats"));
    expect(stats.text).toContain("Orders: 1 · paid 0 · delivered 1 · failed or refused 0");
    expect(stats.text).toContain("Orders: 4 · paid 1 · delivered 3 · failed or refused 1");
    const revenue = 50_000 + 30_000 + 20_000;
    const cost = 40_000 + 20_000 + 15_000;
    expect(stats.text).toContain(`margin <b>${formatRub(revenue - cost, "en")}</b>`);
  });
});
