import type { Order } from "../../orders/types.js";
import { type Checked, parseRecipient } from "../validate.js";
import type { FlowRun } from "./kit.js";

/**
 * What a flow is made of: steps, each asking one question through {@link FlowRun.ask} and
 * settling the answer into the flow's state.
 */

export interface Choice<T> {
  label: string;
  value: T;
}

export interface Question<T> {
  /** HTML text of the question. */
  text: string;
  choices?: Choice<T>[];
  /** Buttons per row (default 1). */
  columns?: number;
  /** Paged when there are more choices than this. */
  pageSize?: number;
  /** Free-text answers, when allowed. */
  parse?: (text: string) => Checked<T>;
  /** Show a Back button (default true). */
  back?: boolean;
}

export type Answer<T> =
  | { type: "value"; value: T }
  | { type: "back" }
  | { type: "cancel" }
  | { type: "abort" };

export type StepResult = "next" | "back" | "cancel" | "abort";

export interface Step<S> {
  id: string;
  /** Request fields this step answers, so a validation error can send the customer back here. */
  fields?: string[];
  run(f: FlowRun, state: S): Promise<StepResult>;
}

/** Maps an answer to a step result, storing the value when there is one. */
export function settle<T>(a: Answer<T>, store: (v: T) => void): StepResult {
  if (a.type === "value") {
    store(a.value);
    return "next";
  }
  return a.type;
}

/**
 * The recipient question: a "to myself" button when the customer's own username is one the
 * question would take typed (not a four-letter auction name, which the supplier refuses), or a
 * typed username.
 */
export function recipientStep<S extends { recipient?: string }>(): Step<S> {
  return {
    id: "recipient",
    fields: ["recipient_username"],
    async run(f, state) {
      const username = f.ctx.from?.username;
      const own = username !== undefined && parseRecipient(username).ok ? username : undefined;
      const a = await f.ask<string>({
        text: f.t(own ? "ask-recipient-or-self" : "ask-recipient"),
        choices: own ? [{ label: f.t("btn-to-myself", { username: own }), value: own }] : [],
        parse: parseRecipient,
      });
      return settle(a, (v) => {
        state.recipient = v;
      });
    },
  };
}

/** What a quote attempt inside a flow came to. */
export type QuoteOutcome =
  | { ok: true; order: Order }
  | { ok: false; kind: "validation"; issues: { field: string; message: string }[] }
  | { ok: false; kind: "transient" }
  | { ok: false; kind: "refused"; reason: string }
  /** MAX_OPEN_QUOTES reached: nothing was written or sent; `open` are the customer's unpaid quotes. */
  | { ok: false; kind: "limit"; max: number; open: Order[] }
  /** The operators switched the product off (/prices): nothing was written or sent. */
  | { ok: false; kind: "unavailable" };
