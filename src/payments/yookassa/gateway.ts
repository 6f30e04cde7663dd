import { cutText } from "../../util/text.js";
import type { PaymentGateway, PaymentStatus, PaymentSubject } from "../gateway.js";
import { fitIdempotenceKey, idempotenceKeyFor, type YooKassaClient } from "./client.js";
import { YooKassaApiError } from "./errors.js";
import type { YooKassaPayment } from "./parse.js";

/**
 * YooKassa as a payment gateway: a redirect payment captured at once, its Idempotence-Key derived
 * from the subject and attempt (so a double tap or a retry makes one payment), `metadata.order_id`
 * naming the subject; refunds through `POST /refunds` with a key derived from the refund's purpose.
 */
export function yookassaGateway(
  client: YooKassaClient,
  /** Where YooKassa sends the customer after paying: the bot's chat (known once the bot has started). */
  opts: { returnUrl: () => string },
): PaymentGateway {
  return {
    rail: "yookassa",
    async create(p) {
      const payment = await client.createPayment({
        amountKopecks: p.amountKopecks,
        description: cutText(p.description, 128),
        orderId: p.subject.id,
        returnUrl: opts.returnUrl(),
        idempotenceKey: idempotenceKeyFor(
          p.subject.kind === "order" ? "pay" : "topup",
          p.subject.id,
          p.attempt || undefined,
        ),
        metadata: { purpose: p.subject.kind },
      });
      if (!payment.confirmationUrl) throw new Error(`YooKassa payment ${payment.id} has no confirmation URL`);
      return { id: payment.id, url: payment.confirmationUrl };
    },
    async read(ids) {
      const out: PaymentStatus[] = [];
      for (const id of ids) {
        try {
          out.push(statusOf(await client.getPayment(id)));
        } catch (err) {
          if (err instanceof YooKassaApiError && err.kind === "not_found") continue;
          throw err;
        }
      }
      return out;
    },
    async refund(paymentId, amountKopecks, key) {
      const r = await client.createRefund({
        paymentId,
        amountKopecks,
        idempotenceKey: fitIdempotenceKey(key),
      });
      if (r.status === "canceled") throw new Error(`YooKassa refused refund ${r.id} of payment ${paymentId}`);
      return { refundId: r.id, done: r.status === "succeeded" };
    },
    async refundSettled(refundId) {
      const r = await client.getRefund(refundId);
      if (r.status === "canceled") throw new Error(`YooKassa cancelled refund ${r.id}`);
      return r.status === "succeeded";
    },
  };
}

function statusOf(p: YooKassaPayment): PaymentStatus {
  const purpose = p.metadata.purpose === "topup" ? "topup" : "order";
  const subject: PaymentSubject | null = p.orderId ? { kind: purpose, id: p.orderId } : null;
  return {
    rail: "yookassa",
    id: p.id,
    // A two-stage payment waiting for capture is not the shop's money yet; the bot creates one-stage payments.
    status: p.status === "succeeded" && p.paid ? "paid" : p.status === "canceled" ? "cancelled" : "open",
    subject,
    amountKopecks: p.currency === "RUB" ? p.amountKopecks : null,
    url: p.confirmationUrl,
  };
}
