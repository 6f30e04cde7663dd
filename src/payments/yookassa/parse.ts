import { z } from "zod";
import { parseKopecks } from "./money.js";

/**
 * Zod parsers for YooKassa's bodies: the payment and refund objects, error bodies and
 * notifications. Unknown fields are ignored (YooKassa adds fields without notice); the fields the
 * bot decides on (id, status, amount) must be present and well-formed, or the parse fails.
 */

export const PAYMENT_STATUSES = ["pending", "waiting_for_capture", "succeeded", "canceled"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const REFUND_STATUSES = ["pending", "succeeded", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** A payment as the bot sees it; money in kopecks. */
export interface YooKassaPayment {
  id: string;
  status: PaymentStatus;
  paid: boolean;
  amountKopecks: number;
  currency: string;
  /** Sum of the succeeded refunds (`refunded_amount`), 0 when none. */
  refundedKopecks: number;
  /** Where to send the customer (redirect confirmation), while the payment waits for them. */
  confirmationUrl: string | null;
  description: string | null;
  /** `metadata` as sent on creation; string values only. */
  metadata: Record<string, string>;
  /** `metadata.order_id`, the order this payment belongs to. */
  orderId: string | null;
  createdAt: string;
  /** Why a payment was canceled (`cancellation_details`), null otherwise. */
  cancellation: { party: string; reason: string } | null;
  /** True for payments in a test shop. */
  test: boolean;
}

export interface YooKassaRefund {
  id: string;
  paymentId: string;
  status: RefundStatus;
  amountKopecks: number;
  currency: string;
  createdAt: string | null;
  description: string | null;
}

export class YooKassaShapeError extends Error {
  override readonly name = "YooKassaShapeError";
}

const amountSchema = z.looseObject({
  value: z.union([z.string(), z.number().transform((n) => String(n))]).transform((s, ctx) => {
    const k = parseKopecks(s);
    if (k === null) {
      ctx.addIssue({ code: "custom", message: `not an amount: "${s}"` });
      return z.NEVER;
    }
    return k;
  }),
  currency: z.string().min(1),
});

const paymentSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(PAYMENT_STATUSES),
  paid: z.boolean().optional(),
  amount: amountSchema,
  refunded_amount: amountSchema.optional().nullable(),
  confirmation: z.looseObject({ confirmation_url: z.string().optional() }).optional().nullable(),
  description: z.string().optional().nullable(),
  metadata: z.record(z.string(), z.unknown()).optional().nullable(),
  created_at: z.string().min(1),
  cancellation_details: z
    .looseObject({ party: z.string().optional(), reason: z.string().optional() })
    .optional()
    .nullable(),
  test: z.boolean().optional(),
});

const refundSchema = z.looseObject({
  id: z.string().min(1),
  payment_id: z.string().min(1),
  status: z.enum(REFUND_STATUSES),
  amount: amountSchema,
  created_at: z.string().optional(),
  description: z.string().optional().nullable(),
});

function issues(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ");
}

export function parsePayment(body: unknown): YooKassaPayment {
  const r = paymentSchema.safeParse(body);
  if (!r.success) throw new YooKassaShapeError(`not a payment object (${issues(r.error)})`);
  const p = r.data;
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (typeof v === "string") metadata[k] = v;
  return {
    id: p.id,
    status: p.status,
    paid: p.paid ?? p.status === "succeeded",
    amountKopecks: p.amount.value,
    currency: p.amount.currency,
    refundedKopecks: p.refunded_amount?.value ?? 0,
    confirmationUrl: p.confirmation?.confirmation_url ?? null,
    description: p.description ?? null,
    metadata,
    orderId: metadata.order_id ?? null,
    createdAt: p.created_at,
    cancellation: p.cancellation_details
      ? { party: p.cancellation_details.party ?? "", reason: p.cancellation_details.reason ?? "" }
      : null,
    test: p.test ?? false,
  };
}

export function parseRefund(body: unknown): YooKassaRefund {
  const r = refundSchema.safeParse(body);
  if (!r.success) throw new YooKassaShapeError(`not a refund object (${issues(r.error)})`);
  const x = r.data;
  return {
    id: x.id,
    paymentId: x.payment_id,
    status: x.status,
    amountKopecks: x.amount.value,
    currency: x.amount.currency,
    createdAt: x.created_at ?? null,
    description: x.description ?? null,
  };
}

/** YooKassa's error body: `{ type: "error", id, code, description, parameter }`. */
export interface YooKassaErrorBody {
  code: string | null;
  description: string | null;
  parameter: string | null;
  id: string | null;
}

const errorSchema = z.looseObject({
  type: z.string().optional(),
  id: z.string().optional(),
  code: z.string().optional(),
  description: z.string().optional(),
  parameter: z.string().optional(),
});

export function parseErrorBody(body: unknown): YooKassaErrorBody {
  const r = errorSchema.safeParse(body);
  if (!r.success) {
    return {
      code: null,
      description: typeof body === "string" && body.trim() ? body.trim() : null,
      parameter: null,
      id: null,
    };
  }
  return {
    code: r.data.code ?? null,
    description: r.data.description ?? null,
    parameter: r.data.parameter ?? null,
    id: r.data.id ?? null,
  };
}

/** The 202 answer `{ type: "processing", retry_after }`: retry_after in ms, or null when not that answer. */
export function processingRetryAfterMs(body: unknown): number | null {
  const r = z
    .looseObject({ type: z.literal("processing"), retry_after: z.number().optional() })
    .safeParse(body);
  if (!r.success) return null;
  return r.data.retry_after ?? 1000;
}

export const NOTIFICATION_EVENTS = [
  "payment.succeeded",
  "payment.canceled",
  "payment.waiting_for_capture",
  "refund.succeeded",
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/**
 * What a notification tells, as a hint only: notifications are not signed, so the caller
 * re-reads the payment with `getPayment(paymentId)` before changing anything.
 * - `hint`: one of the four events, with the payment it concerns (and the refund for refund events).
 * - `ignored`: a well-formed notification of an event the bot does not handle (answer 200).
 * - `malformed`: not a notification at all (answer 400).
 */
export type NotificationHint =
  | { kind: "hint"; event: NotificationEvent; paymentId: string; refundId: string | null }
  | { kind: "ignored"; event: string }
  | { kind: "malformed"; reason: string };

const notificationSchema = z.looseObject({
  type: z.literal("notification"),
  event: z.string().min(1),
  object: z.looseObject({ id: z.string().min(1), payment_id: z.string().min(1).optional() }),
});

/** Reads a notification body: the raw text (or bytes) as received, or already-parsed JSON. */
export function parseNotification(body: string | Buffer | unknown): NotificationHint {
  let json: unknown = body;
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    try {
      json = JSON.parse(body.toString());
    } catch {
      return { kind: "malformed", reason: "the body is not JSON" };
    }
  }
  const r = notificationSchema.safeParse(json);
  if (!r.success) return { kind: "malformed", reason: `not a YooKassa notification (${issues(r.error)})` };
  const { event, object } = r.data;
  if (!(NOTIFICATION_EVENTS as readonly string[]).includes(event)) return { kind: "ignored", event };
  const ev = event as NotificationEvent;
  if (ev === "refund.succeeded") {
    if (!object.payment_id) return { kind: "malformed", reason: "a refund notification without payment_id" };
    return { kind: "hint", event: ev, paymentId: object.payment_id, refundId: object.id };
  }
  return { kind: "hint", event: ev, paymentId: object.id, refundId: null };
}
