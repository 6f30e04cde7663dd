import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, create, getOrder, pay, sandbox, waitFor } from "./helpers.js";

const id = () => randomUUID();
const missing = (res: { status: number; body: Record<string, unknown> }) => {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: "validation_error" });
  return res.body.missing_fields;
};
const invalid = (res: { status: number; body: Record<string, unknown> }) => {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: "invalid_value" });
  return res.body.invalid_fields;
};

describe("reseller sandbox create validation", () => {
  it("requires custom_id and product and rejects an unknown product", async () => {
    const sb = await sandbox();
    expect(missing(await create(sb, {}))).toEqual(["custom_id", "product"]);
    expect(invalid(await create(sb, { custom_id: id(), product: "pizza" }))).toEqual(["product"]);
  });

  it("answers 400 to a body that is not JSON", async () => {
    const sb = await sandbox();
    const res = await call(sb, "POST", "/api/reseller/order/create", undefined, { raw: "{not json" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: "invalid_json" });
  });

  it("accepts stars from 50 to 1 000 000 and prices them at 1.3 roubles", async () => {
    const sb = await sandbox();
    const stars = (quantity: unknown) =>
      create(sb, { custom_id: id(), product: "stars", recipient_username: "durov", quantity });
    expect(missing(await create(sb, { custom_id: id(), product: "stars" }))).toEqual([
      "recipient_username",
      "quantity",
    ]);
    expect(invalid(await stars(49))).toEqual(["quantity"]);
    expect(invalid(await stars(1_000_001))).toEqual(["quantity"]);
    expect(invalid(await stars(50.5))).toEqual(["quantity"]);
    expect(invalid(await stars("100"))).toEqual(["quantity"]);
    expect((await stars(50)).body).toMatchObject({ success: true, status: "created", total_to_pay_rub: 65 });
    expect((await stars(1_000_000)).body.total_to_pay_rub).toBe(1_300_000);
    const badName = await create(sb, {
      custom_id: id(),
      product: "stars",
      recipient_username: "a b",
      quantity: 50,
    });
    expect(invalid(badName)).toEqual(["recipient_username"]);
  });

  it("rejects a quantity on premium and prices each duration at its fixed price", async () => {
    const sb = await sandbox();
    expect(missing(await create(sb, { custom_id: id(), product: "premium_3m" }))).toEqual([
      "recipient_username",
    ]);
    const withQty = await create(sb, {
      custom_id: id(),
      product: "premium_6m",
      recipient_username: "durov",
      quantity: 1,
    });
    expect(invalid(withQty)).toEqual(["quantity"]);
    const prices = [];
    for (const product of ["premium_3m", "premium_6m", "premium_12m"]) {
      prices.push(
        (await create(sb, { custom_id: id(), product, recipient_username: "@durov" })).body.total_to_pay_rub,
      );
    }
    expect(prices).toEqual([1099, 1499, 2699]);
  });

  it("prices a gift from its stars and refuses unknown and sold-out gifts", async () => {
    const sb = await sandbox();
    const gifts = (await call(sb, "GET", "/api/reseller/gifts")).body.gifts as Record<string, unknown>[];
    const soldOut = gifts.find((g) => g.remaining_count === 0)!;
    const limited = gifts.find((g) => typeof g.remaining_count === "number" && g.remaining_count > 0)!;
    expect(missing(await create(sb, { custom_id: id(), product: "gift" }))).toEqual([
      "gift_id",
      "recipient_username",
    ]);
    const gift = (gift_id: unknown) =>
      create(sb, { custom_id: id(), product: "gift", recipient_username: "durov", gift_id });
    expect(invalid(await gift("nope"))).toEqual(["gift_id"]);
    const sold = await gift(soldOut.gift_id);
    expect(invalid(sold)).toEqual(["gift_id"]);
    expect(sold.body.message).toContain("sold out");
    expect((await gift(limited.gift_id)).body.total_to_pay_rub).toBe(limited.wholesale_price_rub);
  });

  it("accepts Steam top-ups from 50 to 50 000 roubles and adds the 5 % fee", async () => {
    const sb = await sandbox();
    const steam = (quantity: number) =>
      create(sb, { custom_id: id(), product: "steam", recipient_username: "gaben", quantity });
    expect(missing(await create(sb, { custom_id: id(), product: "steam" }))).toEqual([
      "recipient_username",
      "quantity",
    ]);
    expect(invalid(await steam(49))).toEqual(["quantity"]);
    expect(invalid(await steam(50_001))).toEqual(["quantity"]);
    expect((await steam(50)).body.total_to_pay_rub).toBe(52.5);
    expect((await steam(50_000)).body.total_to_pay_rub).toBe(52_500);
    expect((await steam(333)).body.total_to_pay_rub).toBe(349.65);
  });

  it("requires a known neural code and needs no recipient", async () => {
    const sb = await sandbox();
    expect(missing(await create(sb, { custom_id: id(), product: "neural" }))).toEqual(["code"]);
    expect(invalid(await create(sb, { custom_id: id(), product: "neural", code: "suno_pro_1m" }))).toEqual([
      "code",
    ]);
    const ok = await create(sb, { custom_id: id(), product: "neural", code: "claude_pro_1m" });
    expect(ok.body.total_to_pay_rub).toBe(2150);
  });

  it("checks game packages, quantities from 1 to 10, and every top-up field", async () => {
    const sb = await sandbox();
    const game = (extra: Record<string, unknown>) =>
      create(sb, { custom_id: id(), product: "game", ...extra });
    expect(missing(await game({}))).toEqual(["product_ref", "quantity"]);
    expect(invalid(await game({ product_ref: "nope", quantity: 1 }))).toEqual(["product_ref"]);
    expect(invalid(await game({ product_ref: "steam-us-5", quantity: 0 }))).toEqual(["quantity"]);
    expect(invalid(await game({ product_ref: "steam-us-5", quantity: 11 }))).toEqual(["quantity"]);
    expect((await game({ product_ref: "steam-us-5", quantity: 10 })).body.total_to_pay_rub).toBe(5490);
    expect(missing(await game({ product_ref: "genshin-global-60", quantity: 1 }))).toEqual([
      "fields.uid",
      "fields.server",
    ]);
    expect(
      missing(await game({ product_ref: "genshin-global-60", quantity: 1, fields: { uid: "700000001" } })),
    ).toEqual(["fields.server"]);
    const ok = await game({
      product_ref: "genshin-global-60",
      quantity: 2,
      fields: { uid: "700000001", server: "eu" },
    });
    expect(ok.body.total_to_pay_rub).toBe(178);
  });

  it("names every key a top-up package needs when fields is absent, as when only some are missing", async () => {
    const sb = await sandbox();
    const game = (extra: Record<string, unknown>) =>
      create(sb, { custom_id: id(), product: "game", quantity: 1, ...extra });
    expect(missing(await game({ product_ref: "genshin-global-60" }))).toEqual([
      "fields.uid",
      "fields.server",
    ]);
    expect(missing(await game({ product_ref: "genshin-global-60", fields: null }))).toEqual([
      "fields.uid",
      "fields.server",
    ]);
    expect(missing(await game({ product_ref: "genshin-global-60", fields: {} }))).toEqual([
      "fields.uid",
      "fields.server",
    ]);
    const pubg = (await call(sb, "GET", "/api/reseller/games?game=pubg&region=global")).body as {
      fields: string[];
      packages: { product_ref: string }[];
    };
    expect(missing(await game({ product_ref: pubg.packages[0]!.product_ref }))).toEqual(
      pubg.fields.map((key) => `fields.${key}`),
    );
    expect(invalid(await game({ product_ref: "genshin-global-60", fields: "uid" }))).toEqual(["fields"]);
  });

  it("accepts only https callback URLs", async () => {
    const sb = await sandbox();
    const base = { product: "neural", code: "claude_pro_1m" };
    expect(
      invalid(await create(sb, { custom_id: id(), ...base, callback_url: "http://shop.example.com/hook" })),
    ).toEqual(["callback_url"]);
    expect(invalid(await create(sb, { custom_id: id(), ...base, callback_url: "not a url" }))).toEqual([
      "callback_url",
    ]);
    const ok = await create(sb, { custom_id: id(), ...base, callback_url: "https://shop.example.com/hook" });
    expect(ok.status).toBe(200);
  });
});

