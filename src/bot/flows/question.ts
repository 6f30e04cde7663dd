import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import type { Translate } from "../context.js";
import { FLOW_PREFIX } from "../keyboards/callbacks.js";
import { MAX_INPUT_CHARS } from "../validate.js";
import type { Answer, Choice, Question } from "./steps.js";

/*
 * One question of a flow on screen, without the flow around it: its keyboard (choices, pages,
 * Back and Cancel, each button `f:<nonce>:<action>`) and what an update says to it. kit.ts keeps
 * which question is on screen and acts on what is read here.
 */

/** What an update says to the question on screen. */
export type Reading<T> =
  /** A choice or a valid typed value, Back, or Cancel. */
  | { type: "answer"; answer: Answer<T> }
  /** Another page of the choices. */
  | { type: "page"; page: number }
  /** A choice from a list that changed since it was shown: shown again as it is now. */
  | { type: "changed"; sig: string }
  /** A typed answer (or a non-text message) that breaks a rule: the rule, then the question again. */
  | { type: "bad"; notice: string }
  /** A button that changes nothing (the page counter, an unknown choice). */
  | { type: "none" };

/** A short fingerprint of a question's choices, to tell that a list changed between showing and answering. */
export function signature(choices: readonly Choice<unknown>[]): string {
  const json = JSON.stringify(choices.map((c) => c.value));
  let h = 2166136261;
  for (let i = 0; i < json.length; i++) h = Math.imul(h ^ json.charCodeAt(i), 16777619);
  return `${choices.length}:${(h >>> 0).toString(36)}`;
}

export function pageCount(q: Question<unknown>): number {
  const n = q.choices?.length ?? 0;
  const size = q.pageSize ?? n;
  return Math.max(1, Math.ceil(n / Math.max(1, size)));
}

/** Text that reads as a bot command: a slash, then a letter (`/menu`, `/foo@other_bot`). */
const COMMAND = /^\/[A-Za-z]/;

/**
 * Reads a button's callback data (its nonce already matched) or a message's text against the
 * question shown with choices of fingerprint `sig`.
 */
export function readUpdate<T>(
  q: Question<T>,
  sig: string | undefined,
  update: { data?: string; text?: string },
  t: Translate,
): Reading<T> {
  const choices = q.choices ?? [];
  const { data, text } = update;
  if (data !== undefined) {
    const action = data.slice(data.indexOf(":", FLOW_PREFIX.length) + 1);
    if (action === "b") return { type: "answer", answer: { type: "back" } };
    if (action === "x") return { type: "answer", answer: { type: "cancel" } };
    if (action.startsWith("p")) {
      const page = Math.min(pageCount(q) - 1, Math.max(0, Number(action.slice(1)) || 0));
      return { type: "page", page };
    }
    if (action.startsWith("c")) {
      const now = choices.length > 0 ? signature(choices) : undefined;
      if (now !== sig && now !== undefined) return { type: "changed", sig: now };
      const choice = choices[Number(action.slice(1))];
      if (choice) return { type: "answer", answer: { type: "value", value: choice.value } };
    }
    return { type: "none" };
  }
  // Refused before any parser sees it.
  if (text !== undefined && text.length > MAX_INPUT_CHARS)
    return { type: "bad", notice: `⚠️ ${t("rule-input-length", { max: MAX_INPUT_CHARS })}` };
  // A command the bot does not know (a typo of one, another bot's) is no answer: no login, tag or
  // amount starts with a slash.
  if (text !== undefined && COMMAND.test(text)) return { type: "bad", notice: `⚠️ ${t("flow-no-command")}` };
  if (text !== undefined && q.parse) {
    const r = q.parse(text);
    if (r.ok) return { type: "answer", answer: { type: "value", value: r.value } };
    return { type: "bad", notice: `⚠️ ${t(r.rule, r.vars)}` };
  }
  return { type: "bad", notice: `⚠️ ${t(text !== undefined ? "flow-use-buttons" : "flow-send-text")}` };
}

/** The question's buttons for `page`: its choices, the pager when there are several pages, Back and Cancel. */
export function questionKeyboard<T>(
  q: Question<T>,
  page: number,
  nonce: number,
  t: Translate,
): InlineKeyboard {
  const choices = q.choices ?? [];
  const pageSize = q.pageSize ?? choices.length;
  const pages = pageCount(q);
  const at = Math.min(page, pages - 1);
  const cb = (action: string) => `${FLOW_PREFIX}${nonce}:${action}`;
  const cols = Math.max(1, q.columns ?? 1);
  const start = at * pageSize;
  const rows: InlineKeyboardButton[][] = [];
  choices.slice(start, start + pageSize).forEach((c, i) => {
    if (i % cols === 0) rows.push([]);
    rows[rows.length - 1]?.push(InlineKeyboard.text(c.label, cb(`c${start + i}`)));
  });
  if (pages > 1) {
    rows.push([
      InlineKeyboard.text(at > 0 ? "‹" : "·", cb(at > 0 ? `p${at - 1}` : "n")),
      InlineKeyboard.text(`${at + 1}/${pages}`, cb("n")),
      InlineKeyboard.text(at < pages - 1 ? "›" : "·", cb(at < pages - 1 ? `p${at + 1}` : "n")),
    ]);
  }
  const nav = [InlineKeyboard.text(t("btn-cancel"), cb("x"))];
  if (q.back !== false) nav.unshift(InlineKeyboard.text(t("btn-back"), cb("b")));
  rows.push(nav);
  return InlineKeyboard.from(rows);
}
