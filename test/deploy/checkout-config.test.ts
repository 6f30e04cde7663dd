import { describe, expect, it } from "vitest";
import { ConfigError, createConfig, secretsOf } from "../../src/config.js";

const base: Record<string, string> = {
  BOT_TOKEN: "123:abc",
  RESELLER_API_URL: "https://reseller.example.com",
  RESELLER_API_KEY: "key",
  OPERATOR_IDS: "1",
};

function problems(env: Record<string, string>): Record<string, string> {
  try {
    createConfig({ ...base, ...env });
    return {};
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return Object.fromEntries(err.problems.map((p) => [p.variable, p.message]));
  }
}

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
