import {
  CREDIT_REASONS,
  DEBIT_REASONS,
  MAX_AMOUNT_KOPECKS,
  WALLET_REASONS,
  type WalletMove,
  type WalletReason,
} from "./types.js";

const MAX_REF = 200;
const MAX_ORDER_ID = 100;
const MAX_PAYMENT_REF = 200;
const MAX_NOTE = 500;

/** Every problem with an amount in kopecks (a positive integer up to the limit), or none. */
export function amountProblems(amount: unknown, field = "amountKopecks"): string[] {
  if (typeof amount !== "number" || !Number.isInteger(amount)) {
    return [`${field} must be a whole number of kopecks (got ${String(amount)})`];
  }
  if (amount <= 0) return [`${field} must be above 0 (got ${amount})`];
  if (amount > MAX_AMOUNT_KOPECKS) return [`${field} must be at most ${MAX_AMOUNT_KOPECKS} (got ${amount})`];
  return [];
}

export function userIdProblems(userId: unknown): string[] {
  return typeof userId === "number" && Number.isSafeInteger(userId) && userId > 0
    ? []
    : [`userId must be a positive integer (got ${String(userId)})`];
}

function textProblems(value: unknown, field: string, max: number, required: boolean): string[] {
  if (value === undefined && !required) return [];
  if (typeof value !== "string" || value.trim() === "") return [`${field} must be a non-empty text`];
  if (value.length > max) return [`${field} must be at most ${max} characters`];
  return [];
}

/** Every problem with a credit (`direction` 1) or debit (-1); an empty list means it may be applied. */
export function moveProblems(userId: unknown, move: WalletMove, direction: 1 | -1): string[] {
  const problems = [...userIdProblems(userId), ...amountProblems(move.amountKopecks)];
  const allowed = direction > 0 ? CREDIT_REASONS : DEBIT_REASONS;
  if (!WALLET_REASONS.includes(move.reason)) {
    problems.push(`reason must be one of ${WALLET_REASONS.join(", ")} (got ${String(move.reason)})`);
  } else if (!allowed.includes(move.reason)) {
    problems.push(`a ${direction > 0 ? "credit" : "debit"} may not have reason ${move.reason}`);
  }
  if (typeof move.ref !== "string" || !/^\S+$/.test(move.ref)) {
    problems.push("ref must be a non-empty text without spaces");
  } else if (move.ref.length > MAX_REF) {
    problems.push(`ref must be at most ${MAX_REF} characters`);
  }
  const needsOrder = (["order", "refund"] as WalletReason[]).includes(move.reason);
  problems.push(...textProblems(move.orderId, "orderId", MAX_ORDER_ID, needsOrder));
  problems.push(...textProblems(move.paymentRef, "paymentRef", MAX_PAYMENT_REF, false));
  const adjustment = move.reason === "adjustment";
  problems.push(...textProblems(move.note, "note", MAX_NOTE, adjustment));
  if (move.by !== undefined || adjustment) {
    if (typeof move.by !== "number" || !Number.isSafeInteger(move.by) || move.by <= 0) {
      problems.push(`by must be the operator's user id (got ${String(move.by)})`);
    }
  }
  return problems;
}
