import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeRecord } from "../../src/orders/record.js";
import { orderStats, utcMidnight } from "../../src/orders/stats.js";
import { OrderStore } from "../../src/orders/store.js";
import type { Order, OrderState } from "../../src/orders/types.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** 2025-03-10 15:00 UTC. */
const NOW = Date.UTC(2025, 2, 10, 15, 0, 0);

let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await redis.quit();
});

function record(createdAt: number, state: OrderState, money: Partial<Order> = {}): Order {
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
    times:
      state === "quoted" || state === "expired"
        ? { [state]: createdAt }
        : { paid: createdAt + 1, [state]: createdAt + 2 },
    ...money,
  };
}

describe("order statistics", () => {
  it("sums orders, revenue, deposit cost and margin of delivered orders per window", async () => {
    const store = new OrderStore(redis, uniquePrefix("stats"));
    const delivered = (at: number, price: number, cost: number, charged?: number) =>
      record(at, "delivered", { priceKopecks: price, wholesaleKopecks: cost, chargedKopecks: charged });
    const orders = [
      // today (since 00:00 UTC)
      delivered(NOW - HOUR, 11_000, 10_000),
      delivered(NOW - 14 * HOUR, 5_500, 5_000, 4_900), // charged differs from the quote: the charge counts
      record(NOW - 2 * HOUR, "failed", { priceKopecks: 9_999, wholesaleKopecks: 9_000 }),
      record(NOW - 3 * HOUR, "quoted", { priceKopecks: 1_000, wholesaleKopecks: 900 }),
      // yesterday 23:00 UTC: this week, not today
      delivered(utcMidnight(NOW) - HOUR, 2_200, 2_000),
      record(NOW - 3 * DAY, "rejected", { priceKopecks: 1_100, wholesaleKopecks: 1_000 }),
      // 20 days ago: this month only
      delivered(NOW - 20 * DAY, 110_000, 100_000),
      record(NOW - 25 * DAY, "expired"),
      // 31 days ago and in the future: outside every window
      delivered(NOW - 31 * DAY, 999_999, 1),
      delivered(NOW + HOUR, 999_999, 1),
    ];
    for (const o of orders) expect(await store.create(o, [])).toBe(true);

    const s = await orderStats(store, NOW);

    expect(s.today).toEqual({
      orders: 4,
      paid: 3,
      delivered: 2,
      failed: 1,
      revenueKopecks: 16_500,
      wholesaleKopecks: 14_900,
      marginKopecks: 1_600,
    });
    expect(s.week).toEqual({
      orders: 6,
      paid: 5,
      delivered: 3,
      failed: 2,
      revenueKopecks: 18_700,
      wholesaleKopecks: 16_900,
      marginKopecks: 1_800,
    });
    expect(s.month).toEqual({
      orders: 8,
      paid: 6,
      delivered: 4,
      failed: 2,
      revenueKopecks: 128_700,
      wholesaleKopecks: 116_900,
      marginKopecks: 11_800,
    });
  });

  it("reads more orders than one pipelined chunk", async () => {
    const store = new OrderStore(redis, uniquePrefix("stats"));
    const pipe = redis.pipeline();
    for (let i = 0; i < 1_234; i++) {
      const o = record(NOW - i * 1000, "delivered", { priceKopecks: 200, wholesaleKopecks: 150 });
      pipe.set(store.keys.order(o.id), encodeRecord(1, o));
      pipe.zadd(store.keys.all, o.createdAt, o.id);
    }
    await pipe.exec();
    const s = await orderStats(store, NOW);
    expect(s.month.delivered).toBe(1_234);
    expect(s.month.revenueKopecks).toBe(1_234 * 200);
    expect(s.month.marginKopecks).toBe(1_234 * 50);
  });

  it("is all zeros for an empty shop", async () => {
    const s = await orderStats(new OrderStore(redis, uniquePrefix("stats")), NOW);
    expect(s.today.orders + s.week.orders + s.month.orders).toBe(0);
    expect(s.month.marginKopecks).toBe(0);
  });
});
