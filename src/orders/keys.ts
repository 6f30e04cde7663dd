import { FINAL_STATES, type OrderFilter, type OrderState } from "./types.js";

/**
 * The orders' Redis layout, built in one place (every key under the configured prefix P):
 *
 *   P ord:<id>           string `<version>|<state>|<json of the whole Order>` (record.ts)
 *   P ord:<id>:fn        when the order's final message was sent (ms; written alone, read into
 *                        `finalNotifiedAt`)
 *   P order:<id>         the record as versions before 2026-11 kept it: hash { v, state, json, fn }
 *                        (moved to the two keys above at start-up and when read, store.ts)
 *   P idx:all            zset createdAt → id (operators, newest first; stats by time)
 *   P idx:chat:<chatId>  zset createdAt → id (a customer's /orders)
 *   P idx:inflight       zset createdAt → id of orders paid and not yet settled (paid, pending): the
 *                        operators' "pending" list
 *   P idx:state:<state>  zset createdAt → id, one per final state (filters, the archive sweep)
 *   P idx:open:<chatId>  zset expiresAt → id of the chat's unpaid quotes (draft, quoted): MAX_OPEN_QUOTES;
 *                        a paid quote stays until the chat's next quote looks (lua/writeOrder.lua 'cap')
 *   P idx:attention      zset createdAt → id (rejected, stuck or refund needed)
 *   P jobs               zset dueAt(ms) → job (follow-up work, see jobs.ts)
 *   P alert:<kind>       throttle window of an operator alert kind
 *   P layout:orders      "2" once the start-up move of `order:<id>` hashes has gone through
 *   P deposit            hash { kopecks, at } the last deposit read (deposit-guard.ts), and
 *                        spent:<YYYY-MM-DD>:<process> → kopecks, the deposit charged by `pay` that
 *                        UTC day by one process (the /balance runway, spending.ts)
 *   P spend:<YYYY-MM-DD> the same day's total as earlier versions counted it (read until it expires)
 */
export interface OrderKeys {
  /** The prefix every key here starts with. */
  readonly prefix: string;
  order(id: string): string;
  /** When the order's final message was sent. */
  sent(id: string): string;
  /** The record of an earlier layout (a hash), moved to `order` and `sent` when met. */
  legacy(id: string): string;
  /** Set once every record of the earlier layout listed in `idx:all` was moved. */
  readonly layout: string;
  readonly all: string;
  chat(chatId: number): string;
  /** A chat's unpaid quotes (draft or quoted), scored by when they expire. */
  open(chatId: number): string;
  /**
   * The index an order in `state` is listed in: `idx:inflight` from the customer's payment until
   * the order settles, its final state's own index after that, none while it is an unpaid quote
   * (nothing lists those but the chat's `open` index). A transition within one index (draft →
   * quoted → paid → pending) writes no index.
   */
  stateIndex(state: OrderState): string | undefined;
  /** Orders paid and not yet settled (paid, pending). */
  readonly inflight: string;
  readonly attention: string;
  readonly jobs: string;
  alertWindow(kind: string): string;
  /** Periodic deposit checks failed in a row for want of an answer (reseller down); gone after one that answered. */
  readonly checksFailed: string;
  /** The deposit's hash: the last deposit read and the spending per day and process. */
  readonly deposit: string;
  /** The deposit spent on one UTC day (`YYYY-MM-DD`) as earlier versions counted it, kopecks. */
  spendDay(day: string): string;
  /** The index behind an operator list filter. */
  filter(filter: OrderFilter): string;
}

export function orderKeys(prefix: string): OrderKeys {
  const attention = `${prefix}idx:attention`;
  const all = `${prefix}idx:all`;
  const inflight = `${prefix}idx:inflight`;
  const stateIndex = (s: OrderState): string | undefined =>
    s === "paid" || s === "pending"
      ? inflight
      : (FINAL_STATES as readonly string[]).includes(s)
        ? `${prefix}idx:state:${s}`
        : undefined;
  return {
    prefix,
    order: (id) => `${prefix}ord:${id}`,
    sent: (id) => `${prefix}ord:${id}:fn`,
    legacy: (id) => `${prefix}order:${id}`,
    layout: `${prefix}layout:orders`,
    all,
    chat: (chatId) => `${prefix}idx:chat:${chatId}`,
    open: (chatId) => `${prefix}idx:open:${chatId}`,
    stateIndex,
    inflight,
    attention,
    jobs: `${prefix}jobs`,
    alertWindow: (kind) => `${prefix}alert:${kind}`,
    checksFailed: `${prefix}balance:failed`,
    deposit: `${prefix}deposit`,
    spendDay: (day) => `${prefix}spend:${day}`,
    filter: (f) =>
      f === "all"
        ? all
        : f === "attention"
          ? attention
          : f === "pending"
            ? inflight
            : `${prefix}idx:state:${f}`,
  };
}
