import { describe, expect, it } from "vitest";
import { createConfig } from "../../src/config.js";
import { minimalEnv, problemsOf } from "../helpers/config-env.js";

describe("OPERATOR_IDS and ALLOWED_USER_IDS", () => {
  it("take comma-separated Telegram user ids", () => {
    const config = createConfig({
      ...minimalEnv,
      OPERATOR_IDS: " 42, 7001 ",
      ALLOWED_USER_IDS: "9007199254740991",
    });
    expect(config.operatorIds).toEqual([42, 7001]);
    expect(config.allowedUserIds).toEqual([9007199254740991]);
  });

  it("refuse ids that are no user's: too large to hold exactly, zero, negative, words", () => {
    const problems = problemsOf({
      ...minimalEnv,
      OPERATOR_IDS: "9007199254740993,12345678901234567890",
      ALLOWED_USER_IDS: "5,-5,0,bob",
    });
    expect(problems.get("OPERATOR_IDS")).toMatch(
      /positive whole numbers.*"9007199254740993", "12345678901234567890"/,
    );
    expect(problems.get("ALLOWED_USER_IDS")).toMatch(/positive whole numbers.*"-5", "0", "bob"/);
    expect(problems.get("ALLOWED_USER_IDS")).not.toMatch(/"5"/);
  });
});

describe("HTTP_HOST", () => {
  it("takes an IP address or a host name, 0.0.0.0 by default", () => {
    expect(createConfig(minimalEnv).httpHost).toBe("0.0.0.0");
    for (const ok of ["127.0.0.1", "::", "::1", "localhost", "shop-bot", "bot_1.internal", "api.example.com"])
      expect(createConfig({ ...minimalEnv, HTTP_HOST: ok }).httpHost, ok).toBe(ok);
  });

  it("is named beside every other bad variable when it is neither", () => {
    for (const bad of ["999.1.1.1", "1.2.3", "bad host", "-lead.example", "http://x"]) {
      const problems = problemsOf({ ...minimalEnv, HTTP_HOST: bad, LOG_LEVEL: "x" });
      expect(problems.get("HTTP_HOST"), bad).toMatch(/IP address or a host name/);
      expect(problems.get("LOG_LEVEL"), bad).toBeDefined();
    }
  });
});

describe("numbers", () => {
  it("are plain decimals: hexadecimal, binary and exponent forms are named, not read as another number", () => {
    const problems = problemsOf({
      ...minimalEnv,
      HTTP_PORT: "0x50",
      QUOTE_TTL_SECONDS: "1e3",
      MAX_OPEN_QUOTES: "0b11",
      LOW_BALANCE_RUB: "5e2",
    });
    expect(problems.get("HTTP_PORT")).toMatch(/whole number from 0 to 65535, got "0x50"/);
    expect(problems.get("QUOTE_TTL_SECONDS")).toMatch(/got "1e3"/);
    expect(problems.get("MAX_OPEN_QUOTES")).toMatch(/got "0b11"/);
    expect(problems.get("LOW_BALANCE_RUB")).toMatch(/got "5e2"/);
    const config = createConfig({
      ...minimalEnv,
      HTTP_PORT: " 8081 ",
      STAR_PRICE_RUB: "1.25",
      POLL_INTERVAL_SECONDS: ".5",
      LOW_BALANCE_RUB: "+500",
    });
    expect(config.httpPort).toBe(8081);
    expect(config.starPriceRub).toBe(1.25);
    expect(config.pollIntervalSeconds).toBe(0.5);
    expect(config.lowBalanceRub).toBe(500);
  });
});

describe("base URLs", () => {
  it("refuse a ?query, #fragment or user:password@ that would swallow or break the paths appended to them", () => {
    const problems = problemsOf({
      ...minimalEnv,
      RESELLER_API_URL: "https://reseller.example/?ref=shop",
      PUBLIC_BASE_URL: "https://shop.example/bot#x",
      TELEGRAM_API_ROOT: "http://user:pw-3c9a@bot-api.internal:8081",
      YOOKASSA_API_URL: "https://api.yookassa.ru/v3?",
    });
    for (const name of ["RESELLER_API_URL", "PUBLIC_BASE_URL", "TELEGRAM_API_ROOT", "YOOKASSA_API_URL"])
      expect(problems.get(name), name).toMatch(/base URL .*without \?query, #fragment or user:password@/);
    expect([...problems.values()].join("\n")).not.toContain("pw-3c9a");
    expect(problemsOf({ ...minimalEnv, RESELLER_API_URL: "ftp://x" }).get("RESELLER_API_URL")).toBe(
      "must be a URL (http or https)",
    );
    const config = createConfig({
      ...minimalEnv,
      RESELLER_API_URL: "https://reseller.example/base/",
      RESELLER_WEBHOOK_SECRET: "s",
      PUBLIC_BASE_URL: "https://shop.example/bot/",
    });
    expect(config.resellerApiUrl).toBe("https://reseller.example/base");
    expect(config.resellerCallbackUrl).toBe("https://shop.example/bot/webhooks/reseller");
  });
});
