import { describe, expect, it } from "vitest";
import { createConfig, secretsOf } from "../../src/config.js";
import { minimalEnv as base, problemsOf } from "../helpers/config-env.js";

const problems = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(problemsOf({ ...base, ...env }));

describe("CHECKOUT, a list of rails", () => {
  it("keeps the rails in the order given, case and spaces aside", () => {
    const config = createConfig({
      ...base,
      CHECKOUT: " YooKassa , cryptopay,wallet , stars",
      YOOKASSA_SHOP_ID: "506751",
      YOOKASSA_SECRET_KEY: "test_secret",
      CRYPTOPAY_TOKEN: "1:AA",
    });
    expect(config.checkout).toEqual(["yookassa", "cryptopay", "wallet", "stars"]);
    expect(createConfig(base).checkout).toEqual(["stars"]);
  });

  it("names an unknown rail, a repeated one and direct mixed with others, in one message", () => {
    expect(problems({ CHECKOUT: "stars,paypal" }).CHECKOUT).toMatch(/unknown rail "paypal"/);
    expect(problems({ CHECKOUT: "stars,stars" }).CHECKOUT).toMatch(/stars more than once/);
    expect(problems({ CHECKOUT: "direct,stars" }).CHECKOUT).toMatch(/direct .* cannot be combined/);
    expect(problems({ CHECKOUT: " , " }).CHECKOUT).toMatch(/at least one/);
  });

  it("names every missing credential of every offered rail", () => {
    const p = problems({ CHECKOUT: "invoice,yookassa,cryptopay,wallet" });
    expect(Object.keys(p).sort()).toEqual(
      ["CRYPTOPAY_TOKEN", "PAYMENT_PROVIDER_TOKEN", "YOOKASSA_SECRET_KEY", "YOOKASSA_SHOP_ID"].sort(),
    );
    expect(p.YOOKASSA_SHOP_ID).toBe("is required when CHECKOUT contains yookassa");
    // Credentials of rails not offered are not asked for.
    expect(problems({ CHECKOUT: "stars,wallet" })).toEqual({});
  });

  it("treats the provider secrets as secrets", () => {
    const config = createConfig({
      ...base,
      CHECKOUT: "yookassa,cryptopay",
      YOOKASSA_SHOP_ID: "506751",
      YOOKASSA_SECRET_KEY: "test_yk_secret_value",
      CRYPTOPAY_TOKEN: "1:cryptopay_token_value",
    });
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining(["test_yk_secret_value", "1:cryptopay_token_value"]),
    );
  });
});

describe("required variables given empty", () => {
  it("are named as required, as if unset", () => {
    const p = problems({ RESELLER_API_URL: "", BOT_TOKEN: "  ", RESELLER_API_KEY: "" });
    expect(p.RESELLER_API_URL).toBe("is required");
    expect(p.BOT_TOKEN).toBe("is required");
    expect(p.RESELLER_API_KEY).toBe("is required");
  });

  it("give a number's range in words", () => {
    expect(problems({ HTTP_PORT: "70000" }).HTTP_PORT).toBe(
      'must be a whole number from 0 to 65535, got "70000"',
    );
  });
});
