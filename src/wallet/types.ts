import { z } from "zod";

/** Why money moved. Credits: topup, refund, referral, adjustment. Debits: order, adjustment. */
export const WALLET_REASONS = ["topup", "order", "refund", "referral", "adjustment"] as const;
export type WalletReason = (typeof WALLET_REASONS)[number];

export const CREDIT_REASONS: readonly WalletReason[] = ["topup", "refund", "referral", "adjustment"];
export const DEBIT_REASONS: readonly WalletReason[] = ["order", "adjustment"];

/** One amount, one operation: at most this many kopecks (10 billion roubles). */
export const MAX_AMOUNT_KOPECKS = 1_000_000_000_000;
/** A credit that would take a balance above this is refused (well inside exact double range). */
export const MAX_BALANCE_KOPECKS = 10_000_000_000_000;

/** One line of a wallet's ledger, as stored. */
export const walletEntrySchema = z.object({
  /** `<userId>:<seq>`: unique across wallets, and the way an order or an operator cites it. */
  id: z.string(),
  /** 1 for the wallet's first entry, then 2, 3, …: the order entries were written in. */
  seq: z.number().int().positive(),
  /** When it was written (ms since the epoch). */
  at: z.number().int(),
  /** Signed: > 0 a credit, < 0 a debit. */
  amountKopecks: z.number().int(),
  /** The balance right after this entry. */
  balanceAfter: z.number().int(),
  reason: z.enum(WALLET_REASONS),
  /** The operation's unique reference (`order:<orderId>`, `topup:<paymentId>`, …). */
  ref: z.string(),
  orderId: z.string().optional(),
  /** The payment behind a top-up (a YooKassa payment id, a Crypto Pay invoice id, …). */
  paymentRef: z.string().optional(),
  /** Free text; required for operator adjustments. */
  note: z.string().optional(),
  /** The operator's Telegram user id, for adjustments. */
  by: z.number().int().optional(),
});
export type WalletEntry = z.infer<typeof walletEntrySchema>;

/** A credit or a debit as the caller asks for it. */
export interface WalletMove {
  /** A positive integer number of kopecks, at most {@link MAX_AMOUNT_KOPECKS}. */
  amountKopecks: number;
  reason: WalletReason;
  /**
   * Unique per operation and the same on every retry of it: `order:<orderId>`, `refund:<orderId>`,
   * `topup:<paymentId>`, `referral:<orderId>`, `adjust:<uuid made when the operator confirms>`.
   */
  ref: string;
  /** Required for `order` and `refund`. */
  orderId?: string;
  paymentRef?: string;
  /** Required for `adjustment`. */
  note?: string;
  /** The operator's user id; required for `adjustment`. */
  by?: number;
}

/** An operator's correction: a signed amount (> 0 credits, < 0 debits), a reason in words and who. */
export interface WalletAdjustment {
  amountKopecks: number;
  note: string;
  by: number;
  ref: string;
}

/**
 * What a credit or debit did.
 * - `ok: true, applied: true`: written now; `entry` is the new entry.
 * - `ok: true, applied: false`: the ref was applied before; `entry` is that original entry,
 *   nothing was written, `balanceKopecks` is the balance now.
 * - `insufficient`: a debit over the balance; nothing written.
 * - `ref_conflict`: the ref was used before for a different amount or reason (a caller's bug);
 *   nothing written, `entry` is the earlier one.
 * - `balance_limit`: a credit would take the balance over {@link MAX_BALANCE_KOPECKS}; nothing written.
 */
export type WalletResult =
  | { ok: true; applied: boolean; balanceKopecks: number; entry: WalletEntry }
  | { ok: false; refusal: "insufficient"; balanceKopecks: number }
  | { ok: false; refusal: "ref_conflict"; balanceKopecks: number; entry: WalletEntry }
  | { ok: false; refusal: "balance_limit"; balanceKopecks: number };

export interface WalletPage {
  /** Newest first. */
  entries: WalletEntry[];
  /** How many entries the wallet has in all. */
  total: number;
  balanceKopecks: number;
}

/** A bad argument: nothing was sent to Redis. `problems` names every bad field. */
export class WalletInputError extends Error {
  override readonly name = "WalletInputError";
  constructor(readonly problems: string[]) {
    super(`wallet: ${problems.join("; ")}`);
  }
}
