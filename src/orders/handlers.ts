import { ResellerApiError } from "../reseller/errors.js";

export { Retry, TAKEN_OFF } from "./job-retry.js";

import { checkBalance, noteResellerError } from "./alerts.js";
import { type EngineContext, pollMsOf, transition } from "./context.js";
import { backoff, Retry, TAKEN_OFF } from "./job-retry.js";
import { encodeJob, type Job } from "./jobs.js";
import { alertMessage, finalMessage, isQuoteExpired, TRACKED_STATES } from "./lifecycle.js";
import { rubToKopecks } from "./pricing.js";
import { claimPromo, releasePromo } from "./promo-checkout.js";
import { pollProviderPayments } from "./provider-checkout.js";
import { type RefundRoute, refundRoute, refundsAutomatically } from "./rails.js";
import { creditReferralBonus } from "./referral-bonus.js";
import { type RetentionSettings, sweepArchive } from "./retention.js";
import { noteSpending } from "./spending.js";
import type { Effect } from "./store.js";
import { applyResellerOrder, flagStuckIfLate } from "./tracking.js";
import { FINAL_STATES, type Order, type RefundState } from "./types.js";
import { settleWalletPayment } from "./wallet-checkout.js";
import type { HeldLease } from "./worker.js";

/** The deposit check's period while a product is paused. */
const PAUSED_CHECK_MS = 60_000;

/** Runs one job. Every handler re-reads the order and does nothing when its moment has passed. */
export async function runJob(
  ctx: EngineContext,
  job: Job,
  opts: { balanceEveryMs: number; retention?: RetentionSettings; held: HeldLease },
): Promise<Retry | typeof TAKEN_OFF | undefined> {
  if (job.type === "balance") {
    await checkBalance(ctx).catch((err) => ctx.log.warn({ err }, "balance check failed"));
    // While a product waits for a top-up the deposit is looked at every minute, so it comes back soon.
    const paused = await ctx.deposit.anyPaused().catch(() => false);
    return new Retry(
      ctx.now() + (paused ? Math.min(PAUSED_CHECK_MS, opts.balanceEveryMs) : opts.balanceEveryMs),
    );
  }
  if (job.type === "archive") return archiveSweep(ctx, opts.retention);
  if (job.type === "tpoll") return ctx.topups?.poll(job.topupId);
  // `pay` may start from this process's own copy (the paid write it just made, usually): a repeated
  // `pay` charges nothing twice, and its write checks the version. Everything else reads afresh.
  const order =
    job.type === "submit" || job.type === "step"
      ? await ctx.store.latest(job.orderId, (o) => o.state === "paid")
      : await ctx.store.get(job.orderId);
  if (!order) return undefined;
  switch (job.type) {
    case "step":
      return nextStep(ctx, order, encodeJob(job), opts.held);
    case "submit": {
      // An earlier version's job: the `pending` write does not take it off, so it is finished here.
      const done = await submitPay(ctx, order);
      return done === TAKEN_OFF ? undefined : done;
    }
    case "track":
      return track(ctx, order);
    case "expire":
      return expire(ctx, order);
    case "card":
    case "final":
    case "alert":
      // Scheduled by an earlier version of the engine: these go through the outgoing queue now.
      await ctx.outgoing.enqueue(
        job.type === "alert"
          ? { kind: "alert", alert: job.kind, orderId: order.id }
          : { kind: job.type, chatId: order.customer.chatId, orderId: order.id },
      );
      ctx.kick();
      return undefined;
    case "refund":
      return refundOrder(ctx, order);
    case "xrefund":
      return refundExtraCharge(ctx, order, job.chargeId);
    case "ppoll":
      return pollProviderPayments(ctx, order);
    case "wsettle":
      await settleWalletPayment(ctx, order);
      return undefined;
    case "referral":
      await creditReferralBonus(ctx, order);
      return undefined;
    case "prelease":
      await releasePromo(ctx, order);
      return undefined;
    case "pclaim":
      await claimPromo(ctx, order);
      return undefined;
  }
}