describe("reseller sandbox orders", () => {
  const starsOrder = (customId: string) => ({
    custom_id: customId,
    product: "stars",
    recipient_username: "durov",
    quantity: 100,
  });

  it("makes one order and one charge when create and pay are repeated", async () => {
    const sb = await sandbox({ balanceRub: 1000 });
    const cid = id();
    const first = await create(sb, starsOrder(cid));
    const again = await create(sb, starsOrder(cid));
    expect(again.body).toEqual(first.body);
    expect(first.body).toEqual({ success: true, custom_id: cid, status: "created", total_to_pay_rub: 130 });
    expect(sb.orders()).toHaveLength(1);
    expect(sb.balanceRub()).toBe(1000);

    const paid = await pay(sb, cid);
    expect(paid.body).toEqual({ success: true, custom_id: cid, status: "pending", price_charged_rub: 130 });
    expect((await pay(sb, cid)).body).toEqual(paid.body);
    expect(sb.stats(cid)).toEqual({ creates: 2, pays: 2, charges: 1, chargedRub: 130 });
    expect(sb.totalCharges()).toBe(1);
    expect(sb.balanceRub()).toBe(870);
  });

  it("answers 404 to pay and read of an unknown custom_id", async () => {
    const sb = await sandbox();
    const paid = await pay(sb, "unknown");
    expect(paid.status).toBe(404);
    expect(paid.body).toMatchObject({ success: false, error: "order_not_found" });
    expect((await getOrder(sb, "unknown")).status).toBe(404);
    expect(sb.stats("unknown")).toEqual({ creates: 0, pays: 1, charges: 0, chargedRub: 0 });
  });

  it("refuses pay with 402 when the deposit runs out, and pays once it is topped up", async () => {
    const sb = await sandbox({ balanceRub: 200 });
    const a = id();
    const b = id();
    await create(sb, starsOrder(a));
    await create(sb, starsOrder(b));
    expect((await pay(sb, a)).status).toBe(200);
    const refused = await pay(sb, b);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ success: false, error: "insufficient_funds", balance_rub: 70 });
    expect(sb.order(b)?.status).toBe("created");
    sb.setBalanceRub(500);
    expect((await pay(sb, b)).body.status).toBe("pending");
    expect(sb.balanceRub()).toBe(370);
    expect(sb.totalCharges()).toBe(2);
  });

  it("delivers a paid order after the delay with a tx_hash and shows it on read", async () => {
    const sb = await sandbox({ deliveryDelayMs: 30 });
    const cid = id();
    await create(sb, starsOrder(cid));
    expect((await getOrder(sb, cid)).body).toMatchObject({ status: "created", delivered_payload: null });
    await pay(sb, cid);
    const order = await waitFor(async () => {
      const res = await getOrder(sb, cid);
      return res.body.status === "delivered" ? res.body : null;
    });
    expect(order).toMatchObject({
      success: true,
      custom_id: cid,
      product: "stars",
      recipient: "durov",
      quantity: 100,
      total_to_pay_rub: 130,
      error_message: null,
    });
    expect((order.delivered_payload as { tx_hash: string }).tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(order.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
  });

  it("fails orders the outcome function fails, with its reason", async () => {
    const sb = await sandbox();
    sb.setOutcome((o) =>
      o.product === "steam"
        ? { status: "failed", errorMessage: "Steam account not found" }
        : { status: "delivered" },
    );
    const cid = id();
    await create(sb, { custom_id: cid, product: "steam", recipient_username: "nobody", quantity: 100 });
    await pay(sb, cid);
    const order = await waitFor(async () => {
      const res = await getOrder(sb, cid);
      return res.body.status === "failed" ? res.body : null;
    });
    expect(order).toMatchObject({ error_message: "Steam account not found", delivered_payload: null });
  });

  it("keeps paid orders pending while delivery is paused and delivers them when asked", async () => {
    const sb = await sandbox({ deliveryDelayMs: 1 });
    sb.pauseDelivery(true);
    const ids = [id(), id()];
    for (const cid of ids) {
      await create(sb, starsOrder(cid));
      await pay(sb, cid);
    }
    await new Promise((r) => setTimeout(r, 30));
    expect(sb.orders().map((o) => o.status)).toEqual(["pending", "pending"]);
    expect(sb.deliverAllNow()).toBe(2);
    expect(sb.orders().map((o) => o.status)).toEqual(["delivered", "delivered"]);
    expect(sb.deliverAllNow()).toBe(0);

    const later = id();
    await create(sb, starsOrder(later));
    await pay(sb, later);
    sb.pauseDelivery(false);
    await waitFor(() => sb.order(later)?.status === "delivered");
  });

  it("fits the default payload to each product", async () => {
    const sb = await sandbox();
    sb.pauseDelivery(true);
    const orders: Record<string, Record<string, unknown>> = {
      steam: { product: "steam", recipient_username: "gaben", quantity: 500 },
      neural: { product: "neural", code: "chatgpt_plus_1m" },
      codes: { product: "game", product_ref: "steam-us-10", quantity: 3 },
      topup: {
        product: "game",
        product_ref: "pubg-global-60",
        quantity: 1,
        fields: { player_id: "5123456789" },
      },
      gift: { product: "gift", recipient_username: "durov", gift_id: "5170145012310081615" },
    };
    for (const [cid, body] of Object.entries(orders)) {
      expect((await create(sb, { custom_id: cid, ...body })).status).toBe(200);
      await pay(sb, cid);
    }
    sb.deliverAllNow();
    expect(sb.order("steam")?.deliveredPayload).toMatchObject({
      transaction_id: expect.any(String),
      amount_rub: 500,
    });
    expect(sb.order("neural")?.deliveredPayload).toMatchObject({
      code: expect.stringMatching(/^[0-9A-F-]+$/),
    });
    expect(sb.order("codes")?.deliveredPayload?.codes).toHaveLength(3);
    expect(sb.order("topup")?.deliveredPayload).toMatchObject({
      transaction_id: expect.any(String),
      player_id: "5123456789",
    });
    expect(sb.order("gift")?.deliveredPayload).toMatchObject({ tx_hash: expect.any(String) });
    const read = await getOrder(sb, "topup");
    expect(read.body).toMatchObject({ recipient: null, quantity: 1, product_ref: "pubg-global-60" });
  });
});
