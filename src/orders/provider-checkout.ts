import type { PaymentStatus } from "../payments/gateway.js";
import type { PaymentReceipt, StartPaymentResult } from "./api.js";
import { markPaid } from "./checkout.js";
import type { EngineContext } from "./context.js";
import { backoff, Retry } from "./job-retry.js";
import { at, isQuoteExpired } from "./lifecycle.js";
import type { Order, ProviderPayment, ProviderRail } from "./types.js";

/**
 * Paying an order through a provider's page (YooKassa, Crypto Pay): the bot makes the payment
 * when the customer taps the rail's button, records it on the order before showing the link, and
 * learns the outcome by re-reading the payment (a notification only says when to look; a poll
 * job covers lost notifications). A payment that arrives after the quote expired still counts,
 * like a late Stars payment; a second paid payment for one order is given back or flagged.
 */

/** A tap that started making a payment page is trusted this long before another tap may retry it. */
export const PAYMENT_START_WINDOW_MS = 20_000;
/** First re-read of a new payment, and how long unsettled payments are polled after their creation (or after the quote ends, when later). */
export const PAYMENT_POLL_FIRST_MS = 10_000;
export const PAYMENT_POLL_FOR_MS = 2 * 3600_000;

export type StartResult = StartPaymentResult;

function openPayment(order: Order, rail: ProviderRail): ProviderPayment | undefined {
  return (order.payments ?? []).find((p) => p.rail === rail && !p.settled);
}

/**
 * The customer's tap on a provider rail: the link to pay on, made once per order and rail. A
 * second tap while the first is still making it answers `busy`; after a crash in that window the
 * next tap asks the gateway to find the payment made before creating another.
 */
export async function startProviderPayment(
  ctx: EngineContext,
  input: { orderId: string; userId: number; rail: ProviderRail; description: string },
): Promise<StartResult> {
  const { orderId, userId, rail } = input;
  const gateway = ctx.gateways[rail];
  const now = ctx.now();
  let recover = false;
  let attempt = 0;
  let reuse: ProviderPayment | undefined;
  let refusal: Extract<StartResult, { ok: false }>["reason"] | undefined;
  const claim = await ctx.store.update(orderId, (order) => {
    refusal = undefined;
    reuse = undefined;
    if (order.customer.userId !== userId) refusal = "wrong_user";
    else if (!gateway || !ctx.config.checkout.includes(rail)) refusal = "unavailable";
    else if (isQuoteExpired(order, now)) refusal = "expired";
    else if (order.state !== "quoted" || order.priceKopecks === undefined) refusal = "not_quoted";
    if (refusal) return null;
    reuse = openPayment(order, rail);
    if (reuse) return null;
    const started = order.paymentStart;
    if (started && started.rail === rail && !started.failed && now - started.at < PAYMENT_START_WINDOW_MS) {
      refusal = "busy";
      return null;
    }
    recover = started?.rail === rail;
    attempt = (order.payments ?? []).filter((p) => p.rail === rail).length;
    return { next: { ...order, paymentStart: { rail, at: now } }, jobs: [] };
  });
  const order = claim.order;
  if (!order) return { ok: false, reason: "not_found" };
  if (refusal) return { ok: false, reason: refusal, order };
  if (reuse) return { ok: true, url: reuse.url, paymentId: reuse.id };
  if (!claim.won || !gateway) return { ok: false, reason: "busy", order };

  let made: { id: string; url: string };
  try {
    made = await gateway.create({
      subject: { kind: "order", id: orderId },
      amountKopecks: order.priceKopecks ?? 0,
      description: input.description,
      expiresAt: order.expiresAt ?? now + 15 * 60_000,
      attempt,
      recover,
    });
  } catch (err) {
    // The claim stays, marked failed: the customer's next tap tries again at once and looks for a
    // payment this try may have made (the same Idempotence-Key at YooKassa) before making another.
    ctx.log.warn({ err, orderId, rail }, "payment page could not be made");
    await ctx.store
      .update(orderId, (o) =>
        o.paymentStart?.rail === rail && o.paymentStart.at === now && !o.paymentStart.failed
          ? { next: { ...o, paymentStart: { ...o.paymentStart, failed: true } }, jobs: [] }
          : null,
      )
      .catch((e) => ctx.log.warn({ err: e, orderId }, "failed payment start not recorded"));
    throw err;
  }
  const payment: ProviderPayment = { rail, id: made.id, url: made.url, createdAt: ctx.now() };
  await ctx.store.update(orderId, (o) => {
    const known = (o.payments ?? []).some((p) => p.rail === rail && p.id === made.id);
    return {
      next: {
        ...o,
        payments: known ? o.payments : [...(o.payments ?? []), payment],
        paymentStart: o.paymentStart?.rail === rail ? undefined : o.paymentStart,
      },
      jobs: [at({ type: "ppoll", orderId }, ctx.now() + PAYMENT_POLL_FIRST_MS)],
    };
  });
  ctx.log.info({ orderId, rail, paymentId: made.id }, "payment page made");
  return { ok: true, url: made.url, paymentId: made.id };
}