/**
 * An order's next step (jobs.ts `step`), by the state it is in now: the quote's expiry, `pay`, or a
 * status poll. Other states have none: the write that moved the order there took the step off.
 */
export async function nextStep(
  ctx: EngineContext,
  order: Order,
  member: string,
  held: HeldLease,
): Promise<Retry | typeof TAKEN_OFF | undefined> {
  switch (order.state) {
    case "draft":
    case "quoted":
      return expire(ctx, order);
    case "paid":
      // Claimed as due (the quote's expiry, say) just before the payment's write moved the step to
      // the process that recorded it: `pay` is that process's, so this one leaves the step alone.
      if (held.claimed && !(await ctx.store.jobs.holds(member, held.lease))) return TAKEN_OFF;
      return submitPay(ctx, order);
    case "pending":
      return track(ctx, order);
    default:
      return undefined;
  }
}

/** The periodic archive sweep (retention.ts); an archive this process does not have drops the job. */
async function archiveSweep(
  ctx: EngineContext,
  retention: RetentionSettings | undefined,
): Promise<Retry | undefined> {
  if (!retention) return undefined;
  try {
    const { full } = await sweepArchive(ctx, retention, ctx.now());
    return new Retry(ctx.now() + (full ? retention.catchUpMs : retention.everyMs));
  } catch (err) {
    // A full disk or an unwritable ARCHIVE_DIR: nothing left Redis; say so and try again later.
    ctx.log.error({ err, dir: retention.archive.dir }, "archive sweep failed; orders stay in Redis");
    return new Retry(ctx.now() + Math.min(retention.everyMs, 5 * 60_000));
  }
}

/** `pay` for a paid order: charged once per custom_id by the reseller, so retries are safe. */
async function submitPay(ctx: EngineContext, order: Order): Promise<Retry | typeof TAKEN_OFF | undefined> {
  if (order.state !== "paid") {
    ctx.payAnswers.release(order.id);
    return;
  }
  const { reseller } = ctx;
  try {
    const paid = await reseller.payOrder(order.id);
    // The customer's answer to their payment may be waiting for this: then it shows the card.
    const cardShown = ctx.payAnswers.cover(order.id);
    let moved: Awaited<ReturnType<typeof transition>> = { won: false, order: null };
    try {
      moved = await transition(
        ctx,
        order.id,
        ["paid"],
        "pending",
        () => ({
          chargedKopecks: rubToKopecks(paid.priceChargedRub),
          resellerStatus: paid.status,
        }),
        { cardShown },
      );
    } finally {
      if (cardShown) ctx.payAnswers.settle(order.id, moved.won ? moved.order : null);
    }
    await noteSpending(ctx, moved);
    ctx.balanceSoon();
    // The `pending` write took this job off the schedule (lifecycle.ts): nothing left to finish.
    return moved.won ? TAKEN_OFF : undefined;
  } catch (err) {
    ctx.payAnswers.release(order.id);
    if (!(err instanceof ResellerApiError)) throw err;
    await noteResellerError(ctx, err);
    if (err.transient || err.kind === "auth") {
      ctx.log.warn(
        { orderId: order.id, kind: err.kind, status: err.status },
        "pay not accepted yet, will retry",
      );
      await flagStuckIfLate(ctx, order);
      return backoff(ctx, order.times.paid, 1000);
    }
    // A refusal may also mean "already paid" (a lost answer to an earlier pay): ask what happened.
    const remote = await reseller.getOrder(order.id).catch(() => null);
    if (remote && ["pending", "delivered", "failed"].includes(remote.status)) {
      await transition(ctx, order.id, ["paid"], "pending", () => ({ resellerStatus: remote.status }));
      await applyResellerOrder(ctx, order.id, remote);
      return;
    }
    let balanceRub: number | null = null;
    if (err.kind === "insufficient_funds") {
      balanceRub = await reseller
        .balance()
        .then((b) => b.balanceRub)
        .catch(() => null);
    }
    await transition(ctx, order.id, ["paid"], "rejected", () => ({
      errorMessage: err.message,
      resellerStatus: remote?.status,
      rejectReason: err.kind,
      rejectBalanceRub: balanceRub ?? undefined,
    }));
  }
}

