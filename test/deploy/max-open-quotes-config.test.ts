import { describe, expect, it } from "vitest";
import { ConfigError, createConfig } from "../../src/config.js";
import { minimalEnv, problemsOf } from "../helpers/config-env.js";

describe("MAX_OPEN_QUOTES", () => {
  it("is 3 when unset or empty", () => {
    expect(createConfig(minimalEnv).maxOpenQuotes).toBe(3);
    expect(createConfig({ ...minimalEnv, MAX_OPEN_QUOTES: " " }).maxOpenQuotes).toBe(3);
  });

  it("takes a positive whole number", () => {
    expect(createConfig({ ...minimalEnv, MAX_OPEN_QUOTES: "1" }).maxOpenQuotes).toBe(1);
    expect(createConfig({ ...minimalEnv, MAX_OPEN_QUOTES: " 12 " }).maxOpenQuotes).toBe(12);
  });

  it.each(["0", "-2", "2.5", "three", "Infinity"])(
    "refuses %j, naming the variable and the rule",
    (value) => {
      const problems = problemsOf({ ...minimalEnv, MAX_OPEN_QUOTES: value });
      expect([...problems.keys()]).toEqual(["MAX_OPEN_QUOTES"]);
      expect(problems.get("MAX_OPEN_QUOTES")).toBe(`must be a whole number ≥ 1, got "${value}"`);
    },
  );

  it("is named in the one message together with the other bad variables", () => {
    try {
      createConfig({ ...minimalEnv, MAX_OPEN_QUOTES: "0", HTTP_PORT: "x", BOT_TOKEN: "" });
      expect.unreachable("the configuration was accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      expect(message.split("\n")[0]).toBe("Invalid configuration:");
      expect(message).toContain('  - MAX_OPEN_QUOTES: must be a whole number ≥ 1, got "0"');
      expect(message).toContain("  - HTTP_PORT:");
      expect(message).toContain("  - BOT_TOKEN: is required");
    }
  });
});
