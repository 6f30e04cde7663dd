import { z } from "zod";
import { amountToKopecks } from "./amount.js";

/**
 * Zod schemas of Crypto Pay's answers (https://help.crypt.bot/crypto-pay-api), tolerant of fields
 * the API adds later (every object is loose and keeps them in `raw`), and our normalised types.
 */

export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
}

/** `{ ok: true, result }` or `{ ok: false, error: { code, name } }`. */
export const envelopeSchema = z.union([
  z.looseObject({ ok: z.literal(true), result: z.unknown() }),
  z.looseObject({
    ok: z.literal(false),
    error: z.union([
      z.looseObject({ code: z.coerce.number().optional(), name: z.string().optional() }),
      z.string(),
    ]),
  }),
]);

const optText = z.string().nullish();
/** A decimal that Crypto Pay sends as a string; numbers are taken as their decimal text. */
const decimal = z.union([z.string(), z.number().transform((n) => String(n))]);

export const INVOICE_STATUSES = ["active", "paid", "expired"] as const;
export type CryptoPayInvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const invoiceSchema = z.looseObject({
  invoice_id: z.coerce.number().int().positive(),
  hash: optText,
  status: z.enum(INVOICE_STATUSES),
  currency_type: optText,
  asset: optText,
  fiat: optText,
  amount: decimal,
  paid_asset: optText,
  paid_amount: decimal.nullish(),
  paid_at: optText,
  created_at: optText,
  expiration_date: optText,
  bot_invoice_url: optText,
  mini_app_invoice_url: optText,
  web_app_invoice_url: optText,
  pay_url: optText,
  description: optText,
  payload: optText,
});

export const invoiceListSchema = z.union([
  z.array(z.unknown()),
  z.looseObject({ items: z.array(z.unknown()) }).transform((r) => r.items),
]);

export const appSchema = z.looseObject({
  app_id: z.coerce.number(),
  name: z.string(),
  payment_processing_bot_username: z.string().nullish(),
});

export const updateSchema = z.looseObject({
  update_id: z.coerce.number().int(),
  update_type: z.string(),
  request_date: optText,
  payload: z.unknown(),
});

/** A Crypto Pay invoice, normalised. Amounts stay decimal strings as sent; `amountKopecks` is exact. */
export interface CryptoPayInvoice {
  invoiceId: number;
  /** The invoice's public hash (part of its URLs); null when absent. */
  hash: string | null;
  status: CryptoPayInvoiceStatus;
  /** "fiat" for our invoices. */
  currencyType: string | null;
  fiat: string | null;
  /** The amount as sent by Crypto Pay, e.g. "123.45". */
  amount: string;
  /** The amount in kopecks when the invoice is priced in RUB; null otherwise or when unreadable. */
  amountKopecks: number | null;
  /** The coin the customer paid with (e.g. "USDT"), once paid. */
  paidAsset: string | null;
  paidAmount: string | null;
  /** ISO 8601, once paid. */
  paidAt: string | null;
  createdAt: string | null;
  expirationDate: string | null;
  botInvoiceUrl: string | null;
  miniAppInvoiceUrl: string | null;
  webAppInvoiceUrl: string | null;
  /** The best URL to show the customer: bot, then mini app, then web app, then the deprecated pay_url. */
  payUrl: string | null;
  /** The raw payload string we attached. */
  payload: string | null;
  /** The order (or top-up) id our payload carries; null when the invoice was not made by this client. */
  orderId: string | null;
  /** The caller's own extra payload, when one was given to createInvoice. */
  payloadData: string | null;
  raw: Record<string, unknown>;
}

export interface CryptoPayApp {
  appId: number;
  name: string;
  paymentProcessingBotUsername: string | null;
  raw: Record<string, unknown>;
}

/** Version mark of our payload format, so a payload made by another tool is not mistaken for ours. */
const PAYLOAD_MARK = "shopbot/1";

/** The payload string this client attaches to an invoice: the order id and the caller's optional extra. */
export function encodeInvoicePayload(orderId: string, data?: string): string {
  const p: Record<string, string> = { v: PAYLOAD_MARK, order_id: orderId };
  if (data !== undefined) p.data = data;
  return JSON.stringify(p);
}

/** The order id and extra data of a payload this client made; nulls for anything else. */
export function decodeInvoicePayload(payload: string | null | undefined): {
  orderId: string | null;
  data: string | null;
} {
  if (!payload) return { orderId: null, data: null };
  try {
    const p = JSON.parse(payload) as unknown;
    if (typeof p === "object" && p !== null && (p as { v?: unknown }).v === PAYLOAD_MARK) {
      const { order_id, data } = p as { order_id?: unknown; data?: unknown };
      if (typeof order_id === "string" && order_id !== "") {
        return { orderId: order_id, data: typeof data === "string" ? data : null };
      }
    }
  } catch {
    // not ours
  }
  return { orderId: null, data: null };
}

const orNull = <T>(v: T | null | undefined): T | null => v ?? null;

/** Normalises one invoice; throws ResponseShapeError naming what is wrong. */
export function parseInvoice(value: unknown): CryptoPayInvoice {
  const r = invoiceSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new ResponseShapeError(
      `not an invoice: ${issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "invalid"}`,
    );
  }
  const i = r.data;
  const { orderId, data } = decodeInvoicePayload(i.payload);
  const isRub = i.fiat === "RUB" && (i.currency_type ?? "fiat") === "fiat";
  return {
    invoiceId: i.invoice_id,
    hash: orNull(i.hash),
    status: i.status,
    currencyType: orNull(i.currency_type),
    fiat: orNull(i.fiat),
    amount: i.amount,
    amountKopecks: isRub ? amountToKopecks(i.amount) : null,
    paidAsset: orNull(i.paid_asset),
    paidAmount: orNull(i.paid_amount),
    paidAt: orNull(i.paid_at),
    createdAt: orNull(i.created_at),
    expirationDate: orNull(i.expiration_date),
    botInvoiceUrl: orNull(i.bot_invoice_url),
    miniAppInvoiceUrl: orNull(i.mini_app_invoice_url),
    webAppInvoiceUrl: orNull(i.web_app_invoice_url),
    payUrl: i.bot_invoice_url ?? i.mini_app_invoice_url ?? i.web_app_invoice_url ?? i.pay_url ?? null,
    payload: orNull(i.payload),
    orderId,
    payloadData: data,
    raw: i as Record<string, unknown>,
  };
}

export function parseInvoiceList(value: unknown): CryptoPayInvoice[] {
  const r = invoiceListSchema.safeParse(value);
  if (!r.success) throw new ResponseShapeError("expected a list of invoices (an array or { items })");
  return r.data.map(parseInvoice);
}

export function parseApp(value: unknown): CryptoPayApp {
  const r = appSchema.safeParse(value);
  if (!r.success) throw new ResponseShapeError("expected an app { app_id, name }");
  return {
    appId: r.data.app_id,
    name: r.data.name,
    paymentProcessingBotUsername: orNull(r.data.payment_processing_bot_username),
    raw: r.data as Record<string, unknown>,
  };
}
