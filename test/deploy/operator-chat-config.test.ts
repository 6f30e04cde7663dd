import { describe, expect, it } from "vitest";
import { ConfigError, createConfig } from "../../src/config.js";

const minimalEnv: Record<string, string> = {
  BOT_TOKEN: "123:abc",
  RESELLER_API_URL: "https://reseller.example.com",
  RESELLER_API_KEY: "key",
  OPERATOR_IDS: "1",
};

function problemsOf(env: Record<string, string>): Map<string, string> {
  try {
    createConfig(env);
    return new Map();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return new Map(err.problems.map((p) => [p.variable, p.message]));
  }
}

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