/** Polls a pending order, backing off from POLL_INTERVAL_SECONDS to 60 s. */
/** Delivery hints whose re-read runs at once in this process; beyond this they wait for a worker. */
export interface HintSlots {
  free: number;
}

/**
 * A delivery webhook's hint: the order is re-read from the reseller (the source of truth) now, in
 * the background, so the reseller is answered at once. Nothing is written for the hint itself: the
 * order's own step (its status polls) stays scheduled, so if this process dies meanwhile, polling
 * finds the result; the final transition takes that step off. With every slot busy (a flood of
 * webhooks) a `track` job is made due now instead, for the workers to run. False when the order is
 * unknown or not awaiting delivery.
 */
export async function onDeliveryHint(
  ctx: EngineContext,
  orderId: string,
  slots: HintSlots,
): Promise<boolean> {
  // This process's copy will do when it is tracked (it wrote `pending`, usually): the re-read's write
  // checks the version. A copy in another state may be behind, so that one is read afresh.
  const order = await ctx.store.latest(orderId, (o) => TRACKED_STATES.includes(o.state));
  if (!order || !TRACKED_STATES.includes(order.state)) return false;
  if (slots.free <= 0) {
    return ctx.store.kick(orderId, encodeJob({ type: "track", orderId }), [...TRACKED_STATES]);
  }
  slots.free -= 1;
  void track(ctx, order)
    .catch((err) => ctx.log.warn({ err, orderId }, "re-reading a delivered order failed; its next poll will"))
    .finally(() => {
      slots.free += 1;
    });
  return true;
}

async function track(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (!TRACKED_STATES.includes(order.state)) return;
  try {
    const remote = await ctx.reseller.getOrder(order.id);
    const after = await applyResellerOrder(ctx, order.id, remote);
    if (after && FINAL_STATES.includes(after.state)) return;
  } catch (err) {
    if (!(err instanceof ResellerApiError)) throw err;
    await noteResellerError(ctx, err);
    ctx.log.warn({ orderId: order.id, kind: err.kind, status: err.status }, "order status read failed");
  }
  if (order.state === "paid") return; // the step (`pay`) drives paid orders; this was a hint
  await flagStuckIfLate(ctx, order);
  return backoff(ctx, order.times.pending, pollMsOf(ctx.config));
}

async function expire(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (order.state !== "quoted" && order.state !== "draft") return;
  if (!isQuoteExpired(order, ctx.now())) return new Retry(order.expiresAt ?? ctx.now());
  await transition(ctx, order.id, ["quoted", "draft"], "expired");
}

/** One payment to give back: the order's own or a second payment for it. */
interface Refundable {
  chargeId: string;
  providerChargeId?: string;
  amount: number;
  route: RefundRoute;
  /** Unique per refund: the wallet's ref and the provider's idempotence key (each fits it to its limit). */
  ref: string;
}

/** What giving a payment back came to: "done" or "needed", and the provider's refund id when it made one. */
interface GivenBack {
  state: RefundState;
  ref?: string;
}

/**
 * Gives one payment back on its route: "done" (or done before), or "needed" for the operators
 * to do by hand. A failure the provider may still fix (a timeout, a 5xx) is tried again later.
 */
