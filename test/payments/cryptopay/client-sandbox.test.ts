import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import {
  CryptoPayError,
  CryptoPayValidationError,
  parseCryptoPayUpdate,
  verifyCryptoPayUpdate,
} from "../../../src/payments/cryptopay/index.js";
import { client, failure, receiver, sandbox, TOKEN } from "./helpers.js";

const order = (amountKopecks = 12345, extra: Record<string, unknown> = {}) => ({
  amountKopecks,
  orderId: randomUUID(),
  description: "Telegram Stars × 100",
  expiresInSeconds: 900,
  ...extra,
});

describe("Crypto Pay client against the sandbox", () => {
  it("creates a fiat RUB invoice with the amount formatted from kopecks and the order in its payload", async () => {
    const sb = await sandbox();
    const cp = client(sb);
    const o = order(12345, { payload: "order" });
    const inv = await cp.createInvoice(o);
    expect(inv).toMatchObject({
      status: "active",
      currencyType: "fiat",
      fiat: "RUB",
      amount: "123.45",
      amountKopecks: 12345,
      orderId: o.orderId,
      payloadData: "order",
    });
    expect(inv.payUrl).toBe(`${sb.url}/invoice/${inv.hash}`);
    const sent = sb.requests().at(-1)!;
    expect(sent).toMatchObject({
      method: "createInvoice",
      status: 200,
      params: { currency_type: "fiat", fiat: "RUB", amount: "123.45", expires_in: 900 },
    });
    expect(JSON.parse(String(sent.params.payload))).toMatchObject({ order_id: o.orderId, data: "order" });
  });

  it.each([
    [1, "0.01"],
    [10, "0.10"],
    [100, "1.00"],
    [12345, "123.45"],
  ])("sends %i kopecks as amount %s and reads the same kopecks back", async (kopecks, amount) => {
    const sb = await sandbox();
    const inv = await client(sb).createInvoice(order(kopecks));
    expect(sb.requests().at(-1)?.params.amount).toBe(amount);
    expect(sb.invoice(inv.invoiceId)?.amount).toBe(amount);
    expect(inv.amountKopecks).toBe(kopecks);
  });

  it("refuses amounts that are not positive whole kopecks and sends nothing", async () => {
    const sb = await sandbox();
    const cp = client(sb);
    for (const bad of [0, -100, 1.5, Number.NaN]) {
      const err = await failure(cp.createInvoice(order(bad)));
      expect(err).toBeInstanceOf(CryptoPayValidationError);
      expect((err as CryptoPayValidationError).field).toBe("amountKopecks");
    }
    expect(sb.requests()).toHaveLength(0);
  });

  it("gets a signed invoice_paid update on payment that verifyCryptoPayUpdate accepts and parseCryptoPayUpdate reads", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    const cp = client(sb);
    const o = order();
    const inv = await cp.createInvoice(o);
    await sb.pay(inv.invoiceId, { asset: "TON" });

    expect(rx.received).toHaveLength(1);
    const { headers, raw } = rx.received[0]!;
    const signature = headers["crypto-pay-api-signature"] as string;
    expect(verifyCryptoPayUpdate(raw, signature, TOKEN)).toBe(true);
    const parsed = parseCryptoPayUpdate(raw);
    expect(parsed).toMatchObject({
      ok: true,
      update: { updateType: "invoice_paid", invoiceId: inv.invoiceId, orderId: o.orderId },
    });
    if (parsed.ok) {
      expect(parsed.update.invoice).toMatchObject({ status: "paid", paidAsset: "TON", amountKopecks: 12345 });
      expect(parsed.update.payload).toBe(inv.payload);
    }

    // The update is only a hint: the re-read is the source of truth.
    const reread = await cp.getInvoice(inv.invoiceId);
    expect(reread).toMatchObject({ status: "paid", paidAsset: "TON", orderId: o.orderId });
    expect(reread?.paidAt).toEqual(expect.any(String));
    expect(reread?.paidAmount).toBe("0.41150000");
  });

  it("rejects an update whose body was changed, signed with another token, or without a signature", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    const inv = await client(sb).createInvoice(order());
    await sb.pay(inv.invoiceId);
    const { headers, raw } = rx.received[0]!;
    const signature = headers["crypto-pay-api-signature"] as string;

    const tampered = Buffer.from(raw.toString("utf8").replace('"status":"paid"', '"status":"paid" '));
    expect(tampered.equals(raw)).toBe(false);
    expect(verifyCryptoPayUpdate(tampered, signature, TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(raw, signature, `${TOKEN}x`)).toBe(false);
    expect(verifyCryptoPayUpdate(raw, undefined, TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(raw, "", TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(raw, signature.slice(0, 32), TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(raw, signature, TOKEN)).toBe(true);
  });

  it("sends a forged signature on request, which verifyCryptoPayUpdate rejects", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    sb.setWebhookMode("forge");
    const inv = await client(sb).createInvoice(order());
    await sb.pay(inv.invoiceId);
    const { headers, raw } = rx.received[0]!;
    expect(headers["crypto-pay-api-signature"]).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyCryptoPayUpdate(raw, headers["crypto-pay-api-signature"] as string, TOKEN)).toBe(false);
  });

  it("leaves a lost update to the re-read: getInvoices shows the invoice paid", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    sb.setWebhookMode("drop");
    const cp = client(sb);
    const a = await cp.createInvoice(order());
    const b = await cp.createInvoice(order(500));
    await sb.pay(a.invoiceId, { asset: "USDT" });
    expect(rx.received).toHaveLength(0);
    const list = await cp.getInvoices({ invoiceIds: [a.invoiceId, b.invoiceId] });
    expect(sb.requests().at(-1)?.params.invoice_ids).toBe(`${a.invoiceId},${b.invoiceId}`);
    expect(Object.fromEntries(list.map((i) => [i.invoiceId, i.status]))).toEqual({
      [a.invoiceId]: "paid",
      [b.invoiceId]: "active",
    });
  });

  it("expires an unpaid invoice when its expires_in has passed, and it can no longer be paid", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const sb = await sandbox({ now: () => clock });
    const cp = client(sb);
    const inv = await cp.createInvoice(order(100, { expiresInSeconds: 60 }));
    expect(inv.expirationDate).toBe("2026-01-01T00:01:00.000Z");
    clock += 59_000;
    expect((await cp.getInvoice(inv.invoiceId))?.status).toBe("active");
    clock += 1_000;
    expect((await cp.getInvoice(inv.invoiceId))?.status).toBe("expired");
    await expect(sb.pay(inv.invoiceId)).rejects.toThrow(/expired/);
    expect((await cp.getInvoices({ status: "paid" })).map((i) => i.invoiceId)).not.toContain(inv.invoiceId);
  });

  it("answers a wrong token with a permanent auth error, not retried, without the token in it", async () => {
    const sb = await sandbox();
    const wrong = "999:WRONGtokenVALUE";
    const cp = client(sb, { token: wrong });
    const err = await failure(cp.createInvoice(order()));
    expect(err).toBeInstanceOf(CryptoPayError);
    expect(err).toMatchObject({ kind: "auth", status: 401, code: "UNAUTHORIZED", transient: false });
    expect((err as Error).message).toContain("CRYPTOPAY_TOKEN");
    expect((err as Error).message).not.toContain(wrong);
    expect(sb.requests()).toHaveLength(1);
    expect(sb.invoices()).toHaveLength(0);
    await expect(cp.getMe()).rejects.toMatchObject({ kind: "auth" });
  });

  it("answers a request Crypto Pay refuses with a permanent error carrying its error name", async () => {
    const sb = await sandbox();
    const err = await failure(client(sb).createInvoice(order(100, { acceptedAssets: ["DOGE"] })));
    expect(err).toMatchObject({
      kind: "bad_request",
      status: 400,
      code: "ACCEPTED_ASSETS_INVALID",
      transient: false,
    });
    expect(sb.requests()).toHaveLength(1);
  });

  it("retries createInvoice after a 500, looking first for an invoice already made, and makes exactly one", async () => {
    const sb = await sandbox();
    sb.fail("createInvoice", "500", 1);
    const o = order();
    const inv = await client(sb).createInvoice(o);
    expect(inv.orderId).toBe(o.orderId);
    expect(sb.invoices()).toHaveLength(1);
    expect(sb.requests().map((r) => `${r.method} ${r.status}`)).toEqual([
      "createInvoice 500",
      "getInvoices 200",
      "createInvoice 200",
    ]);
  });

  it("retries createInvoice after a 429 without a look-up, since a refused request made nothing", async () => {
    const sb = await sandbox();
    sb.fail("createInvoice", "429", 1);
    const inv = await client(sb).createInvoice(order());
    expect(sb.invoices().map((i) => i.invoice_id)).toEqual([inv.invoiceId]);
    expect(sb.requests().map((r) => `${r.method} ${r.status}`)).toEqual([
      "createInvoice 429",
      "createInvoice 200",
    ]);
  });

  it("gives up on createInvoice with an outcome-unknown error when every attempt is lost", async () => {
    const sb = await sandbox();
    sb.fail("createInvoice", "reset", Number.POSITIVE_INFINITY);
    const err = await failure(client(sb, { retries: 2 }).createInvoice(order()));
    expect(err).toMatchObject({ kind: "network", transient: true, outcomeUnknown: true, attempts: 3 });
    expect(sb.requests().map((r) => r.method)).toEqual([
      "createInvoice",
      "getInvoices",
      "createInvoice",
      "getInvoices",
      "createInvoice",
    ]);
  });

  it("returns the invoice a lost createInvoice answer made instead of creating a second one", async () => {
    const sb = await sandbox();
    const cp = client(sb);
    const other = await cp.createInvoice(order(12345));
    sb.fail("createInvoice", "lose_response", 1);
    const o = order(12345);
    const inv = await cp.createInvoice(o);
    expect(sb.invoices()).toHaveLength(2);
    expect(inv.invoiceId).not.toBe(other.invoiceId);
    expect(inv).toMatchObject({ orderId: o.orderId, status: "active" });
    expect(sb.requests().map((r) => r.method)).toEqual(["createInvoice", "createInvoice", "getInvoices"]);
  });

  it("retries reads on 500 and 429 and gives up with a transient error when the faults last", async () => {
    const sb = await sandbox();
    const cp = client(sb, { retries: 2 });
    const inv = await cp.createInvoice(order());
    sb.fail("getInvoices", "500", 2);
    expect((await cp.getInvoice(inv.invoiceId))?.invoiceId).toBe(inv.invoiceId);
    sb.fail("getInvoices", "500", 3);
    const err = await failure(cp.getInvoice(inv.invoiceId));
    expect(err).toMatchObject({
      kind: "server",
      status: 500,
      code: "INTERNAL_ERROR",
      transient: true,
      attempts: 3,
    });
    expect(sb.requests().filter((r) => r.method === "getInvoices")).toHaveLength(6);
  });

  it("times out a hanging request as a transient error whose outcome is unknown", async () => {
    const sb = await sandbox();
    sb.fail("getMe", "hang", 1);
    const err = await failure(client(sb, { retries: 0, headersTimeoutMs: 200 }).getMe());
    expect(err).toMatchObject({ kind: "timeout", transient: true, outcomeUnknown: true });
  });

  it("finds every invoice made for an order among the newest pages, by status", async () => {
    const sb = await sandbox();
    const cp = client(sb);
    const o = order(700);
    const first = await cp.createInvoice(o);
    for (let i = 0; i < 3; i++) await cp.createInvoice(order(700));
    const second = await cp.createInvoice(o);
    await sb.pay(first.invoiceId);
    await sb.pay(second.invoiceId);
    const paid = await cp.findInvoicesForOrder(o.orderId, { status: "paid", pageSize: 1 });
    expect(paid.map((i) => i.invoiceId)).toEqual([second.invoiceId, first.invoiceId]);
    expect(await cp.findInvoicesForOrder(o.orderId, { status: "active" })).toEqual([]);
    expect(await cp.getMe()).toMatchObject({ appId: 1, name: "Sandbox shop" });
  });
});

