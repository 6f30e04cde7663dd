import type { RedisClient } from "../redis/connect.js";
import type { ReplicaWait } from "../redis/replica-wait.js";
import { defineScripts } from "../redis/scripts.js";
import { type WalletKeys, walletKeys } from "./keys.js";
import {
  MAX_BALANCE_KOPECKS,
  type WalletAdjustment,
  type WalletEntry,
  WalletInputError,
  type WalletMove,
  type WalletPage,
  type WalletResult,
  walletEntrySchema,
} from "./types.js";
import { amountProblems, moveProblems, userIdProblems } from "./validate.js";
import { verifyLedger } from "./verify.js";

export * from "./types.js";
export { verifyLedger } from "./verify.js";

/**
 * The customers' wallets: a ledger per Telegram user in Redis (layout in keys.ts). Every credit
 * and debit is one entry with its reason, written in one Lua step with the balance, so the
 * balance never goes below zero and always equals the sum of the entries.
 *
 * Interface for the bot and the orders engine (amounts are integers in kopecks throughout):
 *
 *   const wallet = new WalletLedger(redis, config.redisPrefix, { replicaWait });
 *   await wallet.credit(userId, { amountKopecks, reason: "topup", ref: `topup:${paymentId}`, paymentRef: paymentId });
 *   await wallet.debit(userId, { amountKopecks, reason: "order", ref: `order:${orderId}`, orderId });
 *   await wallet.credit(userId, { amountKopecks, reason: "refund", ref: `refund:${orderId}`, orderId });
 *   await wallet.credit(referrerId, { amountKopecks, reason: "referral", ref: `referral:${orderId}`, orderId });
 *   await wallet.adjust(userId, { amountKopecks: -5000, note: "duplicate top-up", by: operatorId, ref: `adjust:${uuid}` });
 *   await wallet.balance(userId);                         // kopecks, 0 for a wallet never used
 *   await wallet.entries(userId, { offset: 0, limit: 10 }); // newest first, with total and balance
 *   await wallet.entryByRef(userId, `order:${orderId}`);  // the entry an operation made, or null
 *   await wallet.audit(userId);                           // all entries checked against the balance
 *
 * `credit`, `debit` and `adjust` answer with a {@link WalletResult}: `ok: true` with
 * `applied: true` when written now, `applied: false` when the same `ref` was applied before (a
 * retry, a double tap, a redo after a crash: the original entry is returned and nothing is
 * written again), or `ok: false` with a refusal (`insufficient`, `ref_conflict`,
 * `balance_limit`) that changed nothing. So an order paid from the wallet is debited with
 * `ref: order:<id>` before it is marked paid, and the same call is simply made again on a retry.
 * Bad arguments (an amount of 0, negative, fractional or above 10^12 kopecks; a missing ref,
 * orderId for orders and refunds, note or operator id for adjustments) throw
 * {@link WalletInputError} naming every problem, before anything reaches Redis.
 */
