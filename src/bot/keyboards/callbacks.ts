import type { Rail } from "../../config.js";

/**
 * Callback-data prefixes of buttons handled outside conversations (≤ 64 bytes with a UUID).
 * Conversation buttons use `f:<step>:<choice>` (see conversations/kit.ts).
 */
export const CB = {
  /** Pay (invoice) or Confirm (direct) the order: `pay:<orderId>`. */
  pay: "pay:",
  /** Pay the order on one rail of several: `pr:<rail code>:<orderId>` (see RAIL_CODES). */
  payRail: "pr:",
  /** Cancel an unpaid quote: `cx:<orderId>`. */
  cancel: "cx:",
  /** New quote for an expired one: `rq:<orderId>`. */
  requote: "rq:",
  /** Show an order's card from /orders: `ov:<orderId>`. */
  orderView: "ov:",
  /** /orders page: `mo:<offset>` ("op:" belongs to the operator tools). */
  ordersPage: "mo:",
  /** Main menu item: `m:<kind>` or `m:orders`. */
  menu: "m:",
} as const;

export const FLOW_PREFIX = "f:";

/** One letter per rail in `pr:` buttons (callback data is at most 64 bytes). */
export const RAIL_CODES = {
  stars: "s",
  invoice: "i",
  yookassa: "y",
  cryptopay: "c",
  wallet: "w",
} as const satisfies Record<Exclude<Rail, "direct">, string>;

export type PayRail = keyof typeof RAIL_CODES;

/** The rail behind a `pr:` code; undefined for an unknown one. */
export function railOfCode(code: string): PayRail | undefined {
  return (Object.keys(RAIL_CODES) as PayRail[]).find((r) => RAIL_CODES[r] === code);
}
