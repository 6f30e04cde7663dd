import type { Locale, ProductKind } from "../../config.js";

/** An abandoned flow is left when the customer comes back after this long. */
export const FLOW_IDLE_MS = 6 * 3600 * 1000;

/** Bump when a flow's questions, their order or what its record holds change: older records are dropped. */
export const FLOWS_VERSION = 5;

/**
 * A product flow in progress, kept in the chat's session (read once per update, written when
 * changed). It holds where the flow is and what was answered, not a log of updates: an update
 * runs the current step again from its start (catalog reads come from the catalog's cache), hands
 * it the customer's answer, and stops at the next question (kit.ts).
 */
export interface FlowRecord {
  kind: ProductKind;
  /** {@link FLOWS_VERSION} when the flow started. */
  v: number;
  /** When the record was last written (ms): flows idle for {@link FLOW_IDLE_MS} are left. */
  at: number;
  locale: Locale;
  /** Index of the current step; the steps' count is the quote, -1 the main menu. */
  step: number;
  /** The answers so far (the flow's own state type). */
  state: unknown;
  /** Updates the flow has taken (bounded by MAX_WAITS). */
  waits: number;
  /** The last question's number; buttons carry it (`f:<nonce>:<action>`). */
  nonce: number;
  /** The question on screen, whose answer the next update may be. */
  ask?: Waiting;
  /** The order id of the current quote attempt (one per customer intent, reused on Retry). */
  orderId?: string;
  /** Quote attempts for that intent. */
  quotes?: number;
  /** Failed catalog reads in a row at the current step. */
  loadFails?: number;
}

/** The question a flow waits on. */
export interface Waiting {
  /** Step it belongs to, and which of the step's questions (`q`, `retry`, `quote`). */
  step: number;
  key: string;
  nonce: number;
  page: number;
  /** The choices' values when it was shown: a list that changed since is shown again, not answered from. */
  sig?: string;
  /** The question itself, when it cannot be built again from the flow's state (the quote's). */
  q?: StoredQuestion;
  /** The quote was refused: Retry quotes under a new order id. */
  refused?: boolean;
}

/** A question kept whole in the record. */
export interface StoredQuestion {
  text: string;
  choices: { label: string; value: string }[];
  back?: boolean;
}

/** What handlers outside the flows do with them (`ctx.flows`, set by dispatch.ts). */
export interface FlowControl {
  /** Starts a product's flow (leaving any other); its first question replaces the pressed menu. */
  enter(kind: ProductKind, locale: Locale): Promise<void>;
  /** Leaves the flow in progress, if any. */
  leave(): void;
  /** Whether this update left a flow in progress (a command typed mid-flow, such as /cancel). */
  left: boolean;
  /**
   * This update is a command answered beside the flow in progress (/help, /orders…), which stays
   * where it is, its question still on screen: the flow does not take the update.
   */
  aside: boolean;
}

/** Session fields where an earlier release kept flows (a replay log); removed when seen. */
const OLD_KEYS = ["__flows", "__flowsAt"] as const;

/**
 * The chat's flow in progress, or undefined; a record of another version or idle for
 * {@link FLOW_IDLE_MS} is removed and reads as none.
 */
export function activeFlow(session: { flow?: FlowRecord }, now = Date.now()): FlowRecord | undefined {
  const s = session as Record<string, unknown>;
  for (const key of OLD_KEYS) if (s[key] !== undefined) delete s[key];
  const rec = session.flow;
  if (rec === undefined) return undefined;
  if (rec.v !== FLOWS_VERSION || now - rec.at >= FLOW_IDLE_MS) {
    session.flow = undefined;
    return undefined;
  }
  return rec;
}

/**
 * Whether a button's callback data (`f:<nonce>:<action>`) answers the flow's question on screen:
 * buttons of earlier questions, and of earlier flows (numbered from another random start), do not.
 */
export function answersFlow(rec: FlowRecord, data: string): boolean {
  const m = /^f:(\d+):/.exec(data);
  return m !== null && rec.ask !== undefined && Number(m[1]) === rec.ask.nonce;
}
