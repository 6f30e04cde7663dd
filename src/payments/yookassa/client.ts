import { createHash } from "node:crypto";
import { YooKassaValidationError } from "./errors.js";
import { createYooKassaTransport, type YooKassaClientOptions } from "./http.js";
import { formatKopecks } from "./money.js";
import {
  parsePayment,
  parseRefund,
  type YooKassaPayment,
  type YooKassaRefund,
  YooKassaShapeError,
} from "./parse.js";

/**
 * The YooKassa API v3 client: createPayment, getPayment, createRefund, getRefund over one undici pool
 * (see http.ts for auth and retries). Inputs are checked against YooKassa's documented limits
 * before anything is sent; money goes in and out as whole kopecks.
 */

export type { YooKassaClientOptions } from "./http.js";

export interface CreatePaymentInput {
  /** The price in kopecks, a positive whole number. */
  amountKopecks: number;
  /** Shown to the customer on YooKassa's page; at most 128 characters. */
  description: string;
  /** The order's custom_id; sent as `metadata.order_id`. */
  orderId: string;
  /** Where YooKassa sends the customer after paying (e.g. https://t.me/<bot>). */
  returnUrl: string;
  /** Same order, same key: see `idempotenceKeyFor("pay", orderId)`. At most 64 characters. */
  idempotenceKey: string;
  /** Extra metadata (string values); `order_id` is always set from `orderId`. */
  metadata?: Record<string, string>;
  /** Default true: one-stage payment, money is captured at once. */
  capture?: boolean;
}

export interface CreateRefundInput {
  paymentId: string;
  /** A positive whole number of kopecks, at most what is paid and not yet refunded. */
  amountKopecks: number;
  /** See `idempotenceKeyFor("refund", orderId)`. At most 64 characters. */
  idempotenceKey: string;
  /** At most 250 characters. */
  description?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface YooKassaClient {
  createPayment(input: CreatePaymentInput, o?: RequestOptions): Promise<YooKassaPayment>;
  getPayment(paymentId: string, o?: RequestOptions): Promise<YooKassaPayment>;
  createRefund(input: CreateRefundInput, o?: RequestOptions): Promise<YooKassaRefund>;
  /** A refund re-read (a `pending` one settles later as `succeeded` or `canceled`). */
  getRefund(refundId: string, o?: RequestOptions): Promise<YooKassaRefund>;
  close(): Promise<void>;
}

const MAX_KEY = 64;

/**
 * The Idempotence-Key for one purpose of one order: `pay:<orderId>`, `refund:<orderId>`, or with a
 * suffix (`refund:<orderId>:2` for a second partial refund). Stable across retries, crashes and
 * restarts because it depends on nothing else. Longer than 64 characters → the order id part is
 * replaced by its SHA-256 prefix, still stable.
 */
export function idempotenceKeyFor(purpose: string, orderId: string, suffix?: string | number): string {
  if (!/^[a-z][a-z0-9_-]*$/i.test(purpose))
    throw new Error(`idempotence key purpose "${purpose}" is not a plain word`);
  if (orderId === "") throw new Error("idempotence key needs an order id");
  const tail = suffix === undefined ? "" : `:${suffix}`;
  const plain = `${purpose}:${orderId}${tail}`;
  if (plain.length <= MAX_KEY) return plain;
  const room = MAX_KEY - purpose.length - 1 - tail.length;
  if (room < 16) throw new Error("idempotence key purpose and suffix leave no room for the order id");
  const hash = createHash("sha256").update(orderId).digest("hex").slice(0, Math.min(room, 64));
  return `${purpose}:${hash}${tail}`;
}

/**
 * A key made elsewhere (e.g. `xrefund:<orderId>:yookassa:<paymentId>`) brought within 64
 * characters: unchanged when it fits, else its start and a SHA-256 of the whole key, so keys that
 * differ only past the 64th character stay distinct.
 */
export function fitIdempotenceKey(key: string): string {
  if (key.length <= MAX_KEY) return key;
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 32);
  return `${key.slice(0, MAX_KEY - hash.length - 1)}~${hash}`;
}

type Issue = { field: string; message: string };

function checkKey(issues: Issue[], key: unknown) {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY || !/^[\x21-\x7e]+$/.test(key))
    issues.push({
      field: "idempotenceKey",
      message: "must be 1–64 printable ASCII characters without spaces",
    });
}

function checkAmount(issues: Issue[], field: string, v: unknown) {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0)
    issues.push({ field, message: "must be a positive whole number of kopecks" });
}

