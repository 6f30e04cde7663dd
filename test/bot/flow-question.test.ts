import { describe, expect, it } from "vitest";
import { questionKeyboard, readUpdate, signature } from "../../src/bot/flows/question.js";
import type { Question } from "../../src/bot/flows/steps.js";
import { MAX_INPUT_CHARS, parseWholeNumber } from "../../src/bot/validate.js";

const t = (key: string, vars?: Record<string, string | number>) =>
  vars ? `${key} ${JSON.stringify(vars)}` : key;
const letters = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `L${i}`, value: `v${i}` }));

describe("a flow's question", () => {
  it("lays out its choices in pages with a pager, then Back and Cancel, all under its nonce", () => {
    const q: Question<string> = { text: "?", choices: letters(5), columns: 2, pageSize: 4 };
    const rows = questionKeyboard(q, 1, 42, t).inline_keyboard.map((r) =>
      r.map((b) => [b.text, "callback_data" in b ? b.callback_data : ""]),
    );
    expect(rows).toEqual([
      [["L4", "f:42:c4"]],
      [
        ["‹", "f:42:p0"],
        ["2/2", "f:42:n"],
        ["·", "f:42:n"],
      ],
      [
        ["btn-back", "f:42:b"],
        ["btn-cancel", "f:42:x"],
      ],
    ]);
    // Without Back and with one page: the choices and Cancel.
    const one = questionKeyboard({ text: "?", choices: letters(2), back: false }, 0, 7, t).inline_keyboard;
    expect(one.map((r) => r.map((b) => b.text))).toEqual([["L0"], ["L1"], ["btn-cancel"]]);
  });

  it("reads Back, Cancel, a page (kept within the pages) and a choice", () => {
    const q: Question<string> = { text: "?", choices: letters(10), pageSize: 4 };
    const sig = signature(q.choices!);
    expect(readUpdate(q, sig, { data: "f:3:b" }, t)).toEqual({ type: "answer", answer: { type: "back" } });
    expect(readUpdate(q, sig, { data: "f:3:x" }, t)).toEqual({ type: "answer", answer: { type: "cancel" } });
    expect(readUpdate(q, sig, { data: "f:3:p9" }, t)).toEqual({ type: "page", page: 2 });
    expect(readUpdate(q, sig, { data: "f:3:c7" }, t)).toEqual({
      type: "answer",
      answer: { type: "value", value: "v7" },
    });
    expect(readUpdate(q, sig, { data: "f:3:c70" }, t)).toEqual({ type: "none" });
    expect(readUpdate(q, sig, { data: "f:3:n" }, t)).toEqual({ type: "none" });
  });

  it("does not answer from a list that changed since it was shown", () => {
    const shown = signature(letters(3));
    const q: Question<string> = { text: "?", choices: letters(3).slice(1) };
    expect(readUpdate(q, shown, { data: "f:1:c0" }, t)).toEqual({
      type: "changed",
      sig: signature(q.choices!),
    });
  });

  it("answers typed text with the rule it broke, refusing overlong text before parsing it", () => {
    const q: Question<number> = { text: "?", parse: (s) => parseWholeNumber(s, 50, 100) };
    expect(readUpdate(q, undefined, { text: "75" }, t)).toEqual({
      type: "answer",
      answer: { type: "value", value: 75 },
    });
    expect(readUpdate(q, undefined, { text: "10" }, t)).toMatchObject({ type: "bad" });
    expect(readUpdate(q, undefined, { text: "9".repeat(MAX_INPUT_CHARS + 1) }, t)).toEqual({
      type: "bad",
      notice: `⚠️ rule-input-length {"max":${MAX_INPUT_CHARS}}`,
    });
    // Buttons only, or not text at all.
    expect(readUpdate({ text: "?", choices: letters(2) }, undefined, { text: "L0" }, t)).toEqual({
      type: "bad",
      notice: "⚠️ flow-use-buttons",
    });
    expect(readUpdate(q, undefined, {}, t)).toEqual({ type: "bad", notice: "⚠️ flow-send-text" });
  });
});