export class WalletLedger {
  /** The key layout, for tests and tools that inspect Redis. */
  readonly keys: WalletKeys;
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;
  private readonly now: () => number;
  private readonly replicaWait: ReplicaWait | undefined;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    opts: {
      now?: () => number;
      /** Sentinel or Cluster: a written (or repeated) operation waits for a replica before it is answered. */
      replicaWait?: ReplicaWait;
    } = {},
  ) {
    this.keys = walletKeys(prefix);
    this.now = opts.now ?? Date.now;
    this.replicaWait = opts.replicaWait;
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  /** Adds money to a wallet (top-up, refund, referral, adjustment). */
  credit(userId: number, move: WalletMove): Promise<WalletResult> {
    return this.apply(userId, move, 1);
  }

  /** Takes money from a wallet (order, adjustment); refused as `insufficient` beyond the balance. */
  debit(userId: number, move: WalletMove): Promise<WalletResult> {
    return this.apply(userId, move, -1);
  }

  /** An operator's correction: credits a positive amount, debits a negative one (never below zero). */
  async adjust(userId: number, adj: WalletAdjustment): Promise<WalletResult> {
    const amount = adj.amountKopecks;
    if (typeof amount !== "number" || amount === 0) {
      throw new WalletInputError([
        ...userIdProblems(userId),
        `amountKopecks must be a non-zero whole number of kopecks (got ${String(amount)})`,
      ]);
    }
    const move: WalletMove = {
      amountKopecks: Math.abs(amount),
      reason: "adjustment",
      ref: adj.ref,
      note: adj.note,
      by: adj.by,
    };
    return amount > 0 ? this.credit(userId, move) : this.debit(userId, move);
  }

  /** The balance in kopecks (0 for a wallet never used). */
  async balance(userId: number): Promise<number> {
    this.checkUser(userId);
    return Number((await this.redis.hget(this.keys.wallet(userId), "balance")) ?? 0);
  }

  /** A page of entries, newest first, with the total count and the balance read in the same step. */
  async entries(userId: number, page: { offset?: number; limit?: number } = {}): Promise<WalletPage> {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? 10;
    const problems = userIdProblems(userId);
    if (!Number.isSafeInteger(offset) || offset < 0)
      problems.push(`offset must be 0 or more (got ${offset})`);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) {
      problems.push(`limit must be from 1 to 100 (got ${limit})`);
    }
    if (problems.length > 0) throw new WalletInputError(problems);
    const res = await this.redis
      .multi()
      .lrange(this.keys.entries(userId), offset, offset + limit - 1)
      .llen(this.keys.entries(userId))
      .hget(this.keys.wallet(userId), "balance")
      .exec();
    const [items, total, balance] = results(res);
    return {
      entries: (items as string[]).map(parseEntry),
      total: Number(total),
      balanceKopecks: Number(balance ?? 0),
    };
  }

  /**
   * The entry an operation made, by its ref, or null when none was applied: how a process that
   * restarts between debiting an order and recording the payment finds out the debit happened.
   */
  async entryByRef(userId: number, ref: string): Promise<WalletEntry | null> {
    this.checkUser(userId);
    const json = await this.redis.hget(this.keys.refs(userId), ref);
    return json === null ? null : parseEntry(json);
  }

  /**
   * Every entry (oldest first) and the balance, read in one step and checked with
   * {@link verifyLedger}; `problems` is empty when the ledger holds.
   */
  async audit(
    userId: number,
  ): Promise<{ entries: WalletEntry[]; balanceKopecks: number; problems: string[] }> {
    this.checkUser(userId);
    const res = await this.redis
      .multi()
      .lrange(this.keys.entries(userId), 0, -1)
      .hget(this.keys.wallet(userId), "balance")
      .exec();
    const [items, balance] = results(res);
    const entries = (items as string[]).map(parseEntry).reverse();
    const balanceKopecks = Number(balance ?? 0);
    return { entries, balanceKopecks, problems: verifyLedger(entries, balanceKopecks) };
  }

  private async apply(userId: number, move: WalletMove, direction: 1 | -1): Promise<WalletResult> {
    const problems = moveProblems(userId, move, direction);
    if (problems.length > 0) throw new WalletInputError(problems);
    const signed = direction * move.amountKopecks;
    // Field order of the stored entry after id, seq and balanceAfter (which the script adds).
    const body = JSON.stringify({
      at: this.now(),
      amountKopecks: signed,
      reason: move.reason,
      ref: move.ref,
      orderId: move.orderId,
      paymentRef: move.paymentRef,
      note: move.note,
      by: move.by,
    });
    const wallet = this.keys.wallet(userId);
    const reply = (await this.scripts["apply-3"](
      wallet,
      this.keys.entries(userId),
      this.keys.refs(userId),
      move.ref,
      String(signed),
      move.reason,
      `${userId}:`,
      body,
      String(MAX_BALANCE_KOPECKS),
    )) as [string, number, string];
    const [status, balanceKopecks, entry] = reply;
    switch (status) {
      case "applied":
      case "repeat":
        await this.replicaWait?.after(wallet);
        return { ok: true, applied: status === "applied", balanceKopecks, entry: parseEntry(entry) };
      case "insufficient":
        return { ok: false, refusal: "insufficient", balanceKopecks };
      case "conflict":
        return { ok: false, refusal: "ref_conflict", balanceKopecks, entry: parseEntry(entry) };
      case "limit":
        return { ok: false, refusal: "balance_limit", balanceKopecks };
      default:
        throw new Error(`wallet: unexpected reply from the apply script: ${String(status)}`);
    }
  }

  private checkUser(userId: number): void {
    const problems = userIdProblems(userId);
    if (problems.length > 0) throw new WalletInputError(problems);
  }
}

const SCRIPTS = ["apply-3"] as const;

function parseEntry(json: string): WalletEntry {
  return walletEntrySchema.parse(JSON.parse(json));
}

/** The replies of a MULTI, throwing the first error (a MULTI discarded by Redis answers null). */
function results(res: [Error | null, unknown][] | null): unknown[] {
  if (!res) throw new Error("wallet: Redis discarded the read");
  return res.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** Re-exported for callers that check an amount typed by a person before offering to apply it. */
export { amountProblems };
