import type { Locale, ProductKind, Rail } from "../config.js";
import type { OrderPromo } from "../promo/types.js";
import type { ResellerProduct } from "../reseller/types.js";
import type { TopUp } from "../wallet/topup.js";

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
  /** The reseller has not answered two periodic deposit checks in a row (paid orders wait for `pay`). */
  | "reseller_down"
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
  /**
   * Tell a customer what became of a second payment for an order paid already (its refund made,
   * or left to the operators): one made outside the chat, which nothing else answered.
   */
  extraPayment?(order: Order, charge: ExtraCharge): Promise<void>;
  /** Tell a customer their wallet was topped up (a provider payment of a top-up). */
  topUpCredited?(topup: TopUp, balanceKopecks: number): Promise<void>;
  /** Whether a send failed because the chat cannot be written to (blocked, deleted): tried again much later. */
  unreachable?(err: unknown): boolean;
  /** Whether a send failed because Telegram refused the call itself (a bad request): repeating it soon changes nothing. */
  refused?(err: unknown): boolean;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** Operator list filters. `attention` = rejected, stuck, or a refund needed. */
export type OrderFilter = "all" | "pending" | "delivered" | "failed" | "attention";
