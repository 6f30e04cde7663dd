import type { ProductKind, Rail } from "../config.js";
import type { PromoStore } from "../promo/store.js";
import type { TopUps } from "../wallet/topups.js";
import type { PriceSettingsStore } from "./price-settings.js";
import type { PromoApplied } from "./promo-checkout.js";
import type { RecentSpending } from "./spending.js";
import type { Customer, Order, OrderFilter, OrderItem, Page, ProviderRail } from "./types.js";

/**
 * What the bot may ask of the orders engine (engine.ts implements it): the calls, what they take
 * and answer, and the errors a quote is refused with. The order itself is types.ts.
 */

/** What a flow hands to `quote`. */
export interface QuoteInput {
  /** UUID v4 chosen once per customer intent (in a flow: kept in its record, reused on Retry). */
  orderId: string;
  item: OrderItem;
  customer: Customer;
  /**
   * The chat message the caller will turn into the order's card (a flow edits its last question
   * into it): recorded with the order, so the card's later updates edit it. The caller shows the
   * quoted card itself; a different message shown instead is recorded with `setCardMessage`.
   */
  cardMessageId?: number;
}

/**
 * `quote` refused before anything was written or sent to the reseller: the customer already holds
 * `max` unpaid quotes (MAX_OPEN_QUOTES). `open` are those quotes, oldest first, to pay or cancel.
 */
export class OpenQuotesLimitError extends Error {
  constructor(
    readonly max: number,
    readonly open: Order[],
  ) {
    super(`the customer already holds ${max} unpaid quotes`);
    this.name = "OpenQuotesLimitError";
  }
}

/** `quote` refused before anything was written: the operators switched this product off (/prices). */
export class ProductUnavailableError extends Error {
  constructor(readonly kind: ProductKind) {
    super(`product ${kind} is switched off`);
    this.name = "ProductUnavailableError";
  }
}

export type PayCheck =
  | { ok: true; order: Order }
  | {
      ok: false;
      reason: "not_found" | "not_quoted" | "expired" | "wrong_user" | "wrong_amount";
      order?: Order;
    };

export interface PaymentReceipt {
  userId: number;
  currency: "XTR" | "RUB";
  totalAmount: number;
  /** The payment's id, unique across rails (see Order.telegramChargeId). */
  telegramChargeId: string;
  providerChargeId?: string;
  /** Absent for Telegram payments: `stars` for XTR, `invoice` for RUB. */
  rail?: Rail;
}

/** The link to a provider's payment page for an order, or why there is none (OrdersApi.startPayment). */
export type StartPaymentResult =
  | { ok: true; url: string; paymentId: string }
  | {
      ok: false;
      reason: "not_found" | "wrong_user" | "expired" | "not_quoted" | "unavailable" | "busy";
      order?: Order;
    };

/** A payment from the wallet, or why it was not made (OrdersApi.payFromWallet). */
export type WalletPayResult =
  | { ok: true; order: Order; balanceKopecks: number }
  | {
      ok: false;
      reason: "not_found" | "wrong_user" | "expired" | "not_quoted" | "insufficient" | "unavailable";
      order?: Order;
      /** The balance when it did not cover the price. */
      balanceKopecks?: number;
    };

