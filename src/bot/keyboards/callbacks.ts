/**
 * Callback-data prefixes of buttons handled outside conversations (≤ 64 bytes with a UUID).
 * Conversation buttons use `f:<step>:<choice>` (see conversations/kit.ts).
 */
export const CB = {
  /** Pay (invoice) or Confirm (direct) the order: `pay:<orderId>`. */
  pay: "pay:",
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
