import type { Rail } from "../../config.js";
import { LIMITS } from "../validate.js";

/**
 * Callback-data prefixes of buttons handled outside the product flows (≤ 64 bytes with a UUID).
 * A flow's buttons use `f:<question>:<action>` (see flows/kit.ts).
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
  /** Main menu item: `m:<kind>`, `m:orders` or `m:invite` (the customer's invite link and referral stats). */
  menu: "m:",
  /**
   * The customer's wallet: `w:p:<offset>` a page of entries, `w:t` the top-up amounts,
   * `w:o` "Other amount" (asks for a typed one), `w:a:<kopecks>` an amount chosen (shows the
   * rails), `w:x` cancel a typed question.
   */
  wallet: "w:",
  /**
   * An operator's view of a customer's wallet (answered only to OPERATOR_IDS):
   * `ow:p:<userId>:<offset>` a page, `ow:a:<userId>` start an adjustment,
   * `ow:y:<userId>:<uuid>` confirm it (the uuid is the adjustment's ref), `ow:x` cancel.
   */
  walletOperator: "ow:",
  /** Top up the wallet on a rail: `tu:<rail>:<amountKopecks>` (see encodeTopUp). */
  topUp: "tu:",
  /** An operator's CSV export of a preset period: `ox:<preset>` (see orders/export-period.ts). */
  operatorExport: "ox:",
  /**
   * An operator's /customer card (answered only to OPERATOR_IDS): `oc:v:<userId>` redraw,
   * `oc:n:<userId>` add a note (asks for it), `oc:x` stop asking, `oc:b:<userId>` ban,
   * `oc:u:<userId>` unban.
   */
  customerOperator: "oc:",
  /** A promo code for a quoted order: `pc:<orderId>` asks for it, `pc:x` stops asking. */
  promo: "pc:",
  /** The operators' /promo list: `po:d:<CODE>` switches a code off. */
  promoOperator: "po:",
  /** The operators' /prices screen: `pp:…` (see format/operator-prices.ts PRICES_CB). */
  prices: "pp:",
  /**
   * An operator's broadcast (answered only to OPERATOR_IDS): `bc:a:<audience>` pick the audience,
   * `bc:t` send a test to oneself, `bc:go:<id>` send it, `bc:b` back to the audiences, `bc:x`
   * drop the draft; while it runs `bc:p:<id>` pause, `bc:r:<id>` resume, `bc:c:<id>` cancel.
   */
  broadcast: "bc:",
  /** Write to the shop's support (features/support.ts): `sp`. */
  support: "sp",
} as const;

/** The rails a wallet can be topped up on: every payment rail but the wallet itself and `direct`. */
export const TOP_UP_RAILS = ["stars", "invoice", "yookassa", "cryptopay"] as const;
export type TopUpRail = (typeof TOP_UP_RAILS)[number];

/** A top-up of `amountKopecks` (a positive whole number) on `rail`: `tu:<rail>:<amountKopecks>`. */
export function encodeTopUp(rail: TopUpRail, amountKopecks: number): string {
  return `${CB.topUp}${rail}:${amountKopecks}`;
}

/** Matches every top-up button's data; {@link decodeTopUp} reads it. */
export const TOP_UP_CALLBACK = /^tu:([a-z]+):(\d{1,13})$/;

/**
 * The rail and amount of a top-up button, or null for anything else: a forged or old payload,
 * an unknown rail, or an amount that is not whole roubles within {@link LIMITS}.topUpRub.
 */
export function decodeTopUp(data: string): { rail: TopUpRail; amountKopecks: number } | null {
  const m = TOP_UP_CALLBACK.exec(data);
  if (!m) return null;
  const rail = TOP_UP_RAILS.find((r) => r === m[1]);
  const amountKopecks = Number(m[2]);
  const { min, max } = LIMITS.topUpRub;
  if (!rail || amountKopecks % 100 !== 0 || amountKopecks < min * 100 || amountKopecks > max * 100) {
    return null;
  }
  return { rail, amountKopecks };
}

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
