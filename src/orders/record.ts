import type { Order } from "./types.js";

/**
 * How an order is stored: one string, `<version>|<state>|<json>` (keys.ts `order`). The version
 * comes first so that lua/writeOrder.lua can check it on the value `SET … GET` hands back: a
 * checked write is one command inside the script. The state is there for the scripts that decide
 * on it (lua/scheduleIfState-2.lua, lua/removeOrder-8.lua) without decoding the JSON.
 *
 * When the final message went out is a key of its own beside it (keys.ts `sent`): the sender
 * writes it without the version (see store.ts `markFinalNotified`).
 */

/** An order with the version it was read at (what a compare-and-set write starts from). */
export interface Stored {
  order: Order;
  version: number;
}

export function encodeRecord(version: number, order: Order): string {
  return `${version}|${order.state}|${JSON.stringify(order)}`;
}

/** The stored order and its version; null for a missing or unreadable value. */
export function decodeRecord(raw: string | null | undefined, sent: string | null | undefined): Stored | null {
  if (typeof raw !== "string") return null;
  const a = raw.indexOf("|");
  const b = a < 0 ? -1 : raw.indexOf("|", a + 1);
  if (b < 0) return null;
  return { order: parseOrder(raw.slice(b + 1), sent), version: Number(raw.slice(0, a)) };
}

/** An order's JSON with the time its final message was sent (records of old versions have it inside). */
export function parseOrder(json: string, sent: string | null | undefined): Order {
  const order = JSON.parse(json) as Order;
  if (sent) order.finalNotifiedAt = Number(sent);
  return order;
}