async function giveBack(ctx: EngineContext, order: Order, r: Refundable): Promise<GivenBack | Retry> {
  const log = { orderId: order.id, route: r.route };
  try {
    switch (r.route) {
      case "stars":
        await ctx.notifier.refundStars(order.customer.userId, r.chargeId);
        return { state: "done" };
      case "wallet": {
        if (!ctx.wallet) throw new Error("the wallet is not configured in this process");
        const res = await ctx.wallet.credit(order.customer.userId, {
          amountKopecks: r.amount,
          reason: "refund",
          ref: r.ref,
          orderId: order.id,
          paymentRef: r.providerChargeId ?? r.chargeId,
        });
        if (!res.ok) throw new Error(`wallet refused the refund: ${res.refusal}`);
        return { state: "done" };
      }
      case "yookassa": {
        const gateway = ctx.gateways.yookassa;
        if (!gateway?.refund || !r.providerChargeId)
          throw new Error("YooKassa is not configured in this process");
        // Asked again with the same key, YooKassa answers with the same refund: never a second one.
        const res = await gateway.refund(r.providerChargeId, r.amount, r.ref);
        if (!res.done && !(await gateway.refundSettled?.(res.refundId))) {
          // Pending at YooKassa (some methods, SBP among them): the customer is told once it went through.
          ctx.log.info({ ...log, refundId: res.refundId }, "YooKassa refund pending; looking again later");
          return backoff(ctx, order.times.failed ?? order.times.rejected, 5_000);
        }
        ctx.log.info({ ...log, refundId: res.refundId }, "YooKassa refund made");
        return { state: "done", ref: res.refundId };
      }
      default:
        return { state: "needed" };
    }
  } catch (err) {
    if (/ALREADY_REFUNDED/i.test(String(err))) return { state: "done" };
    if (isTransient(err)) {
      ctx.log.warn({ ...log, err }, "refund not made yet, will retry");
      return backoff(ctx, order.times.failed ?? order.times.rejected, 5_000);
    }
    ctx.log.error({ ...log, err }, "refund failed; operators will refund by hand");
    return { state: "needed" };
  }
}

/** A provider's "try again later" (network, timeout, 5xx, 429). */
function isTransient(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { transient?: unknown }).transient === true;
}

/** The money of a failed or rejected order goes back on its rail, then the final message (which says so). */
async function refundOrder(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  const route = refundRoute(order);
  if (order.refund !== "none" || !order.telegramChargeId || !refundsAutomatically(route)) return;
  const given = await giveBack(ctx, order, {
    chargeId: order.telegramChargeId,
    providerChargeId: order.providerChargeId,
    amount: order.amount ?? 0,
    route,
    ref: `refund:${order.id}`,
  });
  if (given instanceof Retry) return given;
  const { state: refund, ref: refundRef } = given;
  await ctx.store.update(order.id, (o) => {
    if (o.refund !== "none") return null;
    const jobs: Effect[] = [finalMessage(o)];
    if (refund === "needed") jobs.push(alertMessage("refund_needed", o));
    return { next: { ...o, refund, refundRef: refundRef ?? o.refundRef, times: { ...o.times } }, jobs };
  });
}

/** A second payment for an order paid already goes back to the customer. */
async function refundExtraCharge(
  ctx: EngineContext,
  order: Order,
  chargeId: string,
): Promise<Retry | undefined> {
  const charge = order.extraCharges?.find((c) => c.telegramChargeId === chargeId);
  if (charge?.refund !== "needed") return;
  const given = await giveBack(ctx, order, {
    chargeId,
    providerChargeId: charge.providerChargeId,
    amount: charge.amount,
    route: refundRoute(charge),
    ref: `xrefund:${order.id}:${chargeId}`,
  });
  if (given instanceof Retry) return given;
  const { state: refund, ref: refundRef } = given;
  await ctx.store.update(order.id, (o) => ({
    next: {
      ...o,
      extraCharges: (o.extraCharges ?? []).map((c) =>
        c.telegramChargeId === chargeId ? { ...c, refund, refundRef: refundRef ?? c.refundRef } : c,
      ),
    },
    jobs: refund === "needed" ? [alertMessage("duplicate_payment", o)] : [],
  }));
}
