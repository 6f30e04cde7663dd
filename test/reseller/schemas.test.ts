import { describe, expect, it } from "vitest";
import {
  parseGames,
  parseGifts,
  parsePackages,
  parseProducts,
  parseRegions,
} from "../../src/reseller/parse-catalog.js";
import { ResponseShapeError } from "../../src/reseller/parse-common.js";
import { mentionsInsufficientFunds, parseErrorBody } from "../../src/reseller/parse-errors.js";
import { parseBalance, parseOrder, parsePayOrder } from "../../src/reseller/parse-orders.js";

describe("response normalisation", () => {
  it("reads products from the first list under any common key, with ids, titles and numeric-string prices", () => {
    const items = parseProducts({
      success: true,
      data: [
        { id: "stars", name: "Stars", price: "1.35", extra: 1 },
        { code: "premium_3m", title: "Premium 3m", wholesale_price_rub: 1200 },
        { title: "no id here" },
      ],
    });
    expect(items.map((p) => [p.id, p.title, p.wholesalePriceRub])).toEqual([
      ["stars", "Stars", 1.35],
      ["premium_3m", "Premium 3m", 1200],
    ]);
    expect(items[0]!.raw.extra).toBe(1);
  });

  it("reads products given as a bare array or as an object keyed by product", () => {
    expect(parseProducts([{ product: "stars" }]).map((p) => p.id)).toEqual(["stars"]);
    expect(parseProducts({ products: { steam: { price_rub: 1 } } })).toMatchObject([
      { id: "steam", wholesalePriceRub: 1 },
    ]);
  });

  it("fails with a shape error when no list is present or no item is usable", () => {
    expect(() => parseProducts({ success: true, note: "maintenance" })).toThrow(ResponseShapeError);
    expect(() => parseProducts({ products: [{ foo: 1 }, { bar: 2 }] })).toThrow(/none of the 2 products/);
    expect(parseProducts({ products: [] })).toEqual([]);
  });

  it("skips gifts without a price and keeps unlimited gifts with a null remaining count", () => {
    const gifts = parseGifts({
      gifts: [
        {
          gift_id: 123,
          emoji: "🧸",
          star_count: "15",
          remaining_count: null,
          wholesale_price_rub: 22.5,
          rare: true,
        },
        { gift_id: "x", emoji: "?", star_count: 1 },
      ],
    });
    expect(gifts).toEqual([
      {
        giftId: "123",
        emoji: "🧸",
        starCount: 15,
        remainingCount: null,
        wholesalePriceRub: 22.5,
        raw: expect.objectContaining({ rare: true }),
      },
    ]);
  });

  it("reads game and region entries under other field names, and plain strings", () => {
    expect(
      parseGames({ games: [{ slug: "pubg", name: "PUBG" }, "genshin"] }).map((g) => [g.key, g.title]),
    ).toEqual([
      ["pubg", "PUBG"],
      ["genshin", "genshin"],
    ]);
    expect(parseRegions({ regions: [{ region_code: "eu" }] }).map((r) => [r.code, r.title])).toEqual([
      ["eu", "eu"],
    ]);
  });

  it("finds packages under an unknown key by their product_ref and infers delivery from fields", () => {
    const cat = parsePackages({
      meta: [1, 2],
      offers: [{ product_ref: "p-60", name: "60 UC", price: "99.9" }],
      fields: [{ key: "player_id" }, "server"],
    });
    expect(cat).toEqual({
      delivery: "topup",
      fields: ["player_id", "server"],
      packages: [{ productRef: "p-60", title: "60 UC", wholesalePriceRub: 99.9, raw: expect.any(Object) }],
    });
    expect(parsePackages({ delivery: "weird", packages: [] }).delivery).toBe("codes");
  });

  it("reads the balance and an order wrapped in an `order` object", () => {
    expect(parseBalance({ success: true, balance_nano: 5e12, balance_rub: "5000" })).toEqual({
      balanceRub: 5000,
      balanceNano: 5e12,
    });
    expect(
      parseOrder(
        { success: true, order: { status: "delivered", delivered_payload: { tx_hash: "0x1" } } },
        "c1",
      ),
    ).toMatchObject({
      customId: "c1",
      status: "delivered",
      deliveredPayload: { tx_hash: "0x1" },
      errorMessage: null,
    });
    expect(() => parsePayOrder({ success: true, status: "pending" }, "c1")).toThrow(/price_charged_rub/);
  });

  it("reads codes, messages and missing fields from error bodies of several shapes", () => {
    expect(
      parseErrorBody({ error: "validation_error", message: "Missing", missing_fields: ["fields.player_id"] }),
    ).toEqual({
      code: "validation_error",
      message: "Missing",
      fields: ["fields.player_id"],
    });
    expect(
      parseErrorBody({ error: { code: "bad", errors: [{ field: "quantity" }, { name: "gift_id" }] } }).fields,
    ).toEqual(["quantity", "gift_id"]);
    expect(
      parseErrorBody({ error_code: "x", invalid_fields: ["quantity"], missing: "code" }).fields.sort(),
    ).toEqual(["code", "quantity"]);
    expect(mentionsInsufficientFunds(parseErrorBody({ message: "Not enough balance on the deposit" }))).toBe(
      true,
    );
    expect(mentionsInsufficientFunds(parseErrorBody({ error: "INSUFFICIENT_FUNDS" }))).toBe(true);
    expect(mentionsInsufficientFunds(parseErrorBody({ error: "validation_error" }))).toBe(false);
  });
});
