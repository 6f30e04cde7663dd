import { describe, expect, it } from "vitest";
import { call, sandbox } from "./helpers.js";

describe("reseller sandbox auth", () => {
  it("answers 401 without a Bearer key and with a wrong one", async () => {
    const sb = await sandbox();
    for (const key of [null, "wrong-key"]) {
      const res = await call(sb, "GET", "/api/reseller/balance", undefined, { key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: "unauthorized" });
      expect(JSON.stringify(res.body)).not.toContain("test-key");
    }
  });

  it("answers 401 to a good key while auth failure is switched on, and serves again when off", async () => {
    const sb = await sandbox();
    sb.setAuthFailure(true);
    expect((await call(sb, "GET", "/api/reseller/balance")).status).toBe(401);
    sb.setAuthFailure(false);
    expect((await call(sb, "GET", "/api/reseller/balance")).status).toBe(200);
  });

  it("answers unknown routes with a 404 JSON body and wrong methods with 405", async () => {
    const sb = await sandbox();
    const res = await call(sb, "GET", "/api/reseller/nothing");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: "not_found" });
    expect((await call(sb, "GET", "/api/reseller/order/pay")).status).toBe(405);
    expect((await call(sb, "POST", "/api/reseller/gifts", {})).status).toBe(405);
  });
});

describe("reseller sandbox catalogs", () => {
  it("lists every product kind with prices and limits", async () => {
    const sb = await sandbox();
    const res = await call(sb, "GET", "/api/reseller/products");
    expect(res.body.success).toBe(true);
    const products = res.body.products as Record<string, unknown>[];
    expect(products.map((p) => p.product)).toEqual([
      "stars",
      "premium_3m",
      "premium_6m",
      "premium_12m",
      "gift",
      "steam",
      "neural",
      "game",
    ]);
    expect(products[0]).toMatchObject({ unit_price_rub: 1.3, min: 50, max: 1_000_000 });
    expect(products[1]).toMatchObject({ wholesale_price_rub: 1099 });
    expect(products.find((p) => p.product === "steam")).toMatchObject({
      fee_percent: 5,
      min: 50,
      max: 50_000,
    });
  });

  it("lists more than eight gifts, some limited and one sold out, priced from their stars", async () => {
    const sb = await sandbox();
    const gifts = (await call(sb, "GET", "/api/reseller/gifts")).body.gifts as Record<string, unknown>[];
    expect(gifts.length).toBeGreaterThan(8);
    expect(gifts.filter((g) => g.remaining_count === 0)).toHaveLength(1);
    expect(
      gifts.filter((g) => typeof g.remaining_count === "number" && g.remaining_count > 0).length,
    ).toBeGreaterThan(1);
    for (const g of gifts) {
      expect(Object.keys(g).sort()).toEqual([
        "emoji",
        "gift_id",
        "remaining_count",
        "star_count",
        "wholesale_price_rub",
      ]);
      expect(g.wholesale_price_rub).toBeCloseTo((g.star_count as number) * 1.3, 2);
    }
  });

  it("lists neural items delivered automatically and leaves out manual ones", async () => {
    const sb = await sandbox();
    const items = (await call(sb, "GET", "/api/reseller/neural")).body.items as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(3);
    expect(items.every((i) => i.delivery === "auto")).toBe(true);
    expect(items.map((i) => i.code)).toContain("chatgpt_plus_1m");
    expect(items.map((i) => i.code)).not.toContain("suno_pro_1m");
    expect(items[0]).toEqual(
      expect.objectContaining({
        title: expect.any(String),
        emoji: expect.any(String),
        wholesale_price_rub: 2190,
      }),
    );
  });

  it("walks the games catalog from game to region to packages", async () => {
    const sb = await sandbox();
    const games = (await call(sb, "GET", "/api/reseller/games")).body.games as { key: string }[];
    expect(games.map((g) => g.key)).toEqual(expect.arrayContaining(["pubg", "genshin", "steam_cards"]));

    const regions = await call(sb, "GET", "/api/reseller/games?game=pubg");
    expect(regions.body).toEqual({
      success: true,
      game: "pubg",
      regions: [
        { code: "global", title: "Global" },
        { code: "ru", title: "Russia" },
      ],
    });

    const topup = (await call(sb, "GET", "/api/reseller/games?game=pubg&region=global")).body;
    expect(topup).toMatchObject({ success: true, delivery: "topup", fields: ["player_id"] });
    expect((topup.packages as unknown[]).length).toBeGreaterThan(8);
    expect((topup.packages as unknown[])[0]).toEqual({
      product_ref: "pubg-global-60",
      title: "60 UC",
      wholesale_price_rub: 89,
    });

    const twoFields = (await call(sb, "GET", "/api/reseller/games?game=genshin&region=global")).body;
    expect(twoFields).toMatchObject({ delivery: "topup", fields: ["uid", "server"] });

    const codes = (await call(sb, "GET", "/api/reseller/games?game=steam_cards&region=us")).body;
    expect(codes).toMatchObject({ delivery: "codes", fields: [] });
  });

  it("answers 404 for an unknown game or region", async () => {
    const sb = await sandbox();
    const game = await call(sb, "GET", "/api/reseller/games?game=tetris");
    expect(game.status).toBe(404);
    expect(game.body).toMatchObject({ success: false, error: "game_not_found" });
    const region = await call(sb, "GET", "/api/reseller/games?game=pubg&region=mars");
    expect(region.status).toBe(404);
    expect(region.body).toMatchObject({ success: false, error: "region_not_found" });
  });

  it("reports the balance in roubles and in nano-roubles", async () => {
    const sb = await sandbox({ balanceRub: 1234.56 });
    expect((await call(sb, "GET", "/api/reseller/balance")).body).toEqual({
      success: true,
      balance_nano: 1_234_560_000_000,
      balance_rub: 1234.56,
    });
    sb.setBalanceRub(10);
    expect((await call(sb, "GET", "/api/reseller/balance")).body.balance_rub).toBe(10);
    expect(sb.balanceRub()).toBe(10);
  });

  it("logs the requests it saw without headers", async () => {
    const sb = await sandbox();
    await call(sb, "GET", "/api/reseller/games?game=pubg");
    await call(sb, "POST", "/api/reseller/order/pay", { custom_id: "x" });
    expect(sb.requests()).toEqual([
      { method: "GET", path: "/api/reseller/games?game=pubg", status: 200, body: null },
      { method: "POST", path: "/api/reseller/order/pay", status: 404, body: { custom_id: "x" } },
    ]);
  });
});
