import type { AlertKind, Order } from "./types.js";

/**
 * The follow-up work the orders engine schedules, one variant per kind. Jobs live in the
 * schedule (a Redis zset) as strings: `encodeJob` and `decodeJob` are the only places that
 * know the form (`<type>:<orderId>`, `alert:<kind>:<orderId>`, `xrefund:<orderId>:<chargeId>`,
 * `tpoll:<topupId>`).
 */
export type Job =
  /**
   * An order's next step, by the state it is in when the job runs: expire a quote that was not paid
   * in time (draft, quoted), call `pay` (paid), read its status from the reseller (pending). One
   * member for the three, moved by each write (one ZADD) rather than one added and another taken off.
   */
  | { type: "step"; orderId: string }
  /** Expire a quote that was not paid in time (scheduled by earlier versions; `step` now). */
  | { type: "expire"; orderId: string }
  /** Call `pay` for a paid order (scheduled by earlier versions; `step` now). */
  | { type: "submit"; orderId: string }
  /** Read an order's status from the reseller: a delivery webhook's hint (and earlier versions' polling). */
  | { type: "track"; orderId: string }
  /** Bring the customer's order card up to date. */
  | { type: "card"; orderId: string }
  /** Send the one final message. */
  | { type: "final"; orderId: string }
  /** Credit the referrer of a delivered order's customer (REFERRAL_PERCENT; see referral-bonus.ts). */
  | { type: "referral"; orderId: string }
  /** Refund the Stars payment of a failed or rejected order. */
  | { type: "refund"; orderId: string }
  /** Re-read the order's YooKassa and Crypto Pay payments (lost notifications). */
  | { type: "ppoll"; orderId: string }
  /** Finish a payment from the wallet whose debit was written but whose order was not marked paid (a crash). */
  | { type: "wsettle"; orderId: string }
  /** Re-read a wallet top-up's YooKassa and Crypto Pay payments (lost notifications; src/wallet/topups.ts). */
  | { type: "tpoll"; topupId: string }
  /** Refund a second payment for an order that was paid already. */
  | { type: "xrefund"; orderId: string; chargeId: string }
  /** Give back the promo code use of an order that ended unpaid (src/orders/promo-checkout.ts). */
  | { type: "prelease"; orderId: string }
  /** Count again the promo code use of an order paid after it had expired or been cancelled. */
  | { type: "pclaim"; orderId: string }
  /** Tell the operators about an order. */
  | { type: "alert"; kind: AlertKind; orderId: string }
  /** Check the reseller deposit (periodic, and after every pay). */
  | { type: "balance" }
  /** Move orders final for longer than the retention to the archive (periodic, see retention.ts). */
  | { type: "archive" };

export type JobType = Job["type"];

const ORDER_JOBS = new Set<string>([
  "step",
  "expire",
  "submit",
  "track",
  "card",
  "final",
  "refund",
  "ppoll",
  "wsettle",
  "referral",
  "prelease",
  "pclaim",
]);

export function encodeJob(job: Job): string {
  switch (job.type) {
    case "alert":
      return `alert:${job.kind}:${job.orderId}`;
    case "xrefund":
      return `xrefund:${job.orderId}:${job.chargeId}`;
    case "balance":
      return "balance:check";
    case "archive":
      return "archive:sweep";
    case "tpoll":
      return `tpoll:${job.topupId}`;
    default:
      return `${job.type}:${job.orderId}`;
  }
}

/** The job behind a schedule entry; null for an entry this version does not know. */
export function decodeJob(member: string): Job | null {
  const [type = "", first = "", ...rest] = member.split(":");
  const second = rest.join(":");
  if (type === "balance") return { type: "balance" };
  if (type === "archive") return { type: "archive" };
  if (!first) return null;
  if (type === "alert") return second ? { type, kind: first as AlertKind, orderId: second } : null;
  if (type === "xrefund") return { type, orderId: first, chargeId: second };
  if (type === "tpoll") return { type, topupId: first };
  if (ORDER_JOBS.has(type))
    return {
      type: type as Exclude<Job, { type: "alert" | "xrefund" | "balance" | "archive" | "tpoll" }>["type"],
      orderId: first,
    };
  return null;
}

/** Every alert kind (checked by the compiler), for the jobs an order may have. */
const ALERT_KINDS: Record<AlertKind, true> = {
  delivery_failed: true,
  pay_rejected: true,
  low_balance: true,
  stuck: true,
  refund_needed: true,
  reseller_auth: true,
  reseller_down: true,
  duplicate_payment: true,
  product_paused: true,
  product_resumed: true,
};

/** Every schedule member that can belong to `order`: removed with it when it is archived. */
export function jobsOfOrder(order: Order): string[] {
  const orderId = order.id;
  return [
    ...[...ORDER_JOBS].map((type) => `${type}:${orderId}`),
    ...(Object.keys(ALERT_KINDS) as AlertKind[]).map((kind) => encodeJob({ type: "alert", kind, orderId })),
    ...(order.extraCharges ?? []).map((c) =>
      encodeJob({ type: "xrefund", orderId, chargeId: c.telegramChargeId }),
    ),
  ];
}

/** The type of an encoded job, for logs and metrics. */
export function jobTypeOf(member: string): string {
  return member.split(":")[0] ?? "";
}
