import type { OrderStore } from "./store.js";
import type { Order } from "./types.js";

/** Totals of one time window. Money in kopecks. */
export interface WindowStats {
  /** Orders created in the window, in any state (abandoned quotes included). */
  orders: number;
  /** Of those, how many the customer paid for (or confirmed, in direct checkout). */
  paid: number;
  /** Of those, how many were delivered. */
  delivered: number;
  /** Of those, how many ended failed or rejected. */
  failed: number;
  /** Customer prices of the delivered orders. */
  revenueKopecks: number;
  /** Deposit charged for the delivered orders (the wholesale price when the charge is unknown). */
  wholesaleKopecks: number;
  /** revenue − wholesale. */
  marginKopecks: number;
}

export interface OrderStats {
  /** Since 00:00 UTC today. */
  today: WindowStats;
  /** The last 7 × 24 hours. */
  week: WindowStats;
  /** The last 30 × 24 hours. */
  month: WindowStats;
}

/** What the statistics need of the store. An OrderStore fits. */
export type StatsSource = Pick<OrderStore, "createdBetween">;

const DAY_MS = 24 * 3600_000;

function emptyWindow(): WindowStats {
  return {
    orders: 0,
    paid: 0,
    delivered: 0,
    failed: 0,
    revenueKopecks: 0,
    wholesaleKopecks: 0,
    marginKopecks: 0,
  };
}

/** Start of the UTC day containing `now`. */
export function utcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

function add(w: WindowStats, order: Order): void {
  w.orders += 1;
  if (order.times.paid !== undefined) w.paid += 1;
  if (order.state === "failed" || order.state === "rejected") w.failed += 1;
  if (order.state !== "delivered") return;
  w.delivered += 1;
  const revenue = order.priceKopecks ?? 0;
  const cost = order.chargedKopecks ?? order.wholesaleKopecks ?? 0;
  w.revenueKopecks += revenue;
  w.wholesaleKopecks += cost;
  w.marginKopecks += revenue - cost;
}

/**
 * Orders, revenue, wholesale cost and margin for today (UTC), the last 7 days and the last 30
 * days, counted from the orders the store holds, by the time each order was created.
 * Revenue, cost and margin count delivered orders only: a failed or rejected order earns
 * nothing and its deposit charge comes back. Revenue is the customer price in roubles (for
 * Stars payments, the rouble price the stars were asked for).
 *
 * One index range over the 30-day window, then the records read pipelined in chunks.
 */
export async function orderStats(store: StatsSource, now: number): Promise<OrderStats> {
  const monthFrom = now - 30 * DAY_MS;
  const weekFrom = now - 7 * DAY_MS;
  const todayFrom = utcMidnight(now);
  const stats: OrderStats = { today: emptyWindow(), week: emptyWindow(), month: emptyWindow() };

  for (const order of await store.createdBetween(monthFrom, now)) {
    // The index score is createdAt; the record decides, in case the two ever disagree.
    if (order.createdAt < monthFrom || order.createdAt > now) continue;
    add(stats.month, order);
    if (order.createdAt >= weekFrom) add(stats.week, order);
    if (order.createdAt >= todayFrom) add(stats.today, order);
  }
  return stats;
}