/** What the bot may ask of the orders engine. */
export interface OrdersApi {
  /** Wallet top-ups (src/wallet/topups.ts), when CHECKOUT offers the wallet. */
  readonly topups?: TopUps;
  /** The operators' live prices and products (/prices): markups, minimum margin, rounding, products on and off. */
  readonly prices?: PriceSettingsStore;
  /** The shop's promo codes (/promo). */
  readonly promos?: PromoStore;
  /** Applies a customer's promo code to their quoted order (re-priced; see promo-checkout.ts). */
  applyPromo?(orderId: string, userId: number, code: string): Promise<PromoApplied>;
  /**
   * Persists the order (as `draft`) under `orderId`, then calls `create`; returns it `quoted` with prices.
   * Repeating it with the same orderId never makes a second order. Throws ResellerValidationError
   * (bad input), ResellerApiError (the reseller refused or is unreachable; `transient` says whether a retry may work)
   * or OpenQuotesLimitError (the customer holds MAX_OPEN_QUOTES unpaid quotes already; no `create` was sent)
   * or ProductUnavailableError (the operators switched the product off; nothing was written).
   */
  quote(input: QuoteInput): Promise<Order>;
  get(orderId: string): Promise<Order | null>;
  /**
   * The order as this process last wrote or read it when that copy is an unpaid quote, else read
   * now. Enough to show an invoice: the pre-checkout reads the order afresh before any payment.
   */
  quoted(orderId: string): Promise<Order | null>;
  setCardMessage(orderId: string, messageId: number): Promise<void>;
  /** For pre_checkout_query: still quoted, unexpired, this user's, same currency and amount. */
  checkPayable(
    orderId: string,
    expect: { userId: number; currency: "XTR" | "RUB"; totalAmount: number },
  ): Promise<PayCheck>;
  /**
   * For successful_payment: marks the order paid and queues `pay`. Idempotent per charge id;
   * a second, different payment for the same order is refunded (Stars) or flagged to operators.
   */
  markPaid(
    orderId: string,
    receipt: PaymentReceipt,
    how?: {
      /**
       * The caller answers the payment in the chat with the order card: `pay` (run at once in this
       * process) leaves the card update of `pending` to that answer (see `paymentAnswer`).
       */
      answered?: boolean;
    },
  ): Promise<{ outcome: "paid" | "duplicate" | "refunded_extra"; order: Order | null }>;
  /**
   * For a payment recorded with `answered`: the order once `pay` went through (`pending`, its card
   * for the answer to show), waiting at most `maxMs`; undefined when it did not within that time
   * (show the paid order: the next change queues its card update as always).
   */
  paymentAnswer(orderId: string, maxMs: number): Promise<Order | undefined>;
  /**
   * The customer's tap on a YooKassa or Crypto Pay button: the payment page's link, made once per
   * order and rail (a second tap gets the same link; `busy` while the first is still being made).
   * Throws the provider's error when the page could not be made.
   */
  startPayment(input: {
    orderId: string;
    userId: number;
    rail: ProviderRail;
    description: string;
  }): Promise<StartPaymentResult>;
  /**
   * The customer's tap on "Pay from wallet": debits the price once (a double tap debits once) and
   * marks the order paid. `insufficient` comes with the balance; nothing was debited.
   */
  payFromWallet(orderId: string, userId: number): Promise<WalletPayResult>;
  /** CHECKOUT=direct: confirm a quote (queues `pay`). `won` is false when it was already confirmed or is no longer quoted. */
  confirm(orderId: string, userId: number): Promise<{ won: boolean; order: Order | null }>;
  /** Cancels a quote the customer abandoned. */
  cancel(orderId: string, userId: number): Promise<{ won: boolean; order: Order | null }>;
  listByChat(chatId: number, offset: number, limit: number): Promise<Page<Order>>;
  listAll(filter: OrderFilter, offset: number, limit: number): Promise<Page<Order>>;
  /** Reads the order from the reseller now and applies what it says. */
  recheck(orderId: string): Promise<Order | null>;
  /** Queues the customer's final notification again (operator action). */
  resendFinal(orderId: string): Promise<boolean>;
  /** Marks a provider-paid order refunded by hand (operator action). */
  markRefunded(orderId: string): Promise<boolean>;
  /** Ids of orders whose id starts with `prefix` (lower-case), at most `max` of them (an operator's `/order #ref`). */
  findIdsByPrefix(prefix: string, max: number): Promise<string[]>;
  /** Orders created between two times (ms, inclusive), for statistics. */
  createdBetween(from: number, to: number): Promise<Order[]>;
  /**
   * The same orders, Redis and the archive, in chunks of a few hundred records, so a long period
   * never sits in memory whole (an operator's export; see period-orders.ts).
   */
  streamCreatedBetween(from: number, to: number): AsyncIterable<Order[]>;
  /** The deposit spent by `pay` today and the 6 days before (UTC), for the runway forecast (spending.ts). */
  recentSpending(): Promise<RecentSpending>;
  /**
   * Orders that left Redis for the archive whose id starts with `prefix` (lower-case), at most
   * `max` (an operator opening an archived order). Absent when there is no archive.
   */
  findArchived?(prefix: string, max: number): Promise<Order[]>;
}
