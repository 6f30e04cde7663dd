import type { OutgoingMessage } from "../outgoing/messages.js";
import type { Effect, JobSpec, MessageSpec } from "./effects.js";
import { encodeJob, type Job } from "./jobs.js";
import { refundRoute, refundsAutomatically } from "./rails.js";
import type { AlertKind, Order, OrderState } from "./types.js";

/**
 * The order lifecycle as pure rules: which moves are allowed, what a move implies for refunds,
 * and which jobs each move schedules. No Redis, no clock of its own: callers pass `now`.
 */

/** Where each state may go (DESIGN.md; `draft` is the engine's own). */
export const NEXT_STATES: Readonly<Record<OrderState, readonly OrderState[]>> = {
  draft: ["quoted", "expired", "cancelled", "paid"],
  quoted: ["paid", "expired", "cancelled"],
  // A real payment always counts, even for a quote that expired or was cancelled meanwhile.
  expired: ["paid"],
  cancelled: ["paid"],
  paid: ["pending", "rejected", "delivered", "failed"],
  pending: ["delivered", "failed"],
  delivered: [],
  failed: [],
  rejected: [],
};

/** States in which a customer's payment is taken as the order's payment. */
export const PAYABLE_STATES: readonly OrderState[] = ["draft", "quoted", "expired", "cancelled"];

/** States that end with a final message to the customer. */
export const NOTIFIED_STATES: readonly OrderState[] = ["delivered", "failed", "rejected"];

/** States in which the reseller holds (or may hold) the order: tracking applies. */
export const TRACKED_STATES: readonly OrderState[] = ["paid", "pending"];

/** States with a next step in the schedule (jobs.ts `step`): the quote's expiry, `pay`, status polls. */
export const STEP_STATES: readonly OrderState[] = ["draft", "quoted", "paid", "pending"];

export function canMove(from: OrderState, to: OrderState): boolean {
  return NEXT_STATES[from].includes(to);
}

/** A quote past its time: expired already, or quoted/draft with its expiry reached. */
export function isQuoteExpired(order: Order, now: number): boolean {
  if (order.state === "expired") return true;
  return (order.state === "quoted" || order.state === "draft") && (order.expiresAt ?? 0) <= now;
}

/** Paid and not yet settled: what the reseller's status reads (polls, delivery hints) act on. */
export function isTracked(order: Order): boolean {
  return TRACKED_STATES.includes(order.state);
}

/** An unpaid quote: a `create` asked for or answered, not yet paid, cancelled or expired (MAX_OPEN_QUOTES counts these). */
export function isOpenQuote(order: Order): boolean {
  return order.state === "draft" || order.state === "quoted";
}

/** Operators' "needs attention": rejected, stuck, or a refund still owed. */
export function needsAttention(order: Order): boolean {
  return order.state === "rejected" || order.stuck || order.refund === "needed";
}

/**
 * What entering `to` changes besides the state: its time, and for a failed or rejected order
 * paid on a rail the bot cannot refund by itself, a refund the operators must make by hand.
 */
export function enter(order: Order, to: OrderState, now: number): Order {
  const next: Order = { ...order, state: to, times: { ...order.times, [to]: now } };
  if ((to === "failed" || to === "rejected") && next.refund === "none" && refundRoute(next) === "manual") {
    next.refund = "needed";
  }
  return next;
}

export interface LifecycleTiming {
  now: number;
  quoteTtlMs: number;
  pollMs: number;
  /** REFERRAL_PERCENT is above 0 (and the wallet offered): a delivered order schedules the referrer's bonus. */
  referralBonus?: boolean;
  /**
   * Where the order's step stands in the schedule, as the writer knows it: the end of the lease it
   * holds the step with (a `pay` run writing `pending`, steps.ts `submitPay`).
   */
  stepAt?: number;
}

/**
 * Shortest first poll whose interval a paid order's `pay` is held for: a shorter hold would need
 * its lease renewed while `pay` runs too often to be worth it.
 */
