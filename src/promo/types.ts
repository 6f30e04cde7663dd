import type { ProductKind } from "../config.js";

/**
 * A promo code as an operator made it. Its limits live next to it in Redis (see store.ts) so the
 * Lua script that counts a use checks them in the same step.
 */
export interface PromoCode {
  /** Upper-case letters, digits, "-" and "_" (4–32); customers may type it in any case. */
  code: string;
  /** `percent`: `value` percent off (1–100); `fixed`: `value` kopecks off. */
  type: "percent" | "fixed";
  value: number;
  /** The product kinds it applies to; empty: all. */
  products: ProductKind[];
  /** Uses of the code in all (0: unlimited). */
  maxUses: number;
  /** Uses by one customer (0: unlimited). */
  perCustomer: number;
  /** Valid from/until (ms since epoch, inclusive start, exclusive end); absent: no bound. */
  validFrom?: number;
  validTo?: number;
  /** The order's price before the discount must be at least this (kopecks; 0: any). */
  minOrderKopecks: number;
  createdAt: number;
  /** The operator who made it. */
  createdBy: number;
  /** Set when made as part of a batch of one-time codes. */
  batch?: string;
}

/** A code as listed for operators: its definition, uses so far and whether it is switched off. */
export interface PromoStatus extends PromoCode {
  used: number;
  disabled: boolean;
}

/** The promo applied to an order (stored on the order). */
export interface OrderPromo {
  code: string;
  /** What the customer saves, kopecks (the price before minus the price now). */
  discountKopecks: number;
  /** The price before the discount, kopecks. */
  originalPriceKopecks: number;
  /** The discount was cut so that the price stays at the wholesale price. */
  clamped?: boolean;
}

/** Why a code was not applied; each has a sentence for the customer (`promo-refused-<reason>`). */
export type PromoRefusal =
  | "unknown"
  | "disabled"
  | "not_started"
  | "ended"
  | "product"
  | "min_order"
  | "exhausted"
  | "customer_limit"
  | "no_discount"
  | "already"
  | "payment_started"
  | "not_quoted";
