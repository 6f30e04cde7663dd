import { describe, expect, it } from "vitest";
import type { CryptoPaySandbox } from "../../../sandbox/cryptopay/server.js";
import { verifyCryptoPayUpdate } from "../../../src/payments/cryptopay/index.js";
import { receiver, sandbox, TOKEN } from "../../payments/cryptopay/helpers.js";

async function api(
  sb: CryptoPaySandbox,
  method: string,
  init: {
    params?: Record<string, unknown>;
    token?: string | null;
    get?: boolean;
    form?: boolean;
    raw?: string;
  } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? TOKEN : init.token;
  if (token !== null) headers["crypto-pay-api-token"] = token;
  let url = `${sb.apiUrl}/${method}`;
  let body: string | undefined;
  if (init.get) url += `?${new URLSearchParams(init.params as Record<string, string>)}`;
  else if (init.raw !== undefined) body = init.raw;
  else if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = String(new URLSearchParams(init.params as Record<string, string>));
  } else {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.params ?? {});
  }
  const res = await fetch(url, { method: init.get ? "GET" : "POST", headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const fiat = { currency_type: "fiat", fiat: "RUB", amount: "150.00" };

describe("Crypto Pay sandbox API", () => {
  it("answers 401 UNAUTHORIZED without the right token and creates nothing", async () => {
    const sb = await sandbox();
    for (const token of [null, "", "wrong"]) {
      const r = await api(sb, "createInvoice", { params: fiat, token });
      expect(r).toMatchObject({
        status: 401,
        body: { ok: false, error: { code: 401, name: "UNAUTHORIZED" } },
      });
    }
    expect(sb.invoices()).toHaveLength(0);
    expect((await api(sb, "getMe")).body).toMatchObject({ ok: true, result: { app_id: 1 } });
  });

  it("takes parameters from the query string, a form body or JSON", async () => {
    const sb = await sandbox();
    const a = await api(sb, "createInvoice", { params: fiat, get: true });
    const b = await api(sb, "createInvoice", { params: { ...fiat, expires_in: "60" }, form: true });
    const c = await api(sb, "createInvoice", {
      params: { currency_type: "crypto", asset: "TON", amount: "2.5" },
    });
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect(b.body.result).toMatchObject({
      status: "active",
      amount: "150.00",
      expiration_date: expect.any(String),
    });
    expect(c.body.result).toMatchObject({ currency_type: "crypto", asset: "TON", amount: "2.5" });
    const list = await api(sb, "getInvoices", { params: { invoice_ids: "3,1" }, get: true });
    expect((list.body.result as { items: { invoice_id: number }[] }).items.map((i) => i.invoice_id)).toEqual([
      3, 1,
    ]);
  });

  it.each([
    [{ ...fiat, currency_type: "gold" }, "CURRENCY_TYPE_INVALID"],
    [{ ...fiat, fiat: "XXX" }, "FIAT_INVALID"],
    [{ currency_type: "crypto", asset: "DOGE", amount: "1" }, "ASSET_INVALID"],
    [{ ...fiat, amount: "1.005" }, "AMOUNT_INVALID"],
    [{ ...fiat, amount: "0" }, "AMOUNT_INVALID"],
    [{ ...fiat, amount: 1.5 }, "AMOUNT_INVALID"],
    [{ ...fiat, accepted_assets: "USDT,DOGE" }, "ACCEPTED_ASSETS_INVALID"],
    [{ ...fiat, expires_in: 0 }, "EXPIRES_IN_INVALID"],
    [{ ...fiat, expires_in: 2_678_401 }, "EXPIRES_IN_INVALID"],
    [{ ...fiat, description: "x".repeat(1025) }, "DESCRIPTION_TOO_LONG"],
    [{ ...fiat, payload: "x".repeat(4097) }, "PAYLOAD_TOO_LONG"],
  ])("refuses createInvoice %j with 400 %s and creates nothing", async (params, name) => {
    const sb = await sandbox();
    const r = await api(sb, "createInvoice", { params });
    expect(r).toMatchObject({ status: 400, body: { ok: false, error: { code: 400, name } } });
    expect(sb.invoices()).toHaveLength(0);
  });

  it("names a body that is not JSON and an unknown method", async () => {
    const sb = await sandbox();
    expect((await api(sb, "createInvoice", { raw: "{oops" })).body).toMatchObject({
      error: { code: 400, name: "PARAMS_INVALID" },
    });
    expect((await api(sb, "transfer")).body).toMatchObject({
      error: { code: 405, name: "METHOD_NOT_FOUND" },
    });
  });

  it("pages getInvoices newest first and filters by status, refusing bad paging", async () => {
    const sb = await sandbox();
    for (let i = 0; i < 5; i++) await api(sb, "createInvoice", { params: fiat });
    await sb.pay(2);
    await sb.pay(4);
    sb.expire(5);
    const page = async (params: Record<string, unknown>) =>
      (
        (await api(sb, "getInvoices", { params })).body.result as { items: { invoice_id: number }[] }
      ).items.map((i) => i.invoice_id);
    expect(await page({ count: 2 })).toEqual([5, 4]);
    expect(await page({ count: 2, offset: 2 })).toEqual([3, 2]);
    expect(await page({ status: "paid" })).toEqual([4, 2]);
    expect(await page({ status: "active" })).toEqual([3, 1]);
    expect(await page({ status: "expired" })).toEqual([5]);
    for (const [params, name] of [
      [{ count: 0 }, "COUNT_INVALID"],
      [{ count: 1001 }, "COUNT_INVALID"],
      [{ offset: -1 }, "OFFSET_INVALID"],
      [{ status: "gone" }, "STATUS_INVALID"],
      [{ invoice_ids: "1,x" }, "INVOICE_IDS_INVALID"],
    ] as const) {
      expect((await api(sb, "getInvoices", { params })).body).toMatchObject({ error: { name } });
    }
  });

  it("refuses to pay an invoice twice, with a coin it does not accept, or once expired", async () => {
    const sb = await sandbox();
    await api(sb, "createInvoice", { params: { ...fiat, accepted_assets: "USDT" } });
    await api(sb, "createInvoice", { params: fiat });
    await expect(sb.pay(1, { asset: "TON" })).rejects.toThrow(/does not accept TON/);
    await sb.pay(1, { asset: "USDT" });
    await expect(sb.pay(1)).rejects.toThrow(/already paid/);
    sb.expire(2);
    await expect(sb.pay(2)).rejects.toThrow(/expired/);
    expect(sb.invoice(1)).toMatchObject({ status: "paid", paid_asset: "USDT", paid_amount: "1.57894736" });
  });
});

describe("Crypto Pay sandbox updates", () => {
  it("retries an update the receiver refuses, up to 3 attempts, with the same signed bytes", async () => {
    const rx = await receiver(500);
    const sb = await sandbox({ webhookUrl: rx.url });
    await api(sb, "createInvoice", { params: fiat });
    await sb.pay(1);
    expect(sb.updatesSent().map((u) => [u.attempt, u.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);
    expect(new Set(rx.received.map((r) => r.raw.toString())).size).toBe(1);
    const first = rx.received[0]!;
    expect(verifyCryptoPayUpdate(first.raw, first.headers["crypto-pay-api-signature"] as string, TOKEN)).toBe(
      true,
    );
    expect(JSON.parse(first.raw.toString())).toMatchObject({
      update_id: 1,
      update_type: "invoice_paid",
      request_date: expect.any(String),
      payload: { invoice_id: 1, status: "paid" },
    });
  });

  it("sends nothing in drop mode and resends on request, signed or forged", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    sb.setWebhookMode("drop");
    await api(sb, "createInvoice", { params: fiat });
    await sb.pay(1);
    expect(rx.received).toHaveLength(0);
    expect(await sb.sendUpdate(1)).toBe(200);
    expect(await sb.sendUpdate(1, { forge: true })).toBe(200);
    const [good, forged] = rx.received;
    expect(verifyCryptoPayUpdate(good!.raw, good!.headers["crypto-pay-api-signature"] as string, TOKEN)).toBe(
      true,
    );
    expect(
      verifyCryptoPayUpdate(forged!.raw, forged!.headers["crypto-pay-api-signature"] as string, TOKEN),
    ).toBe(false);
  });
});

describe("Crypto Pay sandbox faults", () => {
  it("answers 500 and 429 without processing, then serves normally", async () => {
    const sb = await sandbox();
    sb.fail("createInvoice", "500");
    sb.fail("createInvoice", "429");
    const a = await api(sb, "createInvoice", { params: fiat });
    const b = await api(sb, "createInvoice", { params: fiat });
    expect([a.status, b.status]).toEqual([500, 429]);
    expect(a.body).toMatchObject({ ok: false, error: { name: "INTERNAL_ERROR" } });
    expect(b.headers.get("retry-after")).toBe("1");
    expect(sb.invoices()).toHaveLength(0);
    expect((await api(sb, "createInvoice", { params: fiat })).status).toBe(200);
    expect(sb.requests().map((r) => r.status)).toEqual([500, 429, 200]);
  });

  it("processes a request whose answer it then loses, and drops a reset one unprocessed", async () => {
    const sb = await sandbox();
    sb.fail("createInvoice", "lose_response");
    await expect(api(sb, "createInvoice", { params: fiat })).rejects.toThrow();
    expect(sb.invoices()).toHaveLength(1);
    sb.fail("*", "reset");
    await expect(api(sb, "createInvoice", { params: fiat })).rejects.toThrow();
    expect(sb.invoices()).toHaveLength(1);
    expect(sb.requests().map((r) => r.status)).toEqual([200, 0]);
  });

  it("never records the token among the request parameters", async () => {
    const sb = await sandbox();
    await api(sb, "createInvoice", { params: fiat });
    expect(JSON.stringify(sb.requests())).not.toContain(TOKEN);
  });
});
