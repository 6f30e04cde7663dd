import { describe, expect, it } from "vitest";
import {
  fitIdempotenceKey,
  formatKopecks,
  idempotenceKeyFor,
  parseKopecks,
  parseNotification,
} from "../../../src/payments/yookassa/index.js";

describe("YooKassa amounts", () => {
  it("writes kopecks as a rouble string with two places", () => {
    expect(formatKopecks(1)).toBe("0.01");
    expect(formatKopecks(10)).toBe("0.10");
    expect(formatKopecks(100)).toBe("1.00");
    expect(formatKopecks(12345)).toBe("123.45");
    expect(formatKopecks(0)).toBe("0.00");
    expect(formatKopecks(1_000_000_07)).toBe("1000000.07");
  });

  it("refuses fractional, negative and unsafe kopecks", () => {
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => formatKopecks(bad)).toThrow(RangeError);
    }
  });

  it("reads rouble strings back into exact kopecks", () => {
    expect(parseKopecks("0.01")).toBe(1);
    expect(parseKopecks("0.10")).toBe(10);
    expect(parseKopecks("1.00")).toBe(100);
    expect(parseKopecks("123.45")).toBe(12345);
    expect(parseKopecks("5")).toBe(500);
    expect(parseKopecks("5.5")).toBe(550);
    // 0.29 * 100 is 28.999999999999996 in floating point; string arithmetic gets 29.
    expect(parseKopecks("0.29")).toBe(29);
    for (const bad of ["", "1.234", "-1.00", "1e3", "1,00", "abc", ".5"])
      expect(parseKopecks(bad)).toBeNull();
  });

  it("round-trips every amount from 0 to 100 000 kopecks", () => {
    const wrong: number[] = [];
    for (let k = 0; k <= 100_000; k++) if (parseKopecks(formatKopecks(k)) !== k) wrong.push(k);
    expect(wrong).toEqual([]);
  });
});

describe("YooKassa idempotence keys", () => {
  const orderId = "3f1c9a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60";

  it("derives a stable key per order and purpose", () => {
    expect(idempotenceKeyFor("pay", orderId)).toBe(`pay:${orderId}`);
    expect(idempotenceKeyFor("refund", orderId)).toBe(`refund:${orderId}`);
    expect(idempotenceKeyFor("refund", orderId, 2)).toBe(`refund:${orderId}:2`);
    expect(idempotenceKeyFor("pay", orderId)).toBe(idempotenceKeyFor("pay", orderId));
  });

  it("keeps long keys within 64 characters, still stable and distinct", () => {
    const long = "x".repeat(100);
    const a = idempotenceKeyFor("refund", long, "second");
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).toBe(idempotenceKeyFor("refund", long, "second"));
    expect(a).not.toBe(idempotenceKeyFor("refund", `${long}y`, "second"));
    expect(a.startsWith("refund:")).toBe(true);
  });

  it("fits a longer key made elsewhere into 64 characters, keeping keys distinct past the 64th", () => {
    expect(fitIdempotenceKey(`refund:${orderId}`)).toBe(`refund:${orderId}`);
    const a = `xrefund:${orderId}:yookassa:2419a771-000f-5000-9000-1edaf29243f2`;
    const b = `xrefund:${orderId}:yookassa:2419a771-000f-5000-9000-1edaf29243f3`;
    expect(fitIdempotenceKey(a)).toHaveLength(64);
    expect(fitIdempotenceKey(a)).toMatch(/^[\x21-\x7e]+$/);
    expect(fitIdempotenceKey(a)).toBe(fitIdempotenceKey(a));
    expect(fitIdempotenceKey(a)).not.toBe(fitIdempotenceKey(b));
    expect(fitIdempotenceKey(a).startsWith(`xrefund:${orderId.slice(0, 8)}`)).toBe(true);
  });

  it("refuses an empty order id and a purpose that is not a plain word", () => {
    expect(() => idempotenceKeyFor("pay", "")).toThrow(/order id/);
    expect(() => idempotenceKeyFor("pay me", orderId)).toThrow(/plain word/);
  });
});

describe("YooKassa notifications", () => {
  const payment = {
    id: "2f5a1b3c-000f-5000-8000-1a2b3c4d5e6f",
    status: "succeeded",
    paid: true,
    amount: { value: "150.00", currency: "RUB" },
    metadata: { order_id: "o-1" },
    created_at: "2026-01-01T00:00:00.000Z",
  };

  it("reads payment events into a hint naming the payment", () => {
    for (const event of ["payment.succeeded", "payment.canceled", "payment.waiting_for_capture"]) {
      const raw = JSON.stringify({ type: "notification", event, object: { ...payment, extra: { x: 1 } } });
      expect(parseNotification(raw)).toEqual({ kind: "hint", event, paymentId: payment.id, refundId: null });
      expect(parseNotification(Buffer.from(raw))).toEqual({
        kind: "hint",
        event,
        paymentId: payment.id,
        refundId: null,
      });
    }
  });

  it("reads a refund event into a hint naming the refund's payment", () => {
    const body = {
      type: "notification",
      event: "refund.succeeded",
      object: {
        id: "r-1",
        payment_id: payment.id,
        status: "succeeded",
        amount: { value: "1.00", currency: "RUB" },
      },
    };
    expect(parseNotification(body)).toEqual({
      kind: "hint",
      event: "refund.succeeded",
      paymentId: payment.id,
      refundId: "r-1",
    });
  });

  it("ignores well-formed events the shop does not handle", () => {
    const body = { type: "notification", event: "payout.succeeded", object: { id: "po-1" } };
    expect(parseNotification(body)).toEqual({ kind: "ignored", event: "payout.succeeded" });
  });

  it("calls malformed bodies malformed, with a reason", () => {
    const cases: unknown[] = [
      "{not json",
      "",
      "null",
      "[]",
      { event: "payment.succeeded", object: payment },
      { type: "error", event: "payment.succeeded", object: payment },
      { type: "notification", object: payment },
      { type: "notification", event: "payment.succeeded" },
      { type: "notification", event: "payment.succeeded", object: { status: "succeeded" } },
      { type: "notification", event: "payment.succeeded", object: { id: "" } },
      { type: "notification", event: "refund.succeeded", object: { id: "r-1" } },
    ];
    for (const body of cases) {
      const hint = parseNotification(body);
      expect(hint.kind, JSON.stringify(body)).toBe("malformed");
      if (hint.kind === "malformed") expect(hint.reason.length).toBeGreaterThan(0);
    }
  });
});
