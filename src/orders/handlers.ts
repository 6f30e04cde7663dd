import { ResellerApiError } from "../reseller/errors.js";
import { checkBalance, noteResellerError } from "./alerts.js";
import { type EngineContext, pollMsOf, transition } from "./context.js";
import type { Job } from "./jobs.js";
import { alertMessage, finalMessage, isQuoteExpired, TRACKED_STATES } from "./lifecycle.js";
import { rubToKopecks } from "./pricing.js";
import { type RetentionSettings, sweepArchive } from "./retention.js";
import type { Effect } from "./store.js";
import { applyResellerOrder, flagStuckIfLate } from "./tracking.js";
import { FINAL_STATES, type Order, type RefundState } from "./types.js";

/** A job's answer "run me again at `at`" (ms); anything else means done. */
export class Retry {
  constructor(readonly at: number) {}
}

const MAX_BACKOFF_MS = 60_000;

/** Backoff for a job that keeps waiting: a quarter of the time spent so far, between `min` and 60 s. */
function backoff(ctx: EngineContext, since: number | undefined, min: number): Retry {
  const now = ctx.now();
  const elapsed = now - (since ?? now);
  return new Retry(now + Math.min(MAX_BACKOFF_MS, Math.max(min, elapsed / 4)));
}

/** Runs one job. Every handler re-reads the order and does nothing when its moment has passed. */
export async function runJob(
  ctx: EngineContext,
  job: Job,
  opts: { balanceEveryMs: number; retention?: RetentionSettings },
): Promise<Retry | undefined> {
  if (job.type === "balance") {
    await checkBalance(ctx).catch((err) => ctx.log.warn({ err }, "balance check failed"));
    return new Retry(ctx.now() + opts.balanceEveryMs);
  }
  if (job.type === "archive") return archiveSweep(ctx, opts.retention);
  const order = await ctx.store.get(job.orderId);
  if (!order) return undefined;
  switch (job.type) {
    case "submit":
      return submitPay(ctx, order);
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
      await refundOrder(ctx, order);
      return undefined;
    case "xrefund":
      await refundExtraCharge(ctx, order, job.chargeId);
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
async function submitPay(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (order.state !== "paid") return;
  const { reseller } = ctx;
  try {
    const paid = await reseller.payOrder(order.id);
    await transition(ctx, order.id, ["paid"], "pending", () => ({
      chargedKopecks: rubToKopecks(paid.priceChargedRub),
      resellerStatus: paid.status,
    }));
    await ctx.balanceSoon();
    return;
  } catch (err) {
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
  if (order.state === "paid") return; // the submit job drives paid orders; this was a hint
  await flagStuckIfLate(ctx, order);
  return backoff(ctx, order.times.pending, pollMsOf(ctx.config));
}

async function expire(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (order.state !== "quoted" && order.state !== "draft") return;
  if (!isQuoteExpired(order, ctx.now())) return new Retry(order.expiresAt ?? ctx.now());
  await transition(ctx, order.id, ["quoted", "draft"], "expired");
}

/** Refunds one Stars charge: "done" (or already refunded), or "needed" for the operators to do by hand. */
async function refundStarsCharge(
  ctx: EngineContext,
  order: Order,
  chargeId: string,
  what: string,
): Promise<RefundState> {
  try {
    await ctx.notifier.refundStars(order.customer.userId, chargeId);
    return "done";
  } catch (err) {
    if (/ALREADY_REFUNDED/i.test(String(err))) return "done";
    ctx.log.error({ err, orderId: order.id }, `${what} failed; operators will refund by hand`);
    return "needed";
  }
}

/** The Stars of a failed or rejected order go back, then the final message (which says so). */
async function refundOrder(ctx: EngineContext, order: Order): Promise<void> {
  if (order.refund !== "none" || !order.telegramChargeId) return;
  const refund = await refundStarsCharge(ctx, order, order.telegramChargeId, "Stars refund");
  await ctx.store.update(order.id, (o) => {
    if (o.refund !== "none") return null;
    const jobs: Effect[] = [finalMessage(o)];
    if (refund === "needed") jobs.push(alertMessage("refund_needed", o));
    return { next: { ...o, refund, times: { ...o.times } }, jobs };
  });
}

/** A second payment for an order paid already goes back to the customer. */
async function refundExtraCharge(ctx: EngineContext, order: Order, chargeId: string): Promise<void> {
  const charge = order.extraCharges?.find((c) => c.telegramChargeId === chargeId);
  if (charge?.refund !== "needed") return;
  const refund = await refundStarsCharge(ctx, order, chargeId, "refund of a second payment");
  await ctx.store.update(order.id, (o) => ({
    next: {
      ...o,
      extraCharges: (o.extraCharges ?? []).map((c) =>
        c.telegramChargeId === chargeId ? { ...c, refund } : c,
      ),
    },
    jobs: refund === "needed" ? [alertMessage("duplicate_payment", o)] : [],
  }));
}
