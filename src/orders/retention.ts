import type { Logger } from "../logger.js";
import type { OrderArchive } from "./archive.js";
import { jobsOfOrder } from "./jobs.js";
import type { OrderStore } from "./store.js";
import { FINAL_STATES, type Order } from "./types.js";

/**
 * Retention: orders final for longer than ORDER_RETENTION_DAYS leave Redis for the archive
 * (archive.ts), so Redis holds a bounded window of orders however long the shop runs.
 *
 * One sweep takes at most `batch` orders: it appends them to their month files (fsynced), then
 * deletes each from Redis with its index entries and jobs in one atomic step that checks the
 * order is still at the archived version (lua/removeOrder-8.lua). A crash between the two leaves
 * the order in Redis and a line in the archive — archived again by a later sweep, a duplicate
 * line that readers ignore — never an order that is in neither. The sweep runs as the periodic
 * `archive:sweep` job, so one process at a time does it (the job's lease).
 */
export interface RetentionSettings {
  archive: OrderArchive;
  /** How long an order stays in Redis after its last change, once final (ms). */
  retentionMs: number;
  /** Orders archived at most per sweep. */
  batch: number;
  /** Time between sweeps (ms); a sweep that filled its batch runs again after `catchUpMs`. */
  everyMs: number;
  catchUpMs: number;
}

export interface SweepResult {
  /** Orders written to the archive and deleted from Redis. */
  archived: number;
  /** Orders written to the archive that changed before they could be deleted (stay in Redis). */
  changed: number;
  /** Whether the batch was full: more orders may be waiting. */
  full: boolean;
}

/** Candidates read per Redis round trip. */
const CHUNK = 200;

/** The order's last change: the newest of its update time and its state times. */
export function lastChangeOf(order: Order): number {
  return Math.max(
    order.updatedAt ?? 0,
    order.createdAt,
    order.finalNotifiedAt ?? 0,
    ...Object.values(order.times),
  );
}

/**
 * Whether an order may leave Redis at `cutoff`: final, unchanged since before the cutoff, and
 * owing the customer nothing — an order with a refund still to make (by hand, or a Stars refund
 * job not yet done) stays in Redis, on the operators' attention list, until it is settled.
 */
export function isArchivable(order: Order, cutoff: number): boolean {
  if (!FINAL_STATES.includes(order.state)) return false;
  if (lastChangeOf(order) >= cutoff) return false;
  if (order.refund === "needed") return false;
  const starsRefundDue =
    (order.state === "failed" || order.state === "rejected") &&
    order.currency === "XTR" &&
    order.telegramChargeId !== undefined &&
    order.refund === "none";
  if (starsRefundDue) return false;
  return !(order.extraCharges ?? []).some((c) => c.refund === "needed");
}

/** One sweep at time `now`: archives at most `batch` orders. */
export async function sweepArchive(
  deps: { store: OrderStore; log: Logger },
  settings: Pick<RetentionSettings, "archive" | "retentionMs" | "batch">,
  now: number,
): Promise<SweepResult> {
  const { store, log } = deps;
  const { archive, batch } = settings;
  const cutoff = now - settings.retentionMs;
  const picked: { order: Order; version: number }[] = [];
  // Nothing leaves Redis until the whole batch is on disk, so each chunk starts after the last.
  // Orders older than the cutoff that must stay (changed lately, a refund owed) are read again by
  // every sweep; reads per state are bounded so a long run of them cannot make one sweep endless.
  const maxReads = batch * 10;
  for (const state of FINAL_STATES) {
    let offset = 0;
    let reads = 0;
    while (picked.length < batch && reads < maxReads) {
      const rows = await store.createdBefore(state, cutoff, offset, Math.min(CHUNK, maxReads - reads));
      if (rows.length === 0) break;
      reads += rows.length;
      offset += rows.length;
      for (const row of rows) {
        if (picked.length < batch && row.order.state === state && isArchivable(row.order, cutoff)) {
          picked.push(row);
        }
      }
    }
  }
  if (picked.length === 0) return { archived: 0, changed: 0, full: false };

  // The file first: once it is on disk, deleting from Redis can lose nothing.
  await archive.append(picked.map((p) => p.order));
  // Each delete is atomic on its own; sent together they share round trips.
  const removed = await Promise.all(
    picked.map(({ order, version }) => store.removeArchived(order, version, jobsOfOrder(order))),
  );
  const archived = removed.filter(Boolean).length;
  const changed = picked.length - archived;
  log.info({ archived, changed, cutoff: new Date(cutoff).toISOString() }, "orders archived");
  return { archived, changed, full: picked.length >= batch };
}
