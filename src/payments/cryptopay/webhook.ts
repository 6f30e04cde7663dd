import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { type CryptoPayInvoice, parseInvoice, ResponseShapeError, updateSchema } from "./schemas.js";

/**
 * Crypto Pay's webhook updates (`POST /webhooks/cryptopay`). Crypto Pay signs each update with
 * header `crypto-pay-api-signature`: hex HMAC-SHA256 of the raw body, keyed with SHA-256 of the
 * app's token. A verified update is still only a hint: the invoice is re-read with getInvoices
 * before any order changes.
 */

/** The signature Crypto Pay puts in `crypto-pay-api-signature` for this raw body. */
export function signCryptoPayUpdate(rawBody: Buffer | string, token: string): string {
  const secret = createHash("sha256").update(token).digest();
  return createHmac("sha256", secret).update(rawBody).digest("hex");
}

/**
 * True only when `signatureHeader` is the signature of exactly these bytes under `token`.
 * Constant-time compare after a length check; a missing header, an empty token or a header that
 * is not 64 hex digits is false.
 */
export function verifyCryptoPayUpdate(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  token: string,
): boolean {
  if (!token || typeof signatureHeader !== "string") return false;
  const given = signatureHeader.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const a = Buffer.from(given, "hex");
  const b = Buffer.from(signCryptoPayUpdate(rawBody, token), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface CryptoPayInvoicePaidUpdate {
  updateId: number;
  updateType: "invoice_paid";
  requestDate: string | null;
  invoiceId: number;
  /** Our order (or top-up) id from the invoice payload; null when the invoice was not made by this bot. */
  orderId: string | null;
  /** The invoice's raw payload string. */
  payload: string | null;
  /** The invoice as the update carried it: a hint, to be re-read with getInvoices. */
  invoice: CryptoPayInvoice;
}

export type ParsedCryptoPayUpdate =
  | { ok: true; update: CryptoPayInvoicePaidUpdate }
  /** `malformed`: answer 400. `unsupported`: a well-formed update of a type we do not handle; answer 200 and ignore. */
  | { ok: false; kind: "malformed" | "unsupported"; reason: string };

/** Reads a verified update body (the raw bytes, their text, or already-parsed JSON). Never throws. */
export function parseCryptoPayUpdate(body: Buffer | string | unknown): ParsedCryptoPayUpdate {
  let value: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === "string") {
    try {
      value = JSON.parse(String(body));
    } catch {
      return { ok: false, kind: "malformed", reason: "the body is not JSON" };
    }
  }
  const r = updateSchema.safeParse(value);
  if (!r.success) {
    return { ok: false, kind: "malformed", reason: "expected { update_id, update_type, payload }" };
  }
  if (r.data.update_type !== "invoice_paid") {
    return { ok: false, kind: "unsupported", reason: `update_type ${r.data.update_type} is not handled` };
  }
  let invoice: CryptoPayInvoice;
  try {
    invoice = parseInvoice(r.data.payload);
  } catch (err) {
    const reason = err instanceof ResponseShapeError ? err.message : String(err);
    return { ok: false, kind: "malformed", reason: `payload: ${reason}` };
  }
  return {
    ok: true,
    update: {
      updateId: r.data.update_id,
      updateType: "invoice_paid",
      requestDate: r.data.request_date ?? null,
      invoiceId: invoice.invoiceId,
      orderId: invoice.orderId,
      payload: invoice.payload,
      invoice,
    },
  };
}
