import type { PaymentReceipt, WalletPayResult } from "./api.js";
import { markPaid } from "./checkout.js";
import type { EngineContext } from "./context.js";
import { encodeJob } from "./jobs.js";
import { isQuoteExpired } from "./lifecycle.js";
import type { Order } from "./types.js";

/**
 * Paying an order from the customer's wallet: one tap. The debit (ref `order:<id>`, so a double
 * tap or a retry debits once) and the order's payment are two writes; a settle job scheduled
 * before the debit finishes the payment if the process dies between them, and the payment's
 * write cancels that job.
 */

/** How long after a wallet tap the settle job looks whether the order was marked paid. */
export const WALLET_SETTLE_DELAY_MS = 15_000;

export type { WalletPayResult };

function walletReceipt(order: Order, amountKopecks: number): PaymentReceipt {
  return {
    userId: order.customer.userId,
    currency: "RUB",
    totalAmount: amountKopecks,
    telegramChargeId: `wallet:${order.id}`,
    rail: "wallet",
  };
}

export async function payFromWallet(
  ctx: EngineContext,
  orderId: string,
  userId: number,
): Promise<WalletPayResult> {
  const wallet = ctx.wallet;
  const order = await ctx.store.get(orderId);
  if (!order) return { ok: false, reason: "not_found" };
  if (order.customer.userId !== userId) return { ok: false, reason: "wrong_user", order };
  if (!wallet || !ctx.config.checkout.includes("wallet")) return { ok: false, reason: "unavailable", order };
  // The same tap seen again after it went through.
  if (order.telegramChargeId === `wallet:${order.id}`) {
    return { ok: true, order, balanceKopecks: await wallet.balance(userId) };
  }
  if (isQuoteExpired(order, ctx.now())) return { ok: false, reason: "expired", order };
  if (order.state !== "quoted" || order.priceKopecks === undefined)
    return { ok: false, reason: "not_quoted", order };

  await ctx.store.jobs.schedule(encodeJob({ type: "wsettle", orderId }), ctx.now() + WALLET_SETTLE_DELAY_MS);
  const debit = await wallet.debit(userId, {
    amountKopecks: order.priceKopecks,
    reason: "order",
    ref: `order:${orderId}`,
    orderId,
  });
  if (!debit.ok) {
    return {
      ok: false,
      reason: debit.refusal === "insufficient" ? "insufficient" : "unavailable",
      order,
      balanceKopecks: debit.balanceKopecks,
    };
  }
  const paid = await markPaid(ctx, orderId, walletReceipt(order, -debit.entry.amountKopecks));
  return { ok: true, order: paid.order ?? order, balanceKopecks: debit.balanceKopecks };
}

/** The settle job: a debit for this order that the order does not know yet becomes its payment. */
export async function settleWalletPayment(ctx: EngineContext, order: Order): Promise<void> {
  if (!ctx.wallet) return;
  const chargeId = `wallet:${order.id}`;
  const known =
    order.telegramChargeId === chargeId ||
    (order.extraCharges ?? []).some((c) => c.telegramChargeId === chargeId);
  if (known) return;
  const entry = await ctx.wallet.entryByRef(order.customer.userId, `order:${order.id}`);
  if (!entry) return;
  ctx.log.warn({ orderId: order.id }, "a wallet debit without its payment record: recording it now");
  await markPaid(ctx, order.id, walletReceipt(order, -entry.amountKopecks));
}
