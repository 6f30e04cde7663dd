import { describe, expect, it } from "vitest";
import { stripRoubleSign } from "../../src/bot/flows/steam.js";
import {
  parseFieldValue,
  parseRecipient,
  parseSteamLogin,
  parseWholeNumber,
} from "../../src/bot/validate.js";

describe("parseRecipient", () => {
  it.each([
    ["@durov_fan", "durov_fan"],
    ["durov_fan", "durov_fan"],
    ["t.me/durov_fan", "durov_fan"],
    ["https://t.me/durov_fan", "durov_fan"],
    ["http://telegram.me/Durov5/", "Durov5"],
    ["  @abcde  ", "abcde"],
    ["a".repeat(32), "a".repeat(32)],
  ])("accepts %s as %s", (input, expected) => {
    expect(parseRecipient(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["", "rule-username-empty"],
    ["@", "rule-username-empty"],
    ["abcd", "rule-username-length"],
    ["a".repeat(33), "rule-username-length"],
    ["1abcde", "rule-username-start"],
    ["_abcde", "rule-username-start"],
    ["abcde_", "rule-username-end"],
    ["ab__cde", "rule-username-double"],
    ["имя_пользователя", "rule-username-chars"],
    ["two words", "rule-username-chars"],
    ["abc-def", "rule-username-chars"],
  ])("rejects %j with %s", (input, rule) => {
    expect(parseRecipient(input)).toMatchObject({ ok: false, rule });
  });
});

describe("parseWholeNumber", () => {
  it.each([
    ["50", 50],
    ["1 000", 1000],
    ["1\u00a0000\u00a0000", 1_000_000],
    ["1,000", 1000],
    ["1.000", 1000],
    [" 250 ", 250],
  ])("reads %j as %d", (input, n) => {
    expect(parseWholeNumber(input, 50, 1_000_000)).toEqual({ ok: true, value: n });
  });

  it.each([
    ["", "rule-number-format"],
    ["ten", "rule-number-format"],
    ["-5", "rule-number-format"],
    ["12.5", "rule-number-whole"],
    ["49", "rule-number-min"],
    ["1000001", "rule-number-max"],
    ["99999999999999999999", "rule-number-max"],
  ])("rejects %j with %s", (input, rule) => {
    expect(parseWholeNumber(input, 50, 1_000_000)).toMatchObject({
      ok: false,
      rule,
      vars: { min: 50, max: 1_000_000 },
    });
  });
});

describe("Steam and top-up answers", () => {
  it("accepts a login without spaces up to 64 characters", () => {
    expect(parseSteamLogin(" gaben ")).toEqual({ ok: true, value: "gaben" });
    expect(parseSteamLogin("my login")).toMatchObject({ ok: false, rule: "rule-login-spaces" });
    expect(parseSteamLogin("x".repeat(65))).toMatchObject({ ok: false, rule: "rule-login-length" });
    expect(parseSteamLogin("")).toMatchObject({ ok: false, rule: "rule-login-empty" });
  });

  it("strips a rouble sign or word from an amount", () => {
    expect(stripRoubleSign("500 ₽")).toBe("500");
    expect(stripRoubleSign("500 руб.")).toBe("500");
    expect(stripRoubleSign("500rub")).toBe("500");
  });

  it("takes a one-line field value of at most 128 characters", () => {
    expect(parseFieldValue(" 7001 ")).toEqual({ ok: true, value: "7001" });
    expect(parseFieldValue("a\nb")).toMatchObject({ ok: false, rule: "rule-field-one-line" });
    expect(parseFieldValue("x".repeat(129))).toMatchObject({ ok: false, rule: "rule-field-length" });
    expect(parseFieldValue("  ")).toMatchObject({ ok: false, rule: "rule-field-empty" });
  });
});
