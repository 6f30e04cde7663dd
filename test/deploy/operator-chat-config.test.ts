import { describe, expect, it } from "vitest";
import { createConfig } from "../../src/config.js";
import { minimalEnv, problemsOf } from "../helpers/config-env.js";

describe("OPERATOR_CHAT_ID", () => {
  it("is unset by default: operators get alerts in private", () => {
    expect(createConfig(minimalEnv).operatorChatId).toBeUndefined();
    expect(createConfig({ ...minimalEnv, OPERATOR_CHAT_ID: " " }).operatorChatId).toBeUndefined();
  });

  it("takes a group's id (negative)", () => {
    expect(createConfig({ ...minimalEnv, OPERATOR_CHAT_ID: "-1001234567890" }).operatorChatId).toBe(
      -1001234567890,
    );
    expect(createConfig({ ...minimalEnv, OPERATOR_CHAT_ID: " -4321 " }).operatorChatId).toBe(-4321);
  });

  it("refuses a user's id, words and numbers too long to be ids, naming the variable", () => {
    for (const bad of ["1234567", "ops", "-12.5", "-99999999999999999999"]) {
      const problems = problemsOf({ ...minimalEnv, OPERATOR_CHAT_ID: bad });
      expect(problems.get("OPERATOR_CHAT_ID"), bad).toMatch(/group chat id/);
    }
  });
});
