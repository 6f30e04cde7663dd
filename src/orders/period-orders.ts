import type { OrderArchive } from "./archive.js";
import type { OrderStore } from "./store.js";
import type { Order } from "./types.js";

/** Records per chunk: what an export holds in memory at once (plus the ids of one month). */
export const PERIOD_CHUNK = 500;

/**
 * Every order created between `from` and `to` (ms, inclusive), from Redis and the archive, in
 * chunks of at most PERIOD_CHUNK records, each order once. Month by month (UTC): first the
 * month's orders in Redis, oldest first, then the month's archived orders that Redis did not
 * have, in archive order. Redis comes first so that an order the archive sweep moves meanwhile
 * is still found: it is in Redis when read there, or in the archive's file (written before the
 * order leaves Redis) when read there. Memory holds one chunk and the ids of one month.
 */
export async function* ordersCreatedBetween(
  store: Pick<OrderStore, "createdBetweenChunks">,
  archive: OrderArchive | undefined,
  from: number,
  to: number,
): AsyncGenerator<Order[]> {
  for (const [start, end] of monthWindows(from, to)) {
    const seen = new Set<string>();
    for await (const chunk of store.createdBetweenChunks(start, end, PERIOD_CHUNK)) {
      for (const order of chunk) seen.add(order.id);
      yield chunk;
    }
    if (!archive) continue;
    let batch: Order[] = [];
    for await (const order of archive.eachCreatedBetween(start, end)) {
      if (seen.has(order.id)) continue;
      batch.push(order);
      if (batch.length >= PERIOD_CHUNK) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}

/** [start, end] (ms, inclusive) of each UTC month the period touches, clipped to the period. */
export function monthWindows(from: number, to: number): [number, number][] {
  const windows: [number, number][] = [];
  let start = from;
  while (start <= to) {
    const d = new Date(start);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    const end = Math.min(to, nextMonth - 1);
    windows.push([start, end]);
    start = nextMonth;
  }
  return windows;
}
