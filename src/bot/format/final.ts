import type { Order } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { type FormatOptions, refundLine, shortId } from "./card.js";
import { escapeHtml } from "./html.js";
import { describeItem, describeRecipient, fieldLabel, humanizeKey } from "./item.js";
import { clip } from "./operator.js";

/** Telegram's limit is 4096 characters; the payload part stays well below it. */
const PAYLOAD_BUDGET = 3000;

const TX_KEYS = ["tx_hash", "txhash", "tx", "transaction", "transaction_id", "transaction_hash"];
const CODE_LIST_KEYS = ["codes", "keys", "pins", "vouchers", "gift_codes"];
const CODE_KEYS = ["code", "key", "pin", "voucher", "gift_code", "activation_code", "license_key"];
/** Account details shown labelled, each value in <code> so it can be copied. */
const ACCOUNT_KEYS = [
  "login",
  "username",
  "email",
  "password",
  "account",
  "account_id",
  "link",
  "url",
  "activation_link",
];

function norm(key: string): string {
  return key.toLowerCase().replace(/[\s-]/g, "_");
}

/** "player_id" → "Player id". */
function scalar(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** Flattens nested objects into "a › b: value" pairs; arrays of scalars become one line. */
function flatten(value: unknown, path: string[], out: [string, string][]): void {
  if (Array.isArray(value)) {
    if (value.every((x) => x === null || typeof x !== "object"))
      out.push([path.join(" › "), value.map(scalar).join(", ")]);
    else
      value.forEach((x, i) => {
        flatten(x, [...path, String(i + 1)], out);
      });
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flatten(v, [...path, humanizeKey(k)], out);
  } else {
    out.push([path.join(" › "), scalar(value)]);
  }
}

/**
 * What was delivered, as HTML lines: the transaction hash, codes in <code> one per line,
 * account details, then every other key as a readable "Key: value" list. Everything escaped.
 */
export function renderPayload(payload: Record<string, unknown> | undefined, t: Translate): string[] {
  if (!payload) return [];
  const lines: string[] = [];
  const rest: [string, string][] = [];
  for (const [key, value] of Object.entries(payload)) {
    const k = norm(key);
    if (TX_KEYS.includes(k) && value !== null && typeof value !== "object") {
      lines.push(t("final-tx", { tx: `<code>${escapeHtml(scalar(value))}</code>` }));
    } else if ((CODE_LIST_KEYS.includes(k) || CODE_KEYS.includes(k)) && Array.isArray(value)) {
      const codes = value.map((c) => `<code>${escapeHtml(scalar(c))}</code>`);
      lines.push(t("final-codes", { count: codes.length }), ...codes);
    } else if (CODE_KEYS.includes(k) && value !== null && typeof value !== "object") {
      lines.push(t("final-codes", { count: 1 }), `<code>${escapeHtml(scalar(value))}</code>`);
    } else if (ACCOUNT_KEYS.includes(k) && value !== null && typeof value !== "object") {
      lines.push(`${escapeHtml(fieldLabel(key, t))}: <code>${escapeHtml(scalar(value))}</code>`);
    } else {
      flatten(value, [fieldLabel(key, t)], rest);
    }
  }
  if (rest.length > 0) {
    if (lines.length > 0) lines.push("");
    lines.push(t("final-details"));
    for (const [k, v] of rest) lines.push(`• ${escapeHtml(k)}: ${escapeHtml(v)}`);
  }
  let used = 0;
  const kept: string[] = [];
  for (const line of lines) {
    used += line.length + 1;
    if (used > PAYLOAD_BUDGET) {
      kept.push(t("final-truncated"));
      break;
    }
    kept.push(line);
  }
  return kept;
}

/**
 * Why an order did not go through, for its customer. A failed delivery gives the reseller's own
 * reason (about the recipient, the account…). A refused `pay` is an error of the shop's request
 * (its status, the API's path, the deposit): the customer reads only whether the shop cannot
 * place orders now, and the error itself goes to the operators' alert and order card.
 */
/** Refusals of `pay` that are the shop's own standing with the reseller (its deposit, its API key). */
const SHOP_SIDE = ["insufficient_funds", "auth"];
/** The reseller's reason is cut to this many characters: a message over Telegram's 4096 never arrives. */
const MAX_REASON = 500;

function customerReason(order: Order, t: FormatOptions["t"]): string {
  if (order.state === "rejected")
    return t(SHOP_SIDE.includes(order.rejectReason ?? "") ? "final-reason-unavailable" : "final-no-reason");
  return order.errorMessage ? escapeHtml(clip(order.errorMessage, MAX_REASON)) : t("final-no-reason");
}

/** The one message a customer gets when an order reaches delivered, failed or rejected. */
export function renderFinal(order: Order, opts: FormatOptions): string {
  const { t, locale } = opts;
  const item = describeItem(order.item, t, locale);
  const recipient = describeRecipient(order.item);
  const head: string[] = [];
  if (order.state === "delivered") {
    head.push(t("final-delivered", { id: shortId(order.id), item }));
    if (recipient) head.push(t(order.item.kind === "steam" ? "card-login" : "card-recipient", { recipient }));
    const payload = renderPayload(order.deliveredPayload, t);
    if (payload.length > 0) head.push("", ...payload);
    return head.join("\n");
  }
  const reason = customerReason(order, t);
  head.push(
    t(order.state === "rejected" ? "final-rejected" : "final-failed", { id: shortId(order.id), item }),
    t("final-reason", { reason }),
    "",
    refundLine(order, opts),
  );
  if (opts.supportContact) head.push(t("final-support", { contact: escapeHtml(opts.supportContact) }));
  return head.join("\n");
}
