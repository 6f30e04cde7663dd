import type { Locale, ProductKind, Rail } from "../config.js";
import type { PromoStore } from "../promo/store.js";
import type { OrderPromo } from "../promo/types.js";
import type { ResellerProduct } from "../reseller/types.js";
import type { TopUp } from "../wallet/topup.js";
import type { TopUps } from "../wallet/topups.js";
import type { PriceSettingsStore } from "./price-settings.js";
import type { PromoApplied } from "./promo-checkout.js";
import type { RecentSpending } from "./spending.js";

/**
 * Order states (DESIGN.md). `draft` is internal: the record exists (its custom_id is fixed)
 * but `create` has not answered yet; a retried quote reuses it.
 */
export const ORDER_STATES = [
  "draft",
  "quoted",
  "paid",
  "pending",
  "delivered",
  "failed",
  "rejected",
  "expired",
  "cancelled",
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export const FINAL_STATES: readonly OrderState[] = [
  "delivered",
  "failed",
  "rejected",
  "expired",
  "cancelled",
];

export type RefundState = "none" | "done" | "needed";

/** How the customer pays: Telegram Stars, a provider invoice in roubles, or not at all (`direct`). */
export type PaymentCurrency = "XTR" | "RUB" | "NONE";

/** What the customer is buying, in the form `create` needs plus a label for cards. */
export interface OrderItem {
  kind: ProductKind;
  product: ResellerProduct;
  /** Telegram username without "@" (or the game-platform login for steam). */
  recipient?: string;
  quantity?: number;
  giftId?: string;
  code?: string;
  productRef?: string;
  fields?: Record<string, string>;
  /** Human label fixed at quote time, e.g. "PUBG Mobile · Global · 60 UC" or a gift's emoji. */
  title?: string;
  emoji?: string;
  /** Game and region keys for game orders (for the card and operator views). */
  game?: string;
  region?: string;
}

export interface Customer {
  userId: number;
  chatId: number;
  username?: string;
  firstName?: string;
  locale: Locale;
}

export interface Order {
  /** custom_id: UUID v4, written before `create` is called. */
  id: string;
  state: OrderState;
  item: OrderItem;
  customer: Customer;
  /** Wholesale price fixed by `create`, kopecks. */
  wholesaleKopecks?: number;
  /** What the pay call reported as charged, kopecks. */
  chargedKopecks?: number;
  /** Customer price in roubles (kopecks, whole roubles by the markup rule). */
  priceKopecks?: number;
  /**
   * How the customer pays and the total in that currency's smallest unit (stars, kopecks): until
   * the order is paid, the first rail offered; once paid, what was actually paid.
   */
  currency: PaymentCurrency;
  amount?: number;
  /** The price in Telegram Stars (set at quote time when `stars` is offered). */
  starsAmount?: number;
  /** The rail the order was paid on (absent before payment; old orders: derived from `currency`). */
  rail?: Rail;
  /**
   * The payment's id, unique across rails: Telegram's charge id for Stars and provider invoices,
   * `yookassa:<payment id>`, `cryptopay:<invoice id>`, `wallet:<order id>`.
   */
  telegramChargeId?: string;
  /** The payment's id at the provider (Telegram's provider charge id, a YooKassa payment id, a Crypto Pay invoice id). */
  providerChargeId?: string;
  /** The promo code applied while the order was quoted: `priceKopecks` is the price after it. */
  promo?: OrderPromo;
  /** Payments started at YooKassa or Crypto Pay for this order (links shown to the customer). */
  payments?: ProviderPayment[];
  /**
   * A payment page being made right now (one tap at a time); a stale one means a try that never
   * recorded its answer, a `failed` one a try whose provider call failed (the next tap may retry at once).
   */
  paymentStart?: { rail: ProviderRail; at: number; failed?: boolean };
  /**
   * A failed or rejected order paid on a rail that cannot give money back itself (a Telegram
   * provider invoice, Crypto Pay) is credited to the wallet when the shop offered one at payment time.
   */
  refundToWallet?: boolean;
  /** What the refund did at the provider (a YooKassa refund id), for tracing. */
  refundRef?: string;
  /** Payments received for an order that was already paid (refunded for Stars, flagged for providers). */
  extraCharges?: ExtraCharge[];
  /** Last status read from the reseller. */
  resellerStatus?: string;
  deliveredPayload?: Record<string, unknown>;
  errorMessage?: string;
  /** Why `pay` was refused (a ResellerApiError kind, e.g. "insufficient_funds"), and the deposit then. */
  rejectReason?: string;
  rejectBalanceRub?: number;
  refund: RefundState;
  /** Chat message id of the order's status card. */
  cardMessageId?: number;
  /** Flagged when pending longer than TRACKING_TIMEOUT_HOURS. */
  stuck: boolean;
  /** When the one final message went out. */
  finalNotifiedAt?: number;
  createdAt: number;
  updatedAt: number;
  /** Quote expiry (ms since epoch), set when quoted. */
  expiresAt?: number;
  /** ms since epoch of each state the order entered. */
  times: Partial<Record<OrderState, number>>;
}

export interface ExtraCharge {
  telegramChargeId: string;
  providerChargeId?: string;
  currency: "XTR" | "RUB";
  amount: number;
  refund: RefundState;
  /** What the refund did at the provider (a YooKassa refund id), for tracing. */
  refundRef?: string;
  /** The rail of this payment (absent on old records: Stars for XTR, a provider invoice for RUB). */
  rail?: Rail;
  refundToWallet?: boolean;
}

/** Rails whose payment is a link to the provider's page. */
export type ProviderRail = "yookassa" | "cryptopay";

/** A payment started at a provider for an order: its id there and the page the customer pays on. */
export interface ProviderPayment {
  rail: ProviderRail;
  id: string;
  url: string;
  createdAt: number;
  /** Set once the provider says it is over: paid (recorded as the order's payment or an extra) or cancelled. */
  settled?: "paid" | "cancelled";
}

/** Operator alerts raised by the engine; the Notifier delivers them to every operator. */
export type AlertKind =
  | "delivery_failed"
  | "pay_rejected"
  | "low_balance"
  | "stuck"
  | "refund_needed"
  | "reseller_auth"
  | "duplicate_payment"
  /** A product kind paused because the deposit cannot cover its price, and resumed once it can. */
  | "product_paused"
  | "product_resumed";

export interface OperatorAlert {
  kind: AlertKind;
  orderId?: string;
  /** Reason text, balance, etc. */
  details: Record<string, string | number | null>;
}

/**
 * How the orders engine reaches Telegram. Implemented by the bot; the engine never imports grammY.
 * Every method may be called again after a crash for the same order (at-least-once), so it must
 * be safe to repeat; the engine records what was done and normally calls each once.
 */
export interface Notifier {
  /** Edit the order's status card (or send one when it has none) to show its current state. Returns the card's message id. */
  updateCard(order: Order): Promise<number | undefined>;
  /** Send the one final message of a delivered, failed or rejected order. */
  sendFinal(order: Order): Promise<void>;
  /** Refund a Telegram Stars payment. */
  refundStars(userId: number, telegramChargeId: string): Promise<void>;
  /** Tell every operator. */
  alert(alert: OperatorAlert, order?: Order): Promise<void>;
  /** Tell a referrer their wallet was credited `amountKopecks` for a friend's delivered order. */
  referralCredited?(referrerId: number, amountKopecks: number, balanceKopecks: number): Promise<void>;
  /** Tell a customer their wallet was topped up (a provider payment of a top-up). */
  topUpCredited?(topup: TopUp, balanceKopecks: number): Promise<void>;
}

/** What a flow hands to `quote`. */
export interface QuoteInput {
  /** UUID v4 chosen once per customer intent (in a conversation: through conversation.external). */
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

export interface Page<T> {
  items: T[];
  total: number;
}

/** Operator list filters. `attention` = rejected, stuck, or a refund needed. */
export type OrderFilter = "all" | "pending" | "delivered" | "failed" | "attention";

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