/** The receipt of a paid provider payment. */
function receiptOf(order: Order, status: PaymentStatus): PaymentReceipt {
  return {
    userId: order.customer.userId,
    currency: "RUB",
    totalAmount: status.amountKopecks ?? order.priceKopecks ?? 0,
    telegramChargeId: `${status.rail}:${status.id}`,
    providerChargeId: status.id,
    rail: status.rail,
  };
}

/**
 * How long after its quote's end a Crypto Pay invoice is still looked for: it expires with the
 * quote, and its paid notification or the poll may come a little later.
 */
const CRYPTOPAY_LATE_MS = 10 * 60_000;

/**
 * Until when an expired or cancelled order may still be paid on a provider's page opened for it
 * at the discounted amount: a YooKassa page as long as the poll job looks for it, a Crypto Pay
 * invoice shortly after the quote's end. Undefined when no page is open.
 */
export function payableUntil(order: Order): number | undefined {
  const open = (order.payments ?? []).filter((p) => !p.settled);
  if (open.length === 0) return undefined;
  const quoteEnd = order.expiresAt ?? 0;
  return Math.max(
    ...open.map((p) =>
      p.rail === "cryptopay"
        ? Math.max(p.createdAt, quoteEnd) + CRYPTOPAY_LATE_MS
        : Math.max(p.createdAt, quoteEnd) + PAYMENT_POLL_FOR_MS,
    ),
  );
}

/**
 * Applies what a provider says about an order's payment (re-read, never taken from a
 * notification's body): paid → the order's payment (or a second one, given back); cancelled →
 * the link is retired so a new tap makes a new payment. Returns the order after it.
 */
export async function applyOrderPayment(ctx: EngineContext, status: PaymentStatus): Promise<Order | null> {
  if (status.subject?.kind !== "order") return null;
  const orderId = status.subject.id;
  const order = await ctx.store.get(orderId);
  if (!order) {
    ctx.log.error(
      { orderId, rail: status.rail, paymentId: status.id },
      "a provider payment names an unknown order",
    );
    return null;
  }
  if (status.status === "paid") {
    if (status.amountKopecks === null) {
      ctx.log.error(
        { orderId, paymentId: status.id },
        "a paid provider payment not in roubles; left to the operators",
      );
    }
    const r = await markPaid(ctx, orderId, receiptOf(order, status));
    if (r.outcome !== "duplicate")
      ctx.log.info({ orderId, rail: status.rail, outcome: r.outcome }, "provider payment recorded");
    return r.order;
  }
  if (status.status === "cancelled") {
    const res = await ctx.store.update(orderId, (o) => {
      const p = (o.payments ?? []).find((x) => x.rail === status.rail && x.id === status.id);
      if (!p || p.settled) return null;
      const next = {
        ...o,
        payments: (o.payments ?? []).map((x) => (x === p ? { ...x, settled: "cancelled" as const } : x)),
      };
      // The last open page of an order that ended unpaid: its promo code's use comes back now.
      const ended = next.state === "expired" || next.state === "cancelled";
      const release = ended && next.promo !== undefined && payableUntil(next) === undefined;
      return { next, jobs: release ? [at({ type: "prelease", orderId }, ctx.now())] : [] };
    });
    return res.order;
  }
  return order;
}

/** A provider's notification: re-read the payment it names, then apply what the provider says. */
export async function onPaymentHint(
  ctx: EngineContext,
  rail: ProviderRail,
  paymentId: string,
): Promise<PaymentStatus | null> {
  const gateway = ctx.gateways[rail];
  if (!gateway) return null;
  const [status] = await gateway.read([paymentId]);
  if (!status) return null;
  await applyOrderPayment(ctx, status);
  return status;
}

/** The poll job: re-reads an order's unsettled provider payments until they settle or grow old. */
export async function pollProviderPayments(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  const open = (order.payments ?? []).filter((p) => !p.settled);
  if (open.length === 0) return;
  for (const rail of new Set(open.map((p) => p.rail))) {
    const gateway = ctx.gateways[rail];
    if (!gateway) continue;
    try {
      const statuses = await gateway.read(open.filter((p) => p.rail === rail).map((p) => p.id));
      for (const status of statuses) await applyOrderPayment(ctx, status);
    } catch (err) {
      ctx.log.warn({ err, orderId: order.id, rail }, "payment status read failed");
    }
  }
  const after = await ctx.store.get(order.id);
  const still = (after?.payments ?? []).filter((p) => !p.settled);
  if (still.length === 0) return;
  const newest = Math.max(...still.map((p) => p.createdAt));
  // A page stays payable as long as the quote (an invoice expires with it): polled until then too.
  const lastPayable = Math.max(newest, after?.expiresAt ?? newest);
  if (ctx.now() - lastPayable > PAYMENT_POLL_FOR_MS) return;
  return backoff(ctx, newest, 3_000);
}

export { Retry };
