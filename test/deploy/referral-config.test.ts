import { describe, expect, it } from "vitest";
import { ConfigError, createConfig } from "../../src/config.js";
import { minimalEnv, problemsOf } from "../helpers/config-env.js";

describe("REFERRAL_PERCENT", () => {
  it("is 0 (referrals off) when unset, whatever the rails", () => {
    expect(createConfig(minimalEnv).referralPercent).toBe(0);
    expect(createConfig({ ...minimalEnv, REFERRAL_PERCENT: "0", CHECKOUT: "stars" }).referralPercent).toBe(0);
  });

  it("takes a whole percent from 1 to 50 when the wallet is offered", () => {
    const env = { ...minimalEnv, CHECKOUT: "stars,wallet" };
    expect(createConfig({ ...env, REFERRAL_PERCENT: "1" }).referralPercent).toBe(1);
    expect(createConfig({ ...env, REFERRAL_PERCENT: " 50 " }).referralPercent).toBe(50);
  });

  it.each(["51", "-1", "2.5", "ten"])("refuses %j, naming the variable and the rule", (value) => {
    const problems = problemsOf({ ...minimalEnv, CHECKOUT: "wallet", REFERRAL_PERCENT: value });
    expect([...problems.keys()]).toEqual(["REFERRAL_PERCENT"]);
    expect(problems.get("REFERRAL_PERCENT")).toBe(`must be a whole number from 0 to 50, got "${value}"`);
  });

  it("above 0 needs the wallet among the rails, named in the one message with the other problems", () => {
    try {
      createConfig({ ...minimalEnv, CHECKOUT: "stars", REFERRAL_PERCENT: "5", HTTP_PORT: "x" });
      expect.unreachable("the configuration was accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      expect(message).toContain(
        "  - REFERRAL_PERCENT: needs CHECKOUT to contain wallet (referral bonuses are credited to the wallet)",
      );
      expect(message).toContain("  - HTTP_PORT:");
    }
  });
});
