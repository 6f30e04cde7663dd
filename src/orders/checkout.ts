import { sendAlert } from "./alerts.js";
import type { PayCheck, PaymentReceipt } from "./api.js";
import { type EngineContext, noteTransition, transition } from "./context.js";
import type { Effect } from "./effects.js";
import { encodeJob } from "./jobs.js";
import {
  alertMessage,
  at,
  enter,
  extraPaymentMessage,
  isQuoteExpired,
  jobsFor,
  PAYABLE_STATES,
} from "./lifecycle.js";
import { railOf, refundRoute, refundsAutomatically } from "./rails.js";
import type { Order, OrderState } from "./types.js";

/**
 * The customer's side of an order after the quote (quote.ts): the pre-checkout check, the
 * payment, direct-checkout confirmation and cancellation.
 */

/** The order's price in a currency's smallest unit (Stars, kopecks); undefined before the quote. */
export function priceIn(order: Order, currency: "XTR" | "RUB"): number | undefined {
  if (currency === "RUB") return order.priceKopecks;
  return order.starsAmount ?? (order.currency === "XTR" ? order.amount : undefined);
}

export async function checkPayable(
  ctx: EngineContext,
  orderId: string,
  expect: { userId: number; currency: "XTR" | "RUB"; totalAmount: number },
): Promise<PayCheck> {
  const order = await ctx.store.get(orderId);
  if (!order) return { ok: false, reason: "not_found" };
  if (order.customer.userId !== expect.userId) return { ok: false, reason: "wrong_user", order };
  if (isQuoteExpired(order, ctx.now())) return { ok: false, reason: "expired", order };
  if (order.state !== "quoted") return { ok: false, reason: "not_quoted", order };
  if (priceIn(order, expect.currency) !== expect.totalAmount) {
    return { ok: false, reason: "wrong_amount", order };
  }
  return { ok: true, order };
}

type PaidOutcome = "paid" | "duplicate" | "refunded_extra";

/**
 * Records a customer's payment. The first payment of an order makes it `paid` (and queues
 * `pay`); the same payment seen again changes nothing; another payment for an order already
 * paid is kept as an extra charge and goes back to the customer (Stars) or to the operators.
 */
export async function markPaid(
  ctx: EngineContext,
  orderId: string,
  receipt: PaymentReceipt,
  how: { answered?: boolean } = {},
): Promise<{ outcome: PaidOutcome; order: Order | null }> {
  // Opened before the write: `pay` starts with it and may be done before this returns.
  if (how.answered) ctx.payAnswers.open(orderId);
  try {
    const res = await recordPayment(ctx, orderId, receipt);
    if (how.answered && res.outcome !== "paid") ctx.payAnswers.close(orderId);
    return res;
  } catch (err) {
    if (how.answered) ctx.payAnswers.close(orderId);
    throw err;
  }
}

