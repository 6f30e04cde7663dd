import type { Locale } from "../config.js";
import type { ProviderRail } from "../orders/types.js";

/**
 * A wallet top-up's record (kept in Redis by topups.ts) and the invoice payload that names it:
 * the amount a customer chose on a rail, the payments made for it, whether each is credited.
 */

export type TopUpRail = "stars" | "invoice" | ProviderRail;

export interface TopUpPayment {
  rail: TopUpRail;
  /** Telegram's charge id, YooKassa's payment id or Crypto Pay's invoice id. */
  id: string;
  /** The provider's page, while it may be paid. */
  url?: string;
  createdAt: number;
  settled?: "paid" | "cancelled";
  /** The wallet has the credit of this payment. */
  credited?: boolean;
  /** The customer was told of the credit. */
  notified?: boolean;
}

export interface TopUp {
  id: string;
  userId: number;
  chatId: number;
  locale: Locale;
  amountKopecks: number;
  rail: TopUpRail;
  state: "open" | "paid";
  payments: TopUpPayment[];
  /** A tap is making the invoice or the payment page (a second tap within the window waits). */
  paymentStart?: number;
  createdAt: number;
}

/** A second tap on the same button within this reuses the open top-up. */
export const TOP_UP_TAP_WINDOW_MS = 15 * 60_000;
/** How long a provider's page for a top-up stays payable. */
export const TOP_UP_OFFER_MS = 3600_000;
/** A tap making the invoice or page is trusted this long before another tap may retry it. */
export const TOP_UP_START_WINDOW_MS = 20_000;
/** First re-read of a new provider payment, and how long unsettled ones are polled. */
export const TOP_UP_POLL_FIRST_MS = 10_000;
export const TOP_UP_POLL_FOR_MS = 2 * 3600_000;
/** A top-up record outlives any late payment of it. */
export const TOP_UP_TTL_S = 90 * 24 * 3600;

const PAYLOAD = /^topup:([0-9a-f-]{36})$/;

/** The top-up id of an invoice payload `topup:<id>`; null for anything else. */
export function topUpIdOfPayload(payload: string): string | null {
  return PAYLOAD.exec(payload)?.[1] ?? null;
}

export function isTopUpPayload(payload: string): boolean {
  return payload.startsWith("topup:");
}

export type TopUpCheck =
  | { ok: true; topup: TopUp }
  | { ok: false; reason: "not_found" | "wrong_user" | "wrong_amount"; topup?: TopUp };

export type TopUpStart =
  | { ok: true; url: string; paymentId: string }
  | { ok: false; reason: "unavailable" | "busy" };

/** The top-up with `p` added or replacing the payment of the same rail and id; paid once any is. */
export function withPayment(t: TopUp, p: TopUpPayment): TopUp {
  const known = t.payments.some((x) => x.rail === p.rail && x.id === p.id);
  const payments = known
    ? t.payments.map((x) => (x.rail === p.rail && x.id === p.id ? p : x))
    : [...t.payments, p];
  return { ...t, payments, state: payments.some((x) => x.settled === "paid") ? "paid" : t.state };
}
