import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signBody } from "../../src/http/signature.js";
import {
  type EngineHarness,
  newOrderId,
  quotePaidStars,
  startEngineHarness,
  WEBHOOK_SECRET,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

describe("POST /webhooks/reseller", () => {
  let h: EngineHarness;
  let orderId: string;

  beforeAll(async () => {
    h = await startEngineHarness();
    h.sandbox.pauseDelivery(true);
    orderId = (await quotePaidStars(h.engine, "wh-charge-1")).id;
    await eventually(async () => (await h.engine.get(orderId))?.state === "pending", 5000, "pending");
  });
  afterAll(async () => {
    await h.close();
  });

  const body = () =>
    JSON.stringify({
      event: "delivered",
      custom_id: orderId,
      status: "delivered",
      product: "stars",
      recipient: "durov_fan",
      quantity: 50,
      delivered_payload: { tx_hash: "0xforged" },
      error_message: null,
      completed_at: "2026-11-22T03:00:00",
    });

  const post = (raw: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${h.http.url}/webhooks/reseller`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: raw,
    });

  async function expectUnchanged() {
    await new Promise((r) => setTimeout(r, 300));
    const order = await h.engine.get(orderId);
    expect(order?.state).toBe("pending");
    expect(h.notifier.finalsFor(orderId)).toHaveLength(0);
  }

  it("answers 401 and changes nothing when the signature is missing", async () => {
    expect((await post(body())).status).toBe(401);
    await expectUnchanged();
  });

  it("answers 401 and changes nothing when the signature is wrong", async () => {
    const res = await post(body(), { "x-signature": signBody("another-secret", body()) });
    expect(res.status).toBe(401);
    const malformedHeader = await post(body(), { "x-signature": "sha256=zz" });
    expect(malformedHeader.status).toBe(401);
    await expectUnchanged();
  });

  it("answers 401 for a body tampered with after signing", async () => {
    const signature = signBody(WEBHOOK_SECRET, body());
    const res = await post(body().replace("0xforged", "0xother"), { "x-signature": signature });
    expect(res.status).toBe(401);
    await expectUnchanged();
  });

  it("answers 413 for a body over 64 KiB", async () => {
    const big = JSON.stringify({ custom_id: orderId, pad: "x".repeat(70 * 1024) });
    const res = await post(big, { "x-signature": signBody(WEBHOOK_SECRET, big) });
    expect(res.status).toBe(413);
    await expectUnchanged();
  });

  it("answers 400 for malformed JSON with a good signature", async () => {
    const raw = "{not json";
    const res = await post(raw, { "x-signature": signBody(WEBHOOK_SECRET, raw) });
    expect(res.status).toBe(400);
    await expectUnchanged();
  });

  it("takes a signature written in upper-case hex", async () => {
    const raw = JSON.stringify({ custom_id: "00000000-0000-4000-8000-000000000000", event: "delivered" });
    const upper = `sha256=${signBody(WEBHOOK_SECRET, raw).slice("sha256=".length).toUpperCase()}`;
    expect((await post(raw, { "x-signature": upper })).status).toBe(200);
    expect((await post(raw, { "x-signature": upper.replace("sha256=", "SHA256=") })).status).toBe(401);
  });

  it("answers 200 to a signed, well-formed body that names no order, and changes nothing", async () => {
    for (const raw of ['{"event":"ping"}', "[]", "null", '{"custom_id":42}']) {
      const res = await post(raw, { "x-signature": signBody(WEBHOOK_SECRET, raw) });
      expect(res.status, raw).toBe(200);
    }
    await expectUnchanged();
  });

  it("answers 200 for an unknown custom_id and changes nothing", async () => {
    const raw = JSON.stringify({ custom_id: newOrderId(), status: "delivered" });
    const res = await post(raw, { "x-signature": signBody(WEBHOOK_SECRET, raw) });
    expect(res.status).toBe(200);
    await expectUnchanged();
  });

  it("does not deliver on a signed webhook the reseller has not confirmed", async () => {
    // The body claims "delivered" but GET /order still says pending: the body is only a hint.
    const res = await post(body(), { "x-signature": signBody(WEBHOOK_SECRET, body()) });
    expect(res.status).toBe(200);
    await expectUnchanged();
  });

  it("delivers once the reseller confirms, whatever the webhook body said", async () => {
    h.sandbox.pauseDelivery(false);
    const done = await eventually(
      async () => {
        const o = await h.engine.get(orderId);
        return o?.state === "delivered" ? o : null;
      },
      8000,
      "delivered",
    );
    expect(done.deliveredPayload?.tx_hash).not.toBe("0xforged");
    await eventually(() => h.notifier.finalsFor(orderId).length === 1, 5000, "final");
  });

  it("answers other methods and paths without touching orders", async () => {
    expect((await fetch(`${h.http.url}/webhooks/reseller`)).status).toBe(405);
    expect((await fetch(`${h.http.url}/nothing-here`)).status).toBe(404);
    expect((await fetch(`${h.http.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.http.url}/readyz`)).status).toBe(200);
  });
});