async function recordPayment(
  ctx: EngineContext,
  orderId: string,
  receipt: PaymentReceipt,
): Promise<{ outcome: PaidOutcome; order: Order | null }> {
  const t = ctx.now();
  let outcome = "duplicate" as PaidOutcome;
  let prevState: OrderState | null = null;
  const rail = railOf({ rail: receipt.rail, currency: receipt.currency });
  // Rails the bot cannot refund itself credit the wallet instead, when the shop offers one.
  const refundToWallet =
    (rail === "invoice" || rail === "cryptopay") && ctx.config.checkout.includes("wallet") ? true : undefined;
  const res = await ctx.store.update(orderId, (order) => {
    const known =
      order.telegramChargeId === receipt.telegramChargeId ||
      (order.extraCharges ?? []).some((c) => c.telegramChargeId === receipt.telegramChargeId);
    if (known) {
      outcome = "duplicate";
      return null;
    }
    const payments = settlePayment(order.payments, rail, receipt.providerChargeId);
    if (PAYABLE_STATES.includes(order.state) && !order.telegramChargeId) {
      outcome = "paid";
      prevState = order.state;
      const next = enter(
        {
          ...order,
          currency: receipt.currency,
          amount: receipt.totalAmount,
          rail,
          refundToWallet,
          telegramChargeId: receipt.telegramChargeId,
          providerChargeId: receipt.providerChargeId,
          payments,
          paymentStart: undefined,
        },
        "paid",
        t,
      );
      const jobs = jobsFor(next, order.state, ctx.timing());
      if (rail === "wallet") jobs.push({ cancel: encodeJob({ type: "wsettle", orderId: order.id }) });
      return { next, jobs };
    }
    // The order was paid already: this second payment goes back to the customer.
    outcome = "refunded_extra";
    const extra = {
      telegramChargeId: receipt.telegramChargeId,
      providerChargeId: receipt.providerChargeId,
      currency: receipt.currency,
      amount: receipt.totalAmount,
      refund: "needed" as const,
      rail,
      refundToWallet,
    };
    const next: Order = { ...order, payments, extraCharges: [...(order.extraCharges ?? []), extra] };
    // A refund the bot makes tells the customer once it is made (handlers.ts); one left to the
    // operators is told now.
    const jobs: Effect[] = refundsAutomatically(refundRoute(extra))
      ? [at({ type: "xrefund", orderId: order.id, chargeId: receipt.telegramChargeId }, t)]
      : [
          alertMessage("duplicate_payment", order),
          ...extraPaymentMessage(next, next.extraCharges!.length - 1, false),
        ];
    if (rail === "wallet") jobs.push({ cancel: encodeJob({ type: "wsettle", orderId: order.id }) });
    return { next, jobs };
  });
  if (!res.order) {
    // A payment for an order we do not have: give Stars back at once and tell the operators.
    ctx.log.error({ orderId, currency: receipt.currency }, "payment received for an unknown order");
    if (receipt.currency === "XTR") {
      await ctx.notifier.refundStars(receipt.userId, receipt.telegramChargeId).catch((err) => {
        ctx.log.error({ err, orderId }, "refund of a payment for an unknown order failed");
      });
    }
    await sendAlert(ctx, { kind: "duplicate_payment", orderId, details: { reason: "unknown order" } });
    return { outcome: "refunded_extra", order: null };
  }
  // The write's jobs wake this process's worker (store.ts onEffects): no kick needed here.
  if (res.won && outcome === "paid") noteTransition(ctx, res.order, prevState);
  return { outcome, order: res.order };
}

/** The order's provider payments with the one just paid marked settled. */
function settlePayment(
  payments: Order["payments"],
  rail: string,
  providerId: string | undefined,
): Order["payments"] {
  if (!payments || providerId === undefined) return payments;
  return payments.map((p) =>
    p.rail === rail && p.id === providerId ? { ...p, settled: "paid" as const } : p,
  );
}

class NotAllowed extends Error {}

/** CHECKOUT=direct: the customer's Confirm takes the place of a payment. */
export async function confirm(
  ctx: EngineContext,
  orderId: string,
  userId: number,
): Promise<{ won: boolean; order: Order | null }> {
  const t = ctx.now();
  const res = await transition(ctx, orderId, ["quoted"], "paid", (order) => {
    if (order.customer.userId !== userId || isQuoteExpired(order, t)) throw new NotAllowed();
    return {};
  }).catch((err) => {
    if (err instanceof NotAllowed) return { won: false, order: null };
    throw err;
  });
  if (!res.order) return { won: false, order: await ctx.store.get(orderId) };
  return res;
}

export async function cancel(
  ctx: EngineContext,
  orderId: string,
  userId: number,
): Promise<{ won: boolean; order: Order | null }> {
  const order = await ctx.store.get(orderId);
  if (!order || order.customer.userId !== userId) return { won: false, order };
  const res = await transition(ctx, orderId, ["draft", "quoted"], "cancelled");
  return res.order ? res : { won: false, order };
}
