import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createLogger } from "../src/logger.js";
import { OrderArchive } from "../src/orders/archive.js";
import { sweepArchive } from "../src/orders/retention.js";
import { OrderStore } from "../src/orders/store.js";
import type { Order, OrderState } from "../src/orders/types.js";
import { startPrivateRedis } from "../test/helpers/private-redis.js";

const DAY = 24 * 3600_000;

export interface RetentionDay {
  day: number;
  /** Orders created so far. */
  created: number;
  /** Orders in Redis after the day's sweeps. */
  inRedis: number;
  /** Archived so far (lines on disk, duplicates included: there are none without crashes). */
  archived: number;
  /** INFO memory used_memory before and after the day's sweeps. */
  memoryBeforeSweep: number;
  memoryAfterSweep: number;
  archiveBytes: number;
  /** Time the day's sweeps took, in ms. */
  sweepMs: number;
}

export interface RetentionSoak {
  perDay: number;
  days: number;
  retentionDays: number;
  live: number;
  /** used_memory of the empty Redis. */
  baselineMemory: number;
  series: RetentionDay[];
  /** (used_memory − baseline) ÷ orders in Redis, on the last day. */
  bytesPerOrder: number;
  /** Memory after the sweeps of the first day retention applied (day retentionDays + 1). */
  flatFromMemory: number;
  /** Last day's memory ÷ flatFromMemory. */
  growthOnceFlat: number;
  /** Orders archived per second by the sweeps. */
  archivedPerSecond: number;
  liveLeftInRedis: number;
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

let chargeSeq = 0;

/** A delivered (mostly), failed or abandoned order created at `at`, as the store keeps it after a real run. */
function finalOrder(at: number, i: number): Order {
  const kind = i % 10;
  const state: OrderState =
    kind < 7 ? "delivered" : kind === 7 ? "failed" : kind === 8 ? "expired" : "cancelled";
  const paid = state === "delivered" || state === "failed";
  const user = 100_000_000 + (i % 50_000);
  const done = at + 90_000;
  return {
    id: randomUUID(),
    state,
    item: { kind: "stars", product: "stars", recipient: `buyer_${user}`, quantity: 50 + (i % 5) * 50 },
    customer: { userId: user, chatId: user, username: `buyer_${user}`, locale: i % 3 ? "ru" : "en" },
    wholesaleKopecks: 7_500 + (i % 7) * 100,
    chargedKopecks: paid ? 7_500 + (i % 7) * 100 : undefined,
    priceKopecks: 8_300 + (i % 7) * 100,
    currency: "XTR",
    amount: 56,
    telegramChargeId: paid ? `stxBenchCharge${++chargeSeq}` : undefined,
    resellerStatus: paid ? state : undefined,
    deliveredPayload: state === "delivered" ? { transaction_id: `tx-${i}`, stars: 50 } : undefined,
    errorMessage: state === "failed" ? "recipient not found" : undefined,
    refund: state === "failed" ? "done" : "none",
    cardMessageId: 1000 + i,
    stuck: false,
    finalNotifiedAt: paid ? done : undefined,
    createdAt: at,
    updatedAt: done,
    expiresAt: at + 900_000,
    times: paid
      ? { draft: at, quoted: at + 500, paid: at + 30_000, pending: at + 31_000, [state]: done }
      : { draft: at, quoted: at + 500, [state]: at + 900_000 },
  };
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/**
 * The retention soak: a shop taking `perDay` orders a day for `days` simulated days (written
 * straight to the store in their final states, with the day's timestamps), `live` orders that
 * never finish (pending, paid, quoted), and after each day the archive sweep with the clock at the
 * day's end, run in batches of `batch` until it has nothing left (the hourly job does the same
 * over a day). Prints Redis memory before and after each day's sweeps.
 */
export async function retentionSoak(opts: {
  perDay: number;
  days: number;
  retentionDays: number;
  live: number;
  batch?: number;
}): Promise<RetentionSoak> {
  const server = await startPrivateRedis();
  const redis = new Redis(server.url);
  const dir = mkdtempSync(join(tmpdir(), "shopbot-bench-archive-"));
  const log = createLogger({ level: "silent" });
  try {
    const start = Date.UTC(2025, 0, 1);
    const store = new OrderStore(redis, "shopbot:");
    const archive = new OrderArchive(dir);
    const settings = { archive, retentionMs: opts.retentionDays * DAY, batch: opts.batch ?? 1000 };
    const baselineMemory = await usedMemory(redis);

    const liveStates: OrderState[] = ["pending", "paid", "quoted"];
    const live = Array.from({ length: opts.live }, (_, i) => ({
      ...finalOrder(start, i),
      state: liveStates[i % 3]!,
      updatedAt: start,
      times: { draft: start },
    }));
    await inBatches(live, 500, (o) => store.create(o, []));

    const series: RetentionDay[] = [];
    let created = live.length;
    let archived = 0;
    let sweepMsTotal = 0;
    for (let day = 0; day < opts.days; day++) {
      const orders = Array.from({ length: opts.perDay }, (_, i) =>
        finalOrder(start + day * DAY + Math.floor((i * DAY) / opts.perDay), created + i),
      );
      await inBatches(orders, 500, (o) => store.create(o, []));
      created += orders.length;
      const memoryBeforeSweep = await usedMemory(redis);
      const t0 = performance.now();
      const endOfDay = start + (day + 1) * DAY;
      for (;;) {
        const res = await sweepArchive({ store, log }, settings, endOfDay);
        archived += res.archived;
        if (!res.full) break;
      }
      const sweepMs = performance.now() - t0;
      sweepMsTotal += sweepMs;
      const archiveBytes = readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
      series.push({
        day: day + 1,
        created,
        inRedis: await redis.zcard(store.keys.all),
        archived,
        memoryBeforeSweep,
        memoryAfterSweep: await usedMemory(redis),
        archiveBytes,
        sweepMs,
      });
    }
    const last = series.at(-1)!;
    const firstFlat = series[Math.min(series.length - 1, opts.retentionDays + 1)]!;
    let liveLeft = 0;
    for (const o of live) if (await redis.exists(store.keys.order(o.id))) liveLeft += 1;
    return {
      perDay: opts.perDay,
      days: opts.days,
      retentionDays: opts.retentionDays,
      live: opts.live,
      baselineMemory,
      series,
      bytesPerOrder: (last.memoryAfterSweep - baselineMemory) / last.inRedis,
      flatFromMemory: firstFlat.memoryAfterSweep,
      growthOnceFlat: last.memoryAfterSweep / firstFlat.memoryAfterSweep,
      archivedPerSecond: archived / (sweepMsTotal / 1000),
      liveLeftInRedis: liveLeft,
    };
  } finally {
    await redis.quit().catch(() => {});
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
