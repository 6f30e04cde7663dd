/**
 * An order's way to settling, as its jobs run it: the quote's expiry, `pay` for a paid order, the
 * status polls of a pending one, and the delivery webhook's hint that re-reads it at once. One
 * schedule member per order (jobs.ts `step`) runs whichever of these its state calls for.
 */
import { ResellerApiError } from "../reseller/errors.js";
import type { ResellerOrder } from "../reseller/types.js";
import { noteDeposit, noteResellerError, pauseForDeposit } from "./alerts.js";
import { type EngineContext, pollMsOf, transition } from "./context.js";
import { backoff, Retry, TAKEN_OFF } from "./job-retry.js";
import { encodeJob } from "./jobs.js";
import { firstPollStands, isQuoteExpired, isTracked, TRACKED_STATES } from "./lifecycle.js";
import { rubToKopecks } from "./pricing.js";
import { noteSpending } from "./spending.js";
import { applyResellerOrder, flagStuckIfLate } from "./tracking.js";
import { FINAL_STATES, type Order } from "./types.js";
import type { HeldLease } from "./worker.js";

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
      // Claimed as due (the quote's expiry) just before the payment's write moved the step to the
      // process that recorded it: `pay` is that process's, so this one leaves the step alone. A claim
      // well before the quote's expiry was not that one (the write made the step due for any
      // worker, or its holder died): no need to ask. A repeated `pay` would charge nothing twice anyway.
      if (
        held.claimed &&
        !claimedBeforeExpiry(order, held) &&
        !(await ctx.store.jobs.holds(member, held.lease))
      )
        return TAKEN_OFF;
      return submitPay(ctx, order, held);
    case "pending":
      return track(ctx, order);
    default:
      return undefined;
  }
}

/** The spec's statuses of an order whose `pay` went through (§3). */
const CHARGED_STATUSES = ["pending", "delivered", "failed"];

/** How far apart two processes' clocks may be, for {@link claimedBeforeExpiry}. */
const CLOCK_MARGIN_MS = 60_000;

/** Whether a job was claimed so long before the order's quote expired that it cannot be the expiry. */
function claimedBeforeExpiry(order: Order, held: HeldLease): boolean {
  return (
    held.since !== undefined &&
    order.expiresAt !== undefined &&
    held.since < order.expiresAt - CLOCK_MARGIN_MS
  );
}

/**
 * `pay` for a paid order: charged once per custom_id by the reseller, so retries are safe. `held`
 * is the lease this run holds the order's step with: answered soon enough, `pay` leaves the step
 * at that lease's end as the first status poll (lifecycle.ts `payHoldMs`), and stops renewing it.
 */
