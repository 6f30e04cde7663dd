import { GrammyError } from "grammy";
import { describe, expect, it } from "vitest";
import { describeError, isRefused, isRefusedText } from "../../src/bot/telegram-errors.js";

const refusal = (error_code: number, description: string, parameters = {}) =>
  new GrammyError("call failed", { ok: false, error_code, description, parameters }, "sendMessage", {});

describe("Telegram's refusals", () => {
  it("name the new id of a group that became a supergroup", () => {
    const err = refusal(400, "Bad Request: group chat was upgraded to a supergroup chat", {
      migrate_to_chat_id: -1001234567890,
    });
    expect(describeError(err)).toBe(
      "Bad Request: group chat was upgraded to a supergroup chat (its new chat id: -1001234567890)",
    );
    expect(describeError(refusal(403, "Forbidden: bot was blocked by the user"))).toBe(
      "Forbidden: bot was blocked by the user",
    );
  });

  it("tell a refused text and a bad request from other failures", () => {
    expect(isRefusedText(refusal(400, "Bad Request: can't parse entities: unexpected end tag"))).toBe(true);
    expect(isRefusedText(refusal(400, "Bad Request: message is too long"))).toBe(true);
    expect(isRefusedText(refusal(400, "Bad Request: chat not found"))).toBe(false);
    expect(isRefused(refusal(400, "Bad Request: BUTTON_DATA_INVALID"))).toBe(true);
    expect(isRefused(refusal(403, "Forbidden: bot was blocked by the user"))).toBe(false);
    expect(isRefused(new Error("socket hang up"))).toBe(false);
  });
});
