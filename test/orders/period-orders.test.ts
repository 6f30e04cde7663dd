import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrderArchive } from "../../src/orders/archive.js";
import { monthWindows, ordersCreatedBetween, PERIOD_CHUNK } from "../../src/orders/period-orders.js";
import { OrderStore } from "../../src/orders/store.js";
import type { Order, OrderState } from "../../src/orders/types.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const DAY = 24 * 3600_000;

let redis: Redis;
let dir: string;
beforeAll(() => {
  redis = testRedis();
  dir = mkdtempSync(join(tmpdir(), "period-orders-"));
});
afterAll(async () => {
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

function record(createdAt: number, state: OrderState = "delivered"): Order {
  return {
    id: randomUUID(),
    state,
    item: { kind: "stars", product: "stars", recipient: "someone", quantity: 50 },
    customer: { userId: 1, chatId: 1, locale: "en" },
    currency: "XTR",
    refund: "none",
    stuck: false,
    createdAt,
    updatedAt: createdAt,
    times: { [state]: createdAt },
  };
}

async function collect(chunks: AsyncIterable<Order[]>): Promise<Order[][]> {
  const out: Order[][] = [];
  for await (const c of chunks) out.push(c);
  return out;
}

describe("orders of a period, in bounded chunks", () => {
  it("pages the Redis index: oldest first, at most `chunk` records at a time", async () => {
    const store = new OrderStore(redis, uniquePrefix("period"));
    const t0 = Date.UTC(2026, 10, 1);
    const orders = Array.from({ length: 5 }, (_, i) => record(t0 + i * 1000));
    for (const o of [...orders].reverse()) expect(await store.create(o, [])).toBe(true);
    const chunks = await collect(store.createdBetweenChunks(t0, t0 + 10_000, 2));
    expect(chunks.map((c) => c.length)).toEqual([2, 2, 1]);
    expect(chunks.flat().map((o) => o.id)).toEqual(orders.map((o) => o.id));
    expect(await collect(store.createdBetweenChunks(t0 + 1000, t0 + 3000, 2))).toHaveLength(2);
  });

  it("gives orders created in the same millisecond once, across page boundaries", async () => {
    const store = new OrderStore(redis, uniquePrefix("period"));
    const t0 = Date.UTC(2026, 10, 2);
    const orders = [
      ...Array.from({ length: 5 }, () => record(t0)),
      record(t0 + 1),
      ...Array.from({ length: 3 }, () => record(t0 + 2)),
    ];
    for (const o of orders) expect(await store.create(o, [])).toBe(true);
    const ids = (await collect(store.createdBetweenChunks(t0, t0 + 10, 2))).flat().map((o) => o.id);
    expect(ids).toHaveLength(orders.length);
    expect(new Set(ids)).toEqual(new Set(orders.map((o) => o.id)));
  });

  it("skips no order when orders leave Redis between two pages", async () => {
    const store = new OrderStore(redis, uniquePrefix("period"));
    const t0 = Date.UTC(2026, 10, 3);
    const orders = Array.from({ length: 6 }, (_, i) => record(t0 + i));
    for (const o of orders) expect(await store.create(o, [])).toBe(true);
    const seen: string[] = [];
    for await (const chunk of store.createdBetweenChunks(t0, t0 + 10, 2)) {
      seen.push(...chunk.map((o) => o.id));
      if (seen.length === 2) {
        // The archive sweep removes the two orders just read.
        for (const o of chunk) {
          const stored = await store.read(o.id);
          expect(await store.removeArchived(o, stored!.version, [])).toBe(true);
        }
      }
    }
    expect(seen).toEqual(orders.map((o) => o.id));
  });

  it("splits a period into UTC months, both ends included", () => {
    const from = Date.UTC(2025, 11, 20, 5);
    const to = Date.UTC(2026, 1, 3, 7);
    expect(monthWindows(from, to)).toEqual([
      [from, Date.UTC(2026, 0, 1) - 1],
      [Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1) - 1],
      [Date.UTC(2026, 1, 1), to],
    ]);
    expect(monthWindows(to, from)).toEqual([]);
  });

  it("gives each order once, month by month: Redis first, then the archive's last line of an order", async () => {
    const store = new OrderStore(redis, uniquePrefix("period"));
    const archive = new OrderArchive(join(dir, "a"));
    const oct = Date.UTC(2026, 9, 10);
    const nov = Date.UTC(2026, 10, 10);
    const live = [record(oct + DAY, "pending"), record(nov)];
    const both = record(oct, "pending");
    const archivedOct = record(oct + 2 * DAY, "pending");
    const archivedNov = Array.from({ length: PERIOD_CHUNK + 3 }, (_, i) => record(nov + i));
    for (const o of [...live, both]) expect(await store.create(o, [])).toBe(true);
    await archive.append([{ ...both, state: "expired" }, archivedOct, ...archivedNov]);
    await archive.append([{ ...archivedOct, state: "failed" }]);
    // A line torn by a crash is skipped.
    await appendFile(archive.fileOf("2026-10"), '{"id":"torn');

    const chunks = await collect(
      ordersCreatedBetween(store, archive, Date.UTC(2026, 9, 1), Date.UTC(2026, 11, 1) - 1),
    );
    const all = chunks.flat();
    expect(chunks.every((c) => c.length <= PERIOD_CHUNK)).toBe(true);
    expect(all).toHaveLength(2 + 1 + 1 + PERIOD_CHUNK + 3);
    expect(new Set(all.map((o) => o.id)).size).toBe(all.length);
    // October's Redis orders (oldest first), October's archive, then November's.
    expect(all.slice(0, 3).map((o) => o.id)).toEqual([both.id, live[0]!.id, archivedOct.id]);
    expect(all.find((o) => o.id === both.id)!.state).toBe("pending");
    expect(all.find((o) => o.id === archivedOct.id)!.state).toBe("failed");
    expect(all[3]!.id).toBe(live[1]!.id);

    // Without an archive, only Redis.
    const redisOnly = (await collect(ordersCreatedBetween(store, undefined, oct - DAY, nov + DAY))).flat();
    expect(redisOnly.map((o) => o.id).sort()).toEqual([...live, both].map((o) => o.id).sort());
  });
});