export const MIN_FIRST_POLL_HOLD_MS = 2_000;

/**
 * How long the step of a paid order (its `pay`) is written held by the process that runs it: until
 * the first status poll is due (POLL_INTERVAL_SECONDS) when that is at least
 * {@link MIN_FIRST_POLL_HOLD_MS}; otherwise the store's own hold (undefined). A `pay` answered
 * within a third of that hold (before the lease's first renewal) leaves the step where it stands,
 * the lease's end becoming the first poll ({@link firstPollStands}), so the `pending` write need
 * not move it.
 */
export function payHoldMs(timing: Pick<LifecycleTiming, "pollMs">): number | undefined {
  return timing.pollMs >= MIN_FIRST_POLL_HOLD_MS ? timing.pollMs : undefined;
}

/**
 * Whether a step standing at `stepAt` serves as a pending order's first status poll, written at
 * `now`: due no later than POLL_INTERVAL_SECONDS from now, and no sooner than half of it.
 */
export function firstPollStands(stepAt: number | undefined, now: number, pollMs: number): boolean {
  return stepAt !== undefined && stepAt <= now + pollMs && stepAt - now >= pollMs / 2;
}

/** The expiry a draft was created with (quote.ts), which its step was scheduled at. */
function draftExpiry(order: Order, timing: LifecycleTiming): number | undefined {
  const made = order.times.draft;
  return made === undefined ? undefined : made + timing.quoteTtlMs;
}

export function at(job: Job, dueAt: number): JobSpec {
  return { member: encodeJob(job), dueAt };
}

export function send(message: OutgoingMessage): MessageSpec {
  return { message };
}

/** The customer's final message about an order. */
export function finalMessage(order: Order): MessageSpec {
  return send({ kind: "final", chatId: order.customer.chatId, orderId: order.id });
}

/**
 * The customer's message about a second payment for an order paid already (the `index`-th of its
 * extra charges), once its refund is made or left to the operators (`afterRefund`: the bot's own
 * refund was tried). Telegram payments (Stars, a provider invoice) are answered in the chat when
 * they arrive (bot/features/payments.ts); a payment made elsewhere (a YooKassa or Crypto Pay page,
 * the wallet) is told this way.
 */
export function extraPaymentMessage(order: Order, index: number, afterRefund: boolean): MessageSpec[] {
  const charge = order.extraCharges?.[index];
  if (!charge) return [];
  // Told in the chat when it arrived — unless the bot's refund, promised then, could not be made:
  // the customer then learns that the shop will give it back instead.
  const toldInChat = charge.rail === undefined || charge.rail === "stars" || charge.rail === "invoice";
  if (toldInChat && !(afterRefund && charge.refund === "needed")) return [];
  return [send({ kind: "extra", chatId: order.customer.chatId, orderId: order.id, index })];
}

/** An update of the order's card in the customer's chat (to its latest state when its turn comes). */
export function cardUpdate(order: Order): MessageSpec {
  return send({ kind: "card", chatId: order.customer.chatId, orderId: order.id });
}

/** An alert to the operators about an order. */
export function alertMessage(alert: AlertKind, order: Order): MessageSpec {
  return send({ kind: "alert", alert, orderId: order.id });
}

/**
 * What a state change brings with it, recorded atomically with it: jobs for the engine's
 * workers, and messages for the outgoing queue.
 */
