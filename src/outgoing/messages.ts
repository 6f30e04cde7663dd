import type { AlertKind } from "../orders/types.js";

/**
 * What the bot sends on its own — not as a reply to a customer's action — and so waits its turn
 * in the outgoing queue: final messages, top-up credits and second payments' refunds first, then operator alerts, then order card updates,
 * then broadcasts. In Redis a message is one string `<kind>:<chat>:<ref>`; the chat is what the
 * per-chat pace applies to (`ops` for alerts, which go to every operator).
 */
export type OutgoingMessage =
  | { kind: "final"; chatId: number; orderId: string }
  | { kind: "alert"; alert: AlertKind; orderId: string }
  | { kind: "card"; chatId: number; orderId: string }
  /** "Wallet topped up" for a provider payment of a top-up (src/wallet/topups.ts). */
  | { kind: "topup"; chatId: number; topupId: string }
  /** "+₽X from your friend's order" to the referrer credited for it (src/orders/referral-bonus.ts). */
  | { kind: "referral"; chatId: number; orderId: string }
  /**
   * What became of a second payment for an order paid already, made on a provider's page (YooKassa,
   * Crypto Pay) where the chat saw nothing of it: `index` is the payment's place in the order's
   * `extraCharges` (src/orders/notifications.ts).
   */
  | { kind: "extra"; chatId: number; orderId: string; index: number }
  /** One recipient of an operator's broadcast (src/broadcast/broadcasts.ts). */
  | { kind: "bcast"; chatId: number; broadcastId: string };

export type OutgoingKind = OutgoingMessage["kind"];

/** Lower goes first. The same table stands in lua/takeOutgoing-3.lua. */
export const PRIORITY: Readonly<Record<OutgoingKind, number>> = {
  final: 0,
  topup: 0,
  extra: 0,
  alert: 1,
  referral: 2,
  card: 2,
  bcast: 3,
};

/**
 * Alerts share one pace: they go to every operator at once, or into the operators' group
 * (OPERATOR_CHAT_ID), whose slower pace the queue gives this chat (OutgoingPace.operatorsIntervalMs).
 */
export const OPERATORS_CHAT = "ops";

export function encodeMessage(m: OutgoingMessage): string {
  switch (m.kind) {
    case "alert":
      return `alert:${OPERATORS_CHAT}:${m.alert}:${m.orderId}`;
    case "topup":
      return `topup:${m.chatId}:${m.topupId}`;
    case "bcast":
      return `bcast:${m.chatId}:${m.broadcastId}`;
    case "extra":
      return `extra:${m.chatId}:${m.orderId}:${m.index}`;
    default:
      return `${m.kind}:${m.chatId}:${m.orderId}`;
  }
}

export function decodeMessage(member: string): OutgoingMessage | null {
  const [kind, chat = "", a = "", b = ""] = member.split(":");
  if (kind === "alert") return a && b ? { kind, alert: a as AlertKind, orderId: b } : null;
  if (kind === "topup" && a && /^-?\d+$/.test(chat)) return { kind, chatId: Number(chat), topupId: a };
  if (kind === "bcast" && a && /^-?\d+$/.test(chat)) return { kind, chatId: Number(chat), broadcastId: a };
  if (kind === "extra" && a && /^-?\d+$/.test(chat) && /^\d+$/.test(b)) {
    return { kind, chatId: Number(chat), orderId: a, index: Number(b) };
  }
  if ((kind === "final" || kind === "card" || kind === "referral") && a && /^-?\d+$/.test(chat)) {
    return { kind, chatId: Number(chat), orderId: a };
  }
  return null;
}

let sequence = 0;

/**
 * The queue score: priority first, then the time it was queued (ms), then, within one
 * millisecond, the order this process queued them in (a fraction fine enough for a double).
 */
export function queueScore(m: OutgoingMessage, now: number): number {
  sequence = (sequence + 1) % 64;
  return PRIORITY[m.kind] * 1e13 + now + sequence / 64;
}
