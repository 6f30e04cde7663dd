export { Retry, TAKEN_OFF } from "./job-retry.js";

import { periodicBalanceCheck } from "./alerts.js";
import type { EngineContext } from "./context.js";
import type { Effect } from "./effects.js";
import { backoff, Retry, TAKEN_OFF } from "./job-retry.js";
import { encodeJob, type Job } from "./jobs.js";
import { alertMessage, cardUpdate, extraPaymentMessage, finalMessage, isTracked } from "./lifecycle.js";
import { claimPromo, releasePromo } from "./promo-checkout.js";
import { pollProviderPayments } from "./provider-checkout.js";
import { type RefundRoute, refundRoute, refundsAutomatically } from "./rails.js";
import { creditReferralBonus } from "./referral-bonus.js";
import { type RetentionSettings, sweepArchive } from "./retention.js";
import { expire, nextStep, submitPay, track } from "./steps.js";
import type { Order, RefundState } from "./types.js";
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
    await periodicBalanceCheck(ctx).catch((err) => ctx.log.warn({ err }, "balance check not recorded"));
    // While a product waits for a top-up the deposit is looked at every minute, so it comes back soon.
    const paused = await ctx.deposit.anyPaused().catch(() => false);
    return new Retry(
      ctx.now() + (paused ? Math.min(PAUSED_CHECK_MS, opts.balanceEveryMs) : opts.balanceEveryMs),
    );
  }
  if (job.type === "archive") return archiveSweep(ctx, opts.retention);
  if (job.type === "tpoll") return ctx.topups?.poll(job.topupId);
  // `pay` and the status polls may start from this process's own copy (the paid or pending write
  // it made, usually): a repeated `pay` charges nothing twice, a repeated status read changes
  // nothing, and their writes check the version. Everything else reads afresh.
  const order =
    job.type === "submit" || job.type === "step" || job.type === "track"
      ? await ctx.store.latest(job.orderId, isTracked)
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
      return releasePromo(ctx, order);
    case "pclaim":
      await claimPromo(ctx, order);
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
    // The card said the refund was under way: it says now what became of it, as the final message does.
    const jobs: Effect[] = [finalMessage(o)];
    if (o.cardMessageId !== undefined) jobs.push(cardUpdate(o));
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
  await ctx.store.update(order.id, (o) => {
    const index = (o.extraCharges ?? []).findIndex((c) => c.telegramChargeId === chargeId);
    // Settled already (a second run of this job): told then.
    if (index < 0 || o.extraCharges![index]!.refund !== "needed") return null;
    const next = {
      ...o,
      extraCharges: o.extraCharges!.map((c, i) =>
        i === index ? { ...c, refund, refundRef: refundRef ?? c.refundRef } : c,
      ),
    };
    const jobs: Effect[] = extraPaymentMessage(next, index, true);
    if (refund === "needed") jobs.push(alertMessage("duplicate_payment", o));
    return { next, jobs };
  });
}
