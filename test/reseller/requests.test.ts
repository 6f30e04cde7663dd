import { describe, expect, it } from "vitest";
import { ResellerValidationError } from "../../src/reseller/errors.js";
import {
  createOrderRequestSchema,
  USERNAME_RE,
  validateCreateOrderRequest,
} from "../../src/reseller/requests.js";

function fieldsOf(req: unknown): string[] {
  try {
    validateCreateOrderRequest(req);
  } catch (err) {
    expect(err).toBeInstanceOf(ResellerValidationError);
    return (err as ResellerValidationError).fields;
  }
  return [];
}

const id = "0b8f6c1e-8f0a-4c43-9d7e-5b2d3a1f9e10";

describe("USERNAME_RE", () => {
  it("accepts Telegram usernames of 5 to 32 characters starting with a letter", () => {
    for (const ok of ["durov", "a1_b2", "Abcde_fgh", `a${"b".repeat(31)}`])
      expect(USERNAME_RE.test(ok)).toBe(true);
  });

  it("rejects too short, too long, leading digit or underscore, trailing underscore, double underscore and @", () => {
    for (const bad of [
      "abcd",
      `a${"b".repeat(32)}`,
      "1abcde",
      "_abcde",
      "abcde_",
      "ab__cd",
      "@durov",
      "dur ov",
      "дуров",
    ]) {
      expect(USERNAME_RE.test(bad)).toBe(false);
    }
  });
});

describe("validateCreateOrderRequest", () => {
  it("accepts stars from 50 to 1,000,000 and rejects 49 and 1,000,001", () => {
    const stars = (quantity: number) => ({
      custom_id: id,
      product: "stars",
      recipient_username: "durov",
      quantity,
    });
    expect(validateCreateOrderRequest(stars(50)).quantity).toBe(50);
    expect(validateCreateOrderRequest(stars(1_000_000)).quantity).toBe(1_000_000);
    expect(fieldsOf(stars(49))).toEqual(["quantity"]);
    expect(fieldsOf(stars(1_000_001))).toEqual(["quantity"]);
    expect(fieldsOf(stars(50.5))).toEqual(["quantity"]);
  });

  it("accepts steam top-ups from 50 to 50,000 roubles with a free-form login and rejects 49 and 50,001", () => {
    const steam = (quantity: number) => ({
      custom_id: id,
      product: "steam",
      recipient_username: "x.player-1",
      quantity,
    });
    expect(validateCreateOrderRequest(steam(50)).quantity).toBe(50);
    expect(validateCreateOrderRequest(steam(50_000)).quantity).toBe(50_000);
    expect(fieldsOf(steam(49))).toEqual(["quantity"]);
    expect(fieldsOf(steam(50_001))).toEqual(["quantity"]);
    expect(fieldsOf({ ...steam(100), recipient_username: "x".repeat(65) })).toEqual(["recipient_username"]);
  });

  it("accepts game quantities from 1 to 10 and rejects 0 and 11", () => {
    const game = (quantity: number) => ({
      custom_id: id,
      product: "game",
      product_ref: "pubg-60uc",
      quantity,
    });
    expect(validateCreateOrderRequest(game(1)).quantity).toBe(1);
    expect(validateCreateOrderRequest(game(10)).quantity).toBe(10);
    expect(fieldsOf(game(0))).toEqual(["quantity"]);
    expect(fieldsOf(game(11))).toEqual(["quantity"]);
  });

  it("rejects any quantity for premium, but accepts premium without the key", () => {
    for (const product of ["premium_3m", "premium_6m", "premium_12m"]) {
      expect(fieldsOf({ custom_id: id, product, recipient_username: "durov", quantity: 1 })).toEqual([
        "quantity",
      ]);
      expect(
        validateCreateOrderRequest({ custom_id: id, product, recipient_username: "durov" }),
      ).not.toHaveProperty("quantity");
    }
  });

  it("drops keys whose value is undefined, as JSON would", () => {
    const req = validateCreateOrderRequest({
      custom_id: id,
      product: "premium_3m",
      recipient_username: "durov",
      quantity: undefined,
    });
    expect(Object.keys(req)).not.toContain("quantity");
  });

  it("requires gift_id for gift, code for neural and product_ref for game", () => {
    expect(fieldsOf({ custom_id: id, product: "gift", recipient_username: "durov" })).toEqual(["gift_id"]);
    expect(fieldsOf({ custom_id: id, product: "neural" })).toEqual(["code"]);
    expect(fieldsOf({ custom_id: id, product: "game", quantity: 1 })).toEqual(["product_ref"]);
  });

  it("lists every bad field at once, including fields a product does not use and unknown keys", () => {
    const fields = fieldsOf({
      product: "neural",
      code: "",
      recipient_username: "durov",
      callback_url: "http://example.com/hook",
      colour: "red",
    });
    expect(fields.sort()).toEqual(["callback_url", "code", "colour", "custom_id", "recipient_username"]);
  });

  it("accepts an https callback_url and top-up fields with string values", () => {
    const req = validateCreateOrderRequest({
      custom_id: id,
      product: "game",
      product_ref: "pubg-global-60",
      quantity: 2,
      fields: { player_id: "5123456789" },
      callback_url: "https://shop.example/webhooks/reseller",
    });
    expect(req.fields).toEqual({ player_id: "5123456789" });
    expect(fieldsOf({ ...req, fields: { player_id: 5123 } })).toEqual(["fields.player_id"]);
  });

  it("rejects an unknown product and a recipient that is not a Telegram username", () => {
    expect(fieldsOf({ custom_id: id, product: "robux", quantity: 5 })).toEqual(["product"]);
    expect(fieldsOf({ custom_id: id, product: "stars", recipient_username: "@durov", quantity: 50 })).toEqual(
      ["recipient_username"],
    );
    expect(fieldsOf("stars")).toEqual(["(request)"]);
  });

  it("names the bad field and the rule in the error message", () => {
    expect(() =>
      validateCreateOrderRequest({
        custom_id: id,
        product: "stars",
        recipient_username: "durov",
        quantity: 49,
      }),
    ).toThrow(/quantity: must be at least 50 stars/);
  });

  it("exposes the rules as a zod schema discriminated on product", () => {
    expect(
      createOrderRequestSchema.safeParse({ custom_id: id, product: "neural", code: "chatgpt_plus_1m" })
        .success,
    ).toBe(true);
    expect(createOrderRequestSchema.safeParse({ custom_id: id, product: "neural" }).success).toBe(false);
  });
});
