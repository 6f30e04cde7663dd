/**
 * Crypto Pay (@CryptoBot's API, https://help.crypt.bot/crypto-pay-api): the client, the webhook
 * check and the money helpers the checkout calls. Nothing here knows orders, Redis or grammY.
 *
 * The interface the wiring calls
 * ------------------------------
 *   const cryptoPay = createCryptoPayClient({ apiUrl: CRYPTOPAY_API_URL, token: CRYPTOPAY_TOKEN, logger });
 *
 *   // order card → "Pay with crypto"
 *   const inv = await cryptoPay.createInvoice({
 *     amountKopecks,                 // integer, the customer price; sent as fiat RUB "123.45"
 *     orderId: order.customId,       // carried in the invoice payload
 *     description,                   // ≤ 1024 characters
 *     expiresInSeconds,              // the quote's remaining life, so both expire together
 *     payload: "order",              // optional extra of the caller's own ("order" / "topup")
 *   });
 *   // store inv.invoiceId on the order, then show a URL button to inv.payUrl
 *
 *   // POST /webhooks/cryptopay (raw body ≤ 64 KiB)
 *   if (!verifyCryptoPayUpdate(rawBody, req.headers["crypto-pay-api-signature"], CRYPTOPAY_TOKEN)) → 401
 *   const u = parseCryptoPayUpdate(rawBody);
 *   if (!u.ok) → u.kind === "malformed" ? 400 : 200 (ignored)
 *   const inv = await cryptoPay.getInvoice(u.update.invoiceId);   // the source of truth
 *   if (inv?.status === "paid" && inv.orderId) → check inv.fiat === "RUB" and inv.amountKopecks equals
 *     the order's price, then mark the order paid (atomic, checked against its state)
 *
 *   // polling for lost updates: re-read the invoice ids stored on unpaid orders in batches
 *   await cryptoPay.getInvoices({ invoiceIds: [id1, id2, …] });
 *
 * Invoice fields the wiring reads: invoiceId, status ("active" | "paid" | "expired"), payUrl
 * (botInvoiceUrl / miniAppInvoiceUrl / webAppInvoiceUrl), amountKopecks, paidAsset, paidAmount,
 * paidAt, orderId (decoded from payload), raw.
 *
 * Errors: `CryptoPayError` with `kind` and `transient` (network, timeout, 5xx, 429 → true; auth
 * 401/UNAUTHORIZED and refused requests → false), `code` = Crypto Pay's error name, and
 * `outcomeUnknown` when the request may have been processed. `CryptoPayValidationError` when our
 * own input is wrong (nothing was sent).
 *
 * Why a thin client of our own: the published ones (`crypto-bot-api`, `@foile/crypto-pay-api`) take
 * amounts as JS numbers, bring their own HTTP stack without our pool, timeouts or retries, and do
 * not tell a transient failure from a refused request; this one is a few hundred lines on the project's
 * undici pool with zod schemas and typed errors, like the reseller client.
 *
 * Paying twice: Crypto Pay has no idempotency key
 * -----------------------------------------------
 * createInvoice cannot be made idempotent on Crypto Pay's side, so the client and the caller
 * together keep one order to one payable invoice, and any second payment is caught:
 *
 * 1. Every invoice's payload names its order (`encodeInvoicePayload`), so an invoice can always be
 *    traced back to its order, from an update, a re-read or a listing.
 * 2. Inside createInvoice, a retry after an unanswered attempt (network, timeout, 5xx) first
 *    lists the newest active invoices and returns the one already made for this order and amount.
 * 3. When createInvoice still fails with `outcomeUnknown`, the caller records that on the order
 *    and, before the next createInvoice for the same order, calls
 *    `findInvoicesForOrder(orderId, { status: "active" })` and reuses what it finds. The invoice id
 *    is stored on the order before the invoice is shown, so a double tap reuses it.
 * 4. If two invoices were made anyway and both get paid, the second `invoice_paid` names an order
 *    that is already paid (or whose stored invoice id differs): that payment is a second payment
 *    for one order — credited to the wallet when `wallet` is offered, otherwise flagged for the
 *    operators — never a second delivery. `findInvoicesForOrder(orderId, { status: "paid" })`
 *    lists every paid invoice of an order for an operator or a reconciliation job.
 */
export { amountToKopecks, kopecksToAmount } from "./amount.js";
export {
  type CreateInvoiceInput,
  type CryptoPayClient,
  type CryptoPayClientOptions,
  createCryptoPayClient,
  type FindInvoicesInput,
  type GetInvoicesInput,
} from "./client.js";
export { CryptoPayError, type CryptoPayErrorKind, CryptoPayValidationError } from "./errors.js";
export {
  type CryptoPayApp,
  type CryptoPayInvoice,
  type CryptoPayInvoiceStatus,
  decodeInvoicePayload,
  encodeInvoicePayload,
} from "./schemas.js";
export {
  type CryptoPayInvoicePaidUpdate,
  type ParsedCryptoPayUpdate,
  parseCryptoPayUpdate,
  signCryptoPayUpdate,
  verifyCryptoPayUpdate,
} from "./webhook.js";
