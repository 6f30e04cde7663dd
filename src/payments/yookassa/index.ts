/**
 * YooKassa (API v3) for the checkout: a thin typed client on the project's undici pool with zod
 * parsing, chosen over `@a2seven/yoo-checkout` so that retries, timeouts, typed errors, secret
 * scrubbing and kopeck-exact amounts follow the same rules as the reseller client.
 *
 * The interface the checkout calls:
 *
 *   const yk = createYooKassaClient({ apiUrl: YOOKASSA_API_URL, shopId: YOOKASSA_SHOP_ID,
 *                                     secretKey: YOOKASSA_SECRET_KEY, logger });
 *
 *   // Order card button. Same order → same key → one payment, however often this is repeated
 *   // (double tap, retry, crash and restart). Store payment.id on the order before showing the button.
 *   const payment = await yk.createPayment({
 *     amountKopecks, description, orderId, returnUrl,
 *     idempotenceKey: idempotenceKeyFor("pay", orderId),
 *   });
 *   payment.confirmationUrl  // the URL button
 *
 *   // POST /webhooks/yookassa: the body is unsigned, only a hint.
 *   const hint = parseNotification(rawBody);
 *   //   "malformed" → 400; "ignored" → 200; "hint" → 200, then re-read:
 *   const fresh = await yk.getPayment(hint.paymentId);
 *   //   fresh.status "succeeded" && fresh.paid → the order is paid (check fresh.orderId and
 *   //   fresh.amountKopecks against the order); "canceled" → fresh.cancellation says why.
 *   //   Polling for lost notifications calls getPayment the same way.
 *
 *   // Failed or rejected order: refund on the rail it came from.
 *   const refund = await yk.createRefund({
 *     paymentId, amountKopecks, idempotenceKey: idempotenceKeyFor("refund", orderId),
 *   });
 *   //   refund.status "succeeded" (or "pending": re-read the payment's refundedKopecks later).
 *
 * Errors: every call throws `YooKassaApiError` (`transient` → try again later with the same key;
 * otherwise permanent: `kind` invalid_request | auth | forbidden | not_found | bad_response) or,
 * before sending anything, `YooKassaValidationError`. Amounts are whole kopecks everywhere.
 */
export {
  type CreatePaymentInput,
  type CreateRefundInput,
  createYooKassaClient,
  fitIdempotenceKey,
  idempotenceKeyFor,
  type RequestOptions,
  type YooKassaClient,
  type YooKassaClientOptions,
} from "./client.js";
export { YooKassaApiError, type YooKassaErrorKind, YooKassaValidationError } from "./errors.js";
export { formatKopecks, parseKopecks } from "./money.js";
export {
  type NotificationEvent,
  type NotificationHint,
  type PaymentStatus,
  parseNotification,
  type RefundStatus,
  type YooKassaPayment,
  type YooKassaRefund,
} from "./parse.js";