export async function submitPay(
  ctx: EngineContext,
  order: Order,
  held?: HeldLease,
): Promise<Retry | typeof TAKEN_OFF | undefined> {
  if (order.state !== "paid") {
    ctx.payAnswers.release(order.id);
    return;
  }
  const { reseller } = ctx;
  try {
    const paid = await reseller.payOrder(order.id);
    // The customer's answer to their payment may be waiting for this: then it shows the card.
    const cardShown = ctx.payAnswers.cover(order.id);
    const stepAt = await standingStep(ctx, held);
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
        { cardShown, stepAt },
      );
    } finally {
      if (cardShown) ctx.payAnswers.settle(order.id, moved.won ? moved.order : null);
    }
    // Settled before `pay` answered (a delivery webhook's re-read moved it on from `paid`): the
    // charge is still the order's, and still spent from the deposit.
    if (!moved.won) moved = await recordLateCharge(ctx, order.id, rubToKopecks(paid.priceChargedRub));
    noteSpending(ctx, moved);
    ctx.balanceSoon("charge");
    // The `pending` write moved the step on to the first poll (lifecycle.ts): nothing left to finish.
    return moved.won ? TAKEN_OFF : undefined;
  } catch (err) {
    ctx.payAnswers.release(order.id);
    if (!(err instanceof ResellerApiError)) throw err;
    await noteResellerError(ctx, err);
    if (err.transient || err.kind === "auth") {
      // No answer may still have been a charge (an answer lost on the way, or slower than the
      // client waits): the order's read says so (a status of the spec's after `pay`), and then the
      // order is followed from there with no second pay (no status poll runs for a paid order).
      // Any other status is paid again: a repeat charges nothing twice, and its answer tells.
      const remote = err.transient ? await reseller.getOrder(order.id).catch(() => null) : null;
      if (remote && CHARGED_STATUSES.includes(remote.status)) return followCharged(ctx, order, remote);
      ctx.log.warn(
        { orderId: order.id, kind: err.kind, status: err.status },
        "pay not accepted yet, will retry",
      );
      await flagStuckIfLate(ctx, order);
      return backoff(ctx, order.times.paid, 1000);
    }
    // A refusal may also mean "already paid" (a lost answer to an earlier pay): ask what happened.
    let remote: ResellerOrder | null = null;
    try {
      remote = await reseller.getOrder(order.id);
    } catch (readErr) {
      // The reseller does not know the order (404): nothing was charged. Any other failure leaves
      // it unknown whether an earlier pay charged the deposit (the reseller would then deliver):
      // the order stays paid and pay is asked again later, rather than refunded now.
      if (!(readErr instanceof ResellerApiError && readErr.kind === "not_found")) {
        ctx.log.warn(
          {
            orderId: order.id,
            kind: err.kind,
            readKind: readErr instanceof ResellerApiError ? readErr.kind : "unknown",
          },
          "pay refused and the order could not be read; will ask again",
        );
        await flagStuckIfLate(ctx, order);
        return backoff(ctx, order.times.paid, 1000);
      }
    }
    // Past `created` (pending, delivered, failed, or a status between them the spec does not show,
    // such as "processing"): charged by an earlier `pay` whose answer was lost, so the deposit spent
    // the quote's price and the order is followed to its end, not refunded while it is delivered.
    if (remote && remote.status !== "created") return followCharged(ctx, order, remote);
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
    if (err.kind === "insufficient_funds") await holdBackForDeposit(ctx, order, balanceRub);
  }
}

/**
 * A paid order the reseller shows charged although `pay` gave no answer saying so (an earlier pay's
 * answer was lost, or never came in time): `pending`, the deposit's spending counted (the quote's
 * price), and what the reseller says applied, so a delivered or failed order settles now.
 */
async function followCharged(ctx: EngineContext, order: Order, remote: ResellerOrder): Promise<undefined> {
  noteSpending(
    ctx,
    await transition(ctx, order.id, ["paid"], "pending", () => ({ resellerStatus: remote.status })),
  );
  await applyResellerOrder(ctx, order.id, remote);
  return undefined;
}

/**
 * What `pay` charged, written on an order that settled before `pay` answered; won only by the first
 * such write (an order whose charge is recorded already, by `pay`'s own `pending` write or an
 * earlier answer, is left alone), so the deposit's spending counts it once.
 */
async function recordLateCharge(
  ctx: EngineContext,
  orderId: string,
  chargedKopecks: number,
): Promise<{ won: boolean; order: Order | null }> {
  const res = await ctx.store.update(orderId, (o) =>
    o.chargedKopecks === undefined && (o.state === "pending" || FINAL_STATES.includes(o.state))
      ? { next: { ...o, chargedKopecks } }
      : null,
  );
  return { won: res.won, order: res.order };
}

/**
 * A `pay` refused for the deposit says what the next quotes of the product need to know: the
 * deposit read goes on record and the product is paused, so the customers after this one are told
 * before they pay rather than refunded after (deposit-guard.ts). Neither may undo the rejection.
 */
async function holdBackForDeposit(
  ctx: EngineContext,
  order: Order,
  balanceRub: number | null,
): Promise<void> {
  try {
    if (balanceRub !== null) await noteDeposit(ctx, balanceRub);
    if (order.wholesaleKopecks !== undefined)
      await pauseForDeposit(ctx, order.item.kind, order.wholesaleKopecks, order.id);
  } catch (err) {
    ctx.log.error({ err, orderId: order.id }, "the deposit's refusal could not pause the product");
  }
}

/**
 * Where the step of a `pay` run stands once its lease stops being renewed, when that time can be
 * the order's first status poll (lifecycle.ts `firstPollStands`); undefined otherwise (the lease
 * goes on being renewed, and the `pending` write moves the step to the first poll).
 */
async function standingStep(ctx: EngineContext, held: HeldLease | undefined): Promise<number | undefined> {
  const pollMs = pollMsOf(ctx.config);
  if (!held?.freeze || !firstPollStands(held.lease, ctx.now(), pollMs)) return undefined;
  const at = await held.freeze();
  return firstPollStands(at, ctx.now(), pollMs) ? at : undefined;
}

