import type { OrderFilter, OrderState } from "./types.js";

/**
 * The orders' Redis layout, built in one place (every key under the configured prefix P):
 *
 *   P order:<id>         hash { v: version, state, json: the whole Order }
 *   P idx:all            zset createdAt → id (operators, newest first; stats by time)
 *   P idx:chat:<chatId>  zset createdAt → id (a customer's /orders)
 *   P idx:state:<state>  zset createdAt → id (tracking, filters)
 *   P idx:open:<chatId>  zset expiresAt → id of the chat's unpaid quotes (draft, quoted): MAX_OPEN_QUOTES
 *   P idx:attention      zset createdAt → id (rejected, stuck or refund needed)
 *   P jobs               zset dueAt(ms) → job (follow-up work, see jobs.ts)
 *   P alert:<kind>       throttle window of an operator alert kind
 *   P spend:<YYYY-MM-DD> deposit charged by `pay` that UTC day, kopecks (the /balance runway; expires)
 */
export interface OrderKeys {
  order(id: string): string;
  readonly all: string;
  chat(chatId: number): string;
  /** A chat's unpaid quotes (draft or quoted), scored by when they expire. */
  open(chatId: number): string;
  state(state: OrderState): string;
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
  const state = (s: OrderState) => `${prefix}idx:state:${s}`;
  return {
    order: (id) => `${prefix}order:${id}`,
    all,
    chat: (chatId) => `${prefix}idx:chat:${chatId}`,
    open: (chatId) => `${prefix}idx:open:${chatId}`,
    state,
    attention,
    jobs: `${prefix}jobs`,
    alertWindow: (kind) => `${prefix}alert:${kind}`,
    spendDay: (day) => `${prefix}spend:${day}`,
    filter: (f) => (f === "all" ? all : f === "attention" ? attention : state(f)),
  };
}