function checkId(issues: Issue[], field: string, v: unknown) {
  if (typeof v !== "string" || v.trim() === "" || v.length > 64 || /[/?#\s]/.test(v))
    issues.push({ field, message: "must be a non-empty id without slashes or spaces (≤ 64 characters)" });
}

function paymentBody(input: CreatePaymentInput): Record<string, unknown> {
  const issues: Issue[] = [];
  checkAmount(issues, "amountKopecks", input.amountKopecks);
  checkKey(issues, input.idempotenceKey);
  if (
    typeof input.description !== "string" ||
    input.description.trim() === "" ||
    input.description.length > 128
  )
    issues.push({ field: "description", message: "must be 1–128 characters" });
  if (typeof input.orderId !== "string" || input.orderId === "" || input.orderId.length > 512)
    issues.push({ field: "orderId", message: "must be a non-empty string (≤ 512 characters)" });
  if (
    typeof input.returnUrl !== "string" ||
    !/^https?:\/\//i.test(input.returnUrl) ||
    !URL.canParse(input.returnUrl)
  )
    issues.push({ field: "returnUrl", message: "must be an http(s) URL" });
  const metadata: Record<string, string> = { ...(input.metadata ?? {}), order_id: input.orderId };
  const keys = Object.keys(metadata);
  if (keys.length > 16) issues.push({ field: "metadata", message: "at most 16 keys" });
  for (const k of keys) {
    const v = metadata[k];
    if (k.length > 32 || typeof v !== "string" || v.length > 512)
      issues.push({
        field: `metadata.${k}`,
        message: "keys ≤ 32 characters, values strings ≤ 512 characters",
      });
  }
  if (issues.length > 0) throw new YooKassaValidationError(issues);
  return {
    amount: { value: formatKopecks(input.amountKopecks), currency: "RUB" },
    capture: input.capture ?? true,
    confirmation: { type: "redirect", return_url: input.returnUrl },
    description: input.description,
    metadata,
  };
}

function refundBody(input: CreateRefundInput): Record<string, unknown> {
  const issues: Issue[] = [];
  checkId(issues, "paymentId", input.paymentId);
  checkAmount(issues, "amountKopecks", input.amountKopecks);
  checkKey(issues, input.idempotenceKey);
  if (
    input.description !== undefined &&
    (typeof input.description !== "string" || input.description.length > 250)
  )
    issues.push({ field: "description", message: "must be at most 250 characters" });
  if (issues.length > 0) throw new YooKassaValidationError(issues);
  return {
    payment_id: input.paymentId,
    amount: { value: formatKopecks(input.amountKopecks), currency: "RUB" },
    ...(input.description ? { description: input.description } : {}),
  };
}

export function createYooKassaClient(opts: YooKassaClientOptions): YooKassaClient {
  const { call, close } = createYooKassaTransport(opts);
  return {
    async createPayment(input, o) {
      const body = paymentBody(input);
      return call({
        method: "POST",
        endpoint: "POST /payments",
        path: "/payments",
        body,
        idempotenceKey: input.idempotenceKey,
        signal: o?.signal,
        parse: (b) => {
          const p = parsePayment(b);
          // The key decides which payment comes back: one made for another order or amount means
          // the key was reused, and this payment must not be taken for the order's.
          if (p.orderId !== input.orderId || p.amountKopecks !== input.amountKopecks)
            throw new YooKassaShapeError(
              `payment ${p.id} is for order ${p.orderId ?? "(none)"} and ${p.amountKopecks} kopecks, not order ${input.orderId} and ${input.amountKopecks}; was the Idempotence-Key used for another payment?`,
            );
          return p;
        },
      });
    },
    async getPayment(paymentId, o) {
      const issues: Issue[] = [];
      checkId(issues, "paymentId", paymentId);
      if (issues.length > 0) throw new YooKassaValidationError(issues);
      return call({
        method: "GET",
        endpoint: "GET /payments/{id}",
        path: `/payments/${encodeURIComponent(paymentId)}`,
        signal: o?.signal,
        parse: parsePayment,
      });
    },
    async getRefund(refundId, o) {
      const issues: Issue[] = [];
      checkId(issues, "refundId", refundId);
      if (issues.length > 0) throw new YooKassaValidationError(issues);
      return call({
        method: "GET",
        endpoint: "GET /refunds/{id}",
        path: `/refunds/${encodeURIComponent(refundId)}`,
        signal: o?.signal,
        parse: parseRefund,
      });
    },
    async createRefund(input, o) {
      const body = refundBody(input);
      return call({
        method: "POST",
        endpoint: "POST /refunds",
        path: "/refunds",
        body,
        idempotenceKey: input.idempotenceKey,
        signal: o?.signal,
        parse: (b) => {
          const r = parseRefund(b);
          if (r.paymentId !== input.paymentId || r.amountKopecks !== input.amountKopecks)
            throw new YooKassaShapeError(
              `refund ${r.id} is of payment ${r.paymentId} for ${r.amountKopecks} kopecks, not ${input.paymentId} for ${input.amountKopecks}; was the Idempotence-Key used for another refund?`,
            );
          return r;
        },
      });
    },
    close,
  };
}