describe("Crypto Pay sandbox payment page", () => {
  it("shows the invoice and pays it with the coin chosen, sending the signed update", async () => {
    const rx = await receiver();
    const sb = await sandbox({ webhookUrl: rx.url });
    const inv = await client(sb).createInvoice(order(250000));
    const page = await fetch(inv.payUrl!);
    const html = await page.text();
    expect(html).toContain("2500.00 RUB");
    expect(html).toContain('id="pay"');
    expect(html).toContain('id="cancel"');

    const cancel = await fetch(`${sb.url}/invoice/${inv.hash}/cancel`, { method: "POST" });
    expect(await cancel.text()).toContain("stays open");
    expect(sb.invoice(inv.invoiceId)?.status).toBe("active");

    const paid = await fetch(`${sb.url}/invoice/${inv.hash}/pay`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "asset=TON",
    });
    expect(paid.status).toBe(200);
    expect(sb.invoice(inv.invoiceId)).toMatchObject({ status: "paid", paid_asset: "TON" });
    expect(rx.received).toHaveLength(1);
    const { headers, raw } = rx.received[0]!;
    expect(verifyCryptoPayUpdate(raw, headers["crypto-pay-api-signature"] as string, TOKEN)).toBe(true);

    const again = await fetch(`${sb.url}/invoice/${inv.hash}/pay`, { method: "POST", body: "asset=TON" });
    expect(again.status).toBe(409);
    expect(rx.received).toHaveLength(1);
  });
});

describe("Crypto Pay client logging", () => {
  it("never writes the token into a log line, on success, retries or failure", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "trace" },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    const sb = await sandbox();
    const cp = client(sb, { logger });
    sb.fail("createInvoice", "500", 1);
    await cp.createInvoice(order());
    await failure(client(sb, { logger, token: `${TOKEN}-old` }).getMe());
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join("\n")).not.toContain(TOKEN);
  });
});