export function jobsFor(order: Order, from: OrderState | null, timing: LifecycleTiming): Effect[] {
  const { now } = timing;
  const orderId = order.id;
  const jobs: Effect[] = [];
  switch (order.state) {
    case "draft":
      jobs.push(at({ type: "step", orderId }, order.expiresAt ?? now + timing.quoteTtlMs));
      break;
    case "quoted":
      // A quote that kept its draft's expiry keeps the draft's step where it is.
      if (
        from !== "draft" ||
        order.expiresAt === undefined ||
        order.expiresAt !== draftExpiry(order, timing)
      ) {
        jobs.push(at({ type: "step", orderId }, order.expiresAt ?? now));
      }
      break;
    case "paid": {
      // `pay`, run by the process that recorded the payment (store.ts `runHere`): no claim, no wait.
      const holdMs = payHoldMs(timing);
      jobs.push({ ...at({ type: "step", orderId }, now), runHere: true, ...(holdMs ? { holdMs } : {}) });
      break;
    }
    case "pending": {
      // The first status poll (a delivery webhook usually comes first): where the step stands when
      // `pay` answered within its hold, else moved there.
      const step = encodeJob({ type: "step", orderId });
      if (from === "paid" && firstPollStands(timing.stepAt, now, timing.pollMs)) {
        jobs.push({ stands: step, at: timing.stepAt ?? now });
      } else {
        jobs.push({ member: step, dueAt: now + timing.pollMs });
      }
      break;
    }
    case "delivered":
      jobs.push(finalMessage(order));
      // Recorded with the transition, so a crash can neither lose the bonus nor (the wallet's ref
      // is `referral:<orderId>`) pay it twice. Orders nobody paid for (`direct`) earn nothing.
      if (
        timing.referralBonus &&
        order.refund === "none" &&
        order.currency !== "NONE" &&
        order.rail !== "direct"
      ) {
        jobs.push(at({ type: "referral", orderId }, now));
      }
      break;
    case "failed":
    case "rejected": {
      jobs.push(alertMessage(order.state === "failed" ? "delivery_failed" : "pay_rejected", order));
      // A refund the bot makes itself goes first so the final message can say so; otherwise it goes at once.
      if (order.refund === "none" && refundsAutomatically(refundRoute(order))) {
        jobs.push(at({ type: "refund", orderId }, now));
      } else {
        jobs.push(finalMessage(order));
      }
      if (order.refund === "needed") jobs.push(alertMessage("refund_needed", order));
      break;
    }
    default:
      break;
  }
  // A quote that was paid, cancelled or expired has no expiry to wait for.
  const quoteStates: OrderState[] = ["draft", "quoted"];
  // A promo code's use: given back by an order that ended unpaid, counted again by a late payment.
  if (order.promo && from !== null && from !== order.state) {
    if (quoteStates.includes(from) && (order.state === "expired" || order.state === "cancelled"))
      jobs.push(at({ type: "prelease", orderId }, now));
    if (order.state === "paid" && (from === "expired" || from === "cancelled"))
      jobs.push(at({ type: "pclaim", orderId }, now));
  }
  // An order that no longer has a next step (an expired or cancelled quote, a rejected `pay`, a
  // settled order) leaves the schedule with this write; a step running now finds it gone.
  if (from !== null && STEP_STATES.includes(from) && !STEP_STATES.includes(order.state)) {
    jobs.push({ cancel: encodeJob({ type: "step", orderId }) });
    // So does the re-read a flood of delivery webhooks made due (steps.ts `onDeliveryHint`), in
    // the same ZREM: its run that settled the order has nothing left to finish.
    if (TRACKED_STATES.includes(from) && !TRACKED_STATES.includes(order.state)) {
      jobs.push({ cancel: encodeJob({ type: "track", orderId }) });
    }
  }
  // The card follows the order. When it becomes paid in the chat (a Telegram payment, the wallet,
  // Confirm) the bot shows it in its answer; a payment made on a provider's page has no such answer.
  // (An answer that waits for `pay` shows `pending` too: that write leaves its card out, pay-answers.ts.)
  // A fresh quote's card is the answer of the flow that asked for it.
  const moved = from !== null && from !== order.state;
  const rail = order.rail;
  const shownOnPayment = order.state === "paid" && rail !== "yookassa" && rail !== "cryptopay";
  const shownOnQuote = from === "draft" && order.state === "quoted";
  if (
    !shownOnPayment &&
    !shownOnQuote &&
    ((moved && order.cardMessageId !== undefined) || (moved && order.state === "pending"))
  ) {
    jobs.push(cardUpdate(order));
  }
  return jobs;
}
