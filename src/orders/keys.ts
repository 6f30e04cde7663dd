import { FINAL_STATES, type OrderFilter, type OrderState } from "./types.js";

/**
 * The orders' Redis layout, built in one place (every key under the configured prefix P):
 *
 *   P order:<id>         hash { v: version, state, json: the whole Order, fn: when the final
 *                        message was sent (ms; written alone, read into `finalNotifiedAt`) }
 *   P idx:all            zset createdAt → id (operators, newest first; stats by time)
 *   P idx:chat:<chatId>  zset createdAt → id (a customer's /orders)
 *   P idx:inflight       zset createdAt → id of orders paid and not yet settled (paid, pending): the
 *                        operators' "pending" list
 *   P idx:state:<state>  zset createdAt → id, one per final state (filters, the archive sweep)
 *   P idx:open:<chatId>  zset expiresAt → id of the chat's unpaid quotes (draft, quoted): MAX_OPEN_QUOTES
 *   P idx:attention      zset createdAt → id (rejected, stuck or refund needed)
 *   P jobs               zset dueAt(ms) → job (follow-up work, see jobs.ts)
 *   P alert:<kind>       throttle window of an operator alert kind
 *   P spend:<YYYY-MM-DD> deposit charged by `pay` that UTC day, kopecks (the /balance runway; expires)
 */
export interface OrderKeys {
  /** The prefix every key here starts with. */
  readonly prefix: string;
  order(id: string): string;
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
  /** The deposit spent on one UTC day (`YYYY-MM-DD`), kopecks. */
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
    order: (id) => `${prefix}order:${id}`,
    all,
    chat: (chatId) => `${prefix}idx:chat:${chatId}`,
    open: (chatId) => `${prefix}idx:open:${chatId}`,
    stateIndex,
    inflight,
    attention,
    jobs: `${prefix}jobs`,
    alertWindow: (kind) => `${prefix}alert:${kind}`,
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
