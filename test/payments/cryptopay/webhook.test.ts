import { describe, expect, it } from "vitest";
import { signUpdate } from "../../../sandbox/cryptopay/server.js";
import {
  amountToKopecks,
  kopecksToAmount,
  parseCryptoPayUpdate,
  signCryptoPayUpdate,
  verifyCryptoPayUpdate,
} from "../../../src/payments/cryptopay/index.js";

const TOKEN = "1234:AAAtoken";
const invoice = {
  invoice_id: 7,
  status: "paid",
  currency_type: "fiat",
  fiat: "RUB",
  amount: "10.50",
  paid_asset: "USDT",
  paid_amount: "0.11052631",
  payload: JSON.stringify({ v: "shopbot/1", order_id: "o-1" }),
  some_future_field: { x: 1 },
};

describe("Crypto Pay update signature", () => {
  it("matches the sandbox's independent signature and is hex HMAC-SHA256 keyed with SHA-256(token)", () => {
    const body = Buffer.from('{"update_id":1}');
    expect(signCryptoPayUpdate(body, TOKEN)).toBe(signUpdate(TOKEN, body));
    // Known answer from openssl: key = sha256("1234:AAAtoken"), HMAC-SHA256 over the body.
    expect(signCryptoPayUpdate(body, TOKEN)).toBe(
      "5ef4eb9bdc4d88f0ed6d644c86b66bd6e395f2bd1b4ca93fdec53c08d9b991b4",
    );
  });

  it("accepts the exact body only, in upper or lower case hex, and never with an empty token", () => {
    const body = Buffer.from('{"update_id":1}');
    const sig = signCryptoPayUpdate(body, TOKEN);
    expect(verifyCryptoPayUpdate(body, sig, TOKEN)).toBe(true);
    expect(verifyCryptoPayUpdate(body, sig.toUpperCase(), TOKEN)).toBe(true);
    expect(verifyCryptoPayUpdate(Buffer.from('{"update_id":2}'), sig, TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(body, `${sig}00`, TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(body, "zz".repeat(32), TOKEN)).toBe(false);
    expect(verifyCryptoPayUpdate(body, signCryptoPayUpdate(body, ""), "")).toBe(false);
  });
});

describe("parseCryptoPayUpdate", () => {
  it("reads an invoice_paid update, keeping unknown fields", () => {
    const r = parseCryptoPayUpdate(
      Buffer.from(
        JSON.stringify({
          update_id: 3,
          update_type: "invoice_paid",
          request_date: "2026-01-01T00:00:00Z",
          payload: invoice,
        }),
      ),
    );
    expect(r).toMatchObject({
      ok: true,
      update: {
        updateId: 3,
        updateType: "invoice_paid",
        invoiceId: 7,
        orderId: "o-1",
        payload: invoice.payload,
      },
    });
    if (r.ok)
      expect(r.update.invoice).toMatchObject({ amountKopecks: 1050, raw: { some_future_field: { x: 1 } } });
  });

  it("calls broken bodies malformed and other update types unsupported", () => {
    expect(parseCryptoPayUpdate(Buffer.from("{nope"))).toMatchObject({ ok: false, kind: "malformed" });
    expect(parseCryptoPayUpdate({ update_type: "invoice_paid" })).toMatchObject({
      ok: false,
      kind: "malformed",
    });
    expect(
      parseCryptoPayUpdate({ update_id: 1, update_type: "invoice_paid", payload: { invoice_id: "x" } }),
    ).toMatchObject({ ok: false, kind: "malformed" });
    expect(parseCryptoPayUpdate({ update_id: 1, update_type: "check_activated", payload: {} })).toMatchObject(
      {
        ok: false,
        kind: "unsupported",
      },
    );
  });

  it("gives no order id for an invoice whose payload this bot did not write", () => {
    const r = parseCryptoPayUpdate({
      update_id: 1,
      update_type: "invoice_paid",
      payload: { ...invoice, payload: "order:o-1" },
    });
    expect(r.ok && r.update.orderId).toBeNull();
  });
});

describe("kopecks and Crypto Pay amounts", () => {
  it("formats kopecks exactly", () => {
    expect([1, 10, 100, 12345, 100000000].map(kopecksToAmount)).toEqual([
      "0.01",
      "0.10",
      "1.00",
      "123.45",
      "1000000.00",
    ]);
    for (const bad of [0, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => kopecksToAmount(bad)).toThrow(RangeError);
    }
  });

  it("reads amounts back exactly and refuses what is not whole kopecks", () => {
    expect(["0.01", "0.1", "1", "123.45", "123.450000", "0.29"].map((a) => amountToKopecks(a))).toEqual([
      1, 10, 100, 12345, 12345, 29,
    ]);
    expect(["", "1.001", "-1", "1e3", "abc", "1.2.3"].map((a) => amountToKopecks(a))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
