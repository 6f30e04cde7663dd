import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import { railOf } from "./rails.js";
import { FINAL_STATES, type Order } from "./types.js";

/**
 * The operators' CSV export (`/export`): one row per order, written with csv-stringify as
 * UTF-8 with a BOM (so Excel reads Cyrillic) and CRLF line ends. No I/O of its own besides the
 * stream it is given.
 *
 * Formula safety: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a CR would be run by
 * a spreadsheet as a formula (a customer chooses their username, a recipient, a game's fields),
 * so it gets a leading `'`. Numeric cells are written by this module from integers (kopecks,
 * Stars, user ids) and are left as they are, so a negative margin (the reseller charged more
 * than it quoted) stays a number: `-12.50`.
 */

export const EXPORT_COLUMNS = [
  "id",
  "created_at",
  "paid_at",
  "final_at",
  "customer_id",
  "customer_username",
  "product_kind",
  "product",
  "item_title",
  "quantity",
  "recipient",
  "parameters",
  "customer_price_rub",
  "wholesale_rub",
  "margin_rub",
  "rail",
  "paid_currency",
  "paid_amount",
  "state",
  "refund",
  "payment_ids",
  "promo_code",
  "promo_discount_rub",
] as const;

/** Telegram's limit for a document a bot uploads. */
export const EXPORT_MAX_BYTES = 50 * 1024 * 1024;

export class ExportTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the export is larger than ${limitBytes} bytes`);
    this.name = "ExportTooLargeError";
  }
}

/** Characters that make a spreadsheet read a cell as a formula when they come first. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet will show as text. */
export function formulaSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** Integer kopecks as roubles with 2 decimals (`-12.50`, `110.00`); empty when unknown. */
export function rubCell(kopecks: number | undefined): string {
  if (kopecks === undefined || !Number.isSafeInteger(kopecks)) return "";
  const abs = Math.abs(kopecks);
  return `${kopecks < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

const iso = (ms: number | undefined) => (ms === undefined ? "" : new Date(ms).toISOString());

/** The deposit cost of an order: what `pay` charged, else the wholesale price quoted. */
const costOf = (o: Order) => o.chargedKopecks ?? o.wholesaleKopecks;

/** One order's row, in EXPORT_COLUMNS order. Text cells are formula-safe. */
export function exportRow(order: Order): string[] {
  const text = (v: string | undefined) => formulaSafe(v ?? "");
  const paid = order.times.paid !== undefined;
  const finalAt = FINAL_STATES.includes(order.state) ? order.times[order.state] : undefined;
  const cost = costOf(order);
  // Margin as /stats counts it: delivered orders only (a failed order's deposit charge comes back).
  const margin =
    order.state === "delivered" && order.priceKopecks !== undefined && cost !== undefined
      ? order.priceKopecks - cost
      : undefined;
  const currency = paid && order.currency !== "NONE" ? order.currency : "";
  const amount =
    currency === "" || order.amount === undefined
      ? ""
      : currency === "XTR"
        ? String(order.amount)
        : rubCell(order.amount);
  const item = order.item;
  const parameters = Object.entries(item.fields ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  const paymentIds = new Set(
    [
      order.telegramChargeId,
      order.providerChargeId,
      ...(order.extraCharges ?? []).flatMap((c) => [c.telegramChargeId, c.providerChargeId]),
    ].filter((id): id is string => typeof id === "string" && id !== ""),
  );
  return [
    text(order.id),
    iso(order.createdAt),
    iso(order.times.paid),
    iso(finalAt),
    String(order.customer.userId),
    text(order.customer.username),
    text(item.kind),
    text(item.product),
    text(item.title),
    item.quantity === undefined ? "" : String(item.quantity),
    text(item.recipient),
    text(parameters),
    rubCell(order.priceKopecks),
    rubCell(cost),
    rubCell(margin),
    paid ? railOf(order) : "",
    currency,
    amount,
    order.state,
    order.refund,
    text([...paymentIds].join(" ")),
    text(order.promo?.code),
    rubCell(order.promo?.discountKopecks),
  ];
}

/**
 * Writes the orders as CSV to `out` (header first), chunk by chunk with the stream's
 * backpressure, and resolves with the number of rows. Rejects with ExportTooLargeError once the
 * file would pass `maxBytes` (what was written is then incomplete).
 */
export async function writeOrdersCsv(
  chunks: AsyncIterable<Order[]>,
  out: Writable,
  maxBytes = EXPORT_MAX_BYTES,
): Promise<number> {
  let rows = 0;
  async function* records(): AsyncGenerator<string[]> {
    for await (const chunk of chunks) {
      for (const order of chunk) {
        rows += 1;
        yield exportRow(order);
      }
    }
  }
  let bytes = 0;
  const limit = new Transform({
    transform(data: Buffer | string, _enc, done) {
      bytes += Buffer.byteLength(data);
      if (bytes > maxBytes) done(new ExportTooLargeError(maxBytes));
      else done(null, data);
    },
  });
  await pipeline(
    Readable.from(records()),
    stringify({ bom: true, header: true, columns: [...EXPORT_COLUMNS], record_delimiter: "windows" }),
    limit,
    out,
  );
  return rows;
}
