import type { ProviderRail } from "../orders/types.js";

/**
 * A payment provider as the checkout sees it: make a payment page for an order or a wallet
 * top-up, re-read a payment (the source of truth: notifications are only hints), and give money
 * back where the provider can. One adapter per provider (yookassa/gateway.ts, cryptopay/gateway.ts).
 */

/** What a payment pays for: an order (its custom_id) or a wallet top-up (its id). */
export interface PaymentSubject {
  kind: "order" | "topup";
  id: string;
}

export interface NewPayment {
  subject: PaymentSubject;
  amountKopecks: number;
  /** Shown on the provider's page. */
  description: string;
  /** When the quote (or top-up offer) ends: the provider's page should not outlive it. */
  expiresAt: number;
  /** 0 for the first payment of a subject, then 1, 2, … (a new payment after one was cancelled). */
  attempt: number;
  /** An earlier try of this attempt never recorded its answer (a crash, a lost reply): find that payment first. */
  recover?: boolean;
}

/** A provider's payment as re-read from the provider. */
export interface PaymentStatus {
  rail: ProviderRail;
  id: string;
  /** `paid`: the money is the shop's; `cancelled`: it will never be paid; `open`: still payable. */
  status: "open" | "paid" | "cancelled";
  /** What it pays for, from the metadata or payload the bot attached (null: not the bot's payment). */
  subject: PaymentSubject | null;
  /** The amount in kopecks when it is a rouble amount (null otherwise). */
  amountKopecks: number | null;
  /** Where the customer pays, while open. */
  url: string | null;
  /** What was paid with, for the order's record (e.g. "bank_card", "USDT 1.52"). */
  detail?: string;
}

export interface PaymentGateway {
  readonly rail: ProviderRail;
  /**
   * Makes the payment page, or finds the one made before for the same subject and attempt (a
   * double tap, a retry after a lost answer, a restart): never two payable pages for one attempt.
   */
  create(p: NewPayment): Promise<{ id: string; url: string }>;
  /** Re-reads payments by id; ids the provider does not know are left out. */
  read(ids: string[]): Promise<PaymentStatus[]>;
  /**
   * Gives a paid payment's money back (at most once per `key`). Absent when the provider has no
   * refunds the bot can make (Crypto Pay): such payments go to the wallet or to the operators.
   */
  refund?(
    paymentId: string,
    amountKopecks: number,
    key: string,
  ): Promise<{ refundId: string; done: boolean }>;
  /**
   * Whether a refund that was not done at once has gone through since: true when it has, false
   * while it is still pending; throws when the provider refused it.
   */
  refundSettled?(refundId: string): Promise<boolean>;
}

export type PaymentGateways = Partial<Record<ProviderRail, PaymentGateway>>;