/**
 * Delivery hints whose re-read runs at once in this process (`free` of them more), and the orders
 * of those that wait for one of these slots, in arrival order.
 */
export interface HintSlots {
  free: number;
  waiting: Set<string>;
}

/** Hints that wait in memory for a slot; beyond this a re-read job is made due for the workers. */
export const HINTS_WAITING_MAX = 10_000;

/**
 * A delivery webhook's hint: the order is re-read from the reseller (the source of truth) now, in
 * the background, so the reseller is answered at once. Nothing is written for the hint itself: the
 * order's own step (its status polls) stays scheduled, so if this process dies meanwhile, polling
 * finds the result; the final transition takes that step off. With every slot busy (a flood of
 * webhooks) the hint waits here for a slot, costing Redis nothing: a poll that falls due first
 * finds the result as well, and the hint then finds the order settled. Only beyond
 * {@link HINTS_WAITING_MAX} waiting hints is a `track` job made due now, for the workers to run.
 * False when the order is unknown or not awaiting delivery.
 */
export async function onDeliveryHint(
  ctx: EngineContext,
  orderId: string,
  slots: HintSlots,
): Promise<boolean> {
  const order = await trackedOrder(ctx, orderId);
  if (!order) return false;
  if (slots.free > 0) {
    reread(ctx, order, slots);
    return true;
  }
  if (slots.waiting.size < HINTS_WAITING_MAX || slots.waiting.has(orderId)) {
    slots.waiting.add(orderId);
    return true;
  }
  return ctx.store.kick(orderId, encodeJob({ type: "track", orderId }), [...TRACKED_STATES]);
}

/**
 * The order if it is awaiting delivery. This process's copy will do when it is (it wrote `pending`,
 * usually): the re-read's write checks the version. A copy in another state may be behind, so that
 * one is read afresh.
 */
async function trackedOrder(ctx: EngineContext, orderId: string): Promise<Order | null> {
  const order = await ctx.store.latest(orderId, isTracked);
  return order && isTracked(order) ? order : null;
}

/** Re-reads a hinted order in one of the slots; when done, the slot goes to the longest-waiting hint. */
function reread(ctx: EngineContext, order: Order, slots: HintSlots): void {
  slots.free -= 1;
  void track(ctx, order)
    .catch((err) =>
      ctx.log.warn({ err, orderId: order.id }, "re-reading a delivered order failed; its next poll will"),
    )
    .finally(async () => {
      for (const next of slots.waiting) {
        slots.waiting.delete(next);
        // Settled meanwhile (by a poll, say): the hint has nothing left to do and takes no slot.
        const waited = await trackedOrder(ctx, next).catch(() => null);
        if (waited) {
          slots.free += 1;
          reread(ctx, waited, slots);
          return;
        }
      }
      slots.free += 1;
    });
}

/**
 * Polls a pending order, backing off from POLL_INTERVAL_SECONDS to 60 s. When the order is settled
 * by the time the poll's write is done, the final write has taken the order's step and re-read
 * jobs off the schedule (lifecycle.ts): nothing is left for the run to finish.
 */
export async function track(ctx: EngineContext, order: Order): Promise<Retry | typeof TAKEN_OFF | undefined> {
  if (!TRACKED_STATES.includes(order.state)) return;
  try {
    const remote = await ctx.reseller.getOrder(order.id);
    const after = await applyResellerOrder(ctx, order.id, remote);
    if (after && FINAL_STATES.includes(after.state)) return TAKEN_OFF;
  } catch (err) {
    if (!(err instanceof ResellerApiError)) throw err;
    await noteResellerError(ctx, err);
    ctx.log.warn({ orderId: order.id, kind: err.kind, status: err.status }, "order status read failed");
  }
  if (order.state === "paid") return; // the step (`pay`) drives paid orders; this was a hint
  await flagStuckIfLate(ctx, order);
  return backoff(ctx, order.times.pending, pollMsOf(ctx.config));
}

export async function expire(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (order.state !== "quoted" && order.state !== "draft") return;
  if (!isQuoteExpired(order, ctx.now())) return new Retry(order.expiresAt ?? ctx.now());
  await transition(ctx, order.id, ["quoted", "draft"], "expired");
}
