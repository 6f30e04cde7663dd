import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  startYooKassaSandbox,
  type YooKassaSandbox,
  type YooKassaSandboxOptions,
} from "../../../sandbox/yookassa/server.js";

const SHOP_ID = "100500";
const SECRET = "test_sandbox_secret";
const AUTH = `Basic ${Buffer.from(`${SHOP_ID}:${SECRET}`).toString("base64")}`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function sandbox(opts: Partial<YooKassaSandboxOptions> = {}): Promise<YooKassaSandbox> {
  const sb = await startYooKassaSandbox({
    shopId: SHOP_ID,
    secretKey: SECRET,
    notificationRetryDelayMs: 20,
    ...opts,
  });
  open.push(sb);
  return sb;
}

/** A notification receiver answering the queued statuses first, then 200. */
async function receiver(statuses: number[] = []) {
  const got: Record<string, unknown>[] = [];
  const queue = [...statuses];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      res.writeHead(queue.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  open.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

async function call(
  sb: YooKassaSandbox,
  method: string,
  path: string,
  body?: unknown,
  init: { auth?: string | null; key?: string | null; raw?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const auth = init.auth === undefined ? AUTH : init.auth;
  if (auth !== null) headers.authorization = auth;
  if (init.key) headers["idempotence-key"] = init.key;
  const res = await fetch(sb.url + path, {
    method,
    headers,
    body: init.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const paymentBody = (value = "150.00") => ({
  amount: { value, currency: "RUB" },
  capture: true,
  confirmation: { type: "redirect", return_url: "https://t.me/sample_shop_bot" },
  description: "Order 1",
  metadata: { order_id: "o-1" },
});

async function waitFor<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("YooKassa sandbox API", () => {
  it("answers 401 invalid_credentials in YooKassa's error shape without Basic auth or with a wrong key", async () => {
    const sb = await sandbox();
    const wrong = `Basic ${Buffer.from(`${SHOP_ID}:nope`).toString("base64")}`;
    for (const auth of [null, wrong, `Bearer ${SECRET}`]) {
      const res = await call(sb, "POST", "/v3/payments", paymentBody(), { auth, key: "k-1" });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: "error", code: "invalid_credentials" });
      expect(typeof res.body.id).toBe("string");
    }
    expect(sb.payments()).toEqual([]);
  });

  it("requires an Idempotence-Key of at most 64 characters on POST", async () => {
    const sb = await sandbox();
    const none = await call(sb, "POST", "/v3/payments", paymentBody());
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ type: "error", code: "invalid_request", parameter: "Idempotence-Key" });
    const long = await call(sb, "POST", "/v3/payments", paymentBody(), { key: "k".repeat(65) });
    expect(long.status).toBe(400);
    expect(sb.payments()).toEqual([]);
  });

  it("answers a repeated key and body (keys in any order) with the first answer, and a changed body with 400", async () => {
    const sb = await sandbox();
    const first = await call(sb, "POST", "/v3/payments", paymentBody(), { key: "k-2" });
    expect(first.status).toBe(200);
    const { metadata, description, confirmation, capture, amount } = paymentBody();
    const reordered = { metadata, description, confirmation, capture, amount };
    const again = await call(sb, "POST", "/v3/payments", reordered, { key: "k-2" });
    expect(again).toEqual(first);
    const changed = await call(sb, "POST", "/v3/payments", paymentBody("151.00"), { key: "k-2" });
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ code: "invalid_request", parameter: "Idempotence-Key" });
    expect(sb.payments()).toHaveLength(1);
    expect(sb.keyStats("k-2")).toEqual({ requests: 3, created: 1 });
  });

  it("does not spend a key on a request it refused, so the fixed request may reuse it", async () => {
    const sb = await sandbox();
    for (const value of ["0.00", "1.234", "-5.00", "1e3"]) {
      const res = await call(sb, "POST", "/v3/payments", paymentBody(value), { key: "k-3" });
      expect(res.status, value).toBe(400);
      expect(res.body).toMatchObject({ parameter: "amount.value" });
    }
    const ok = await call(sb, "POST", "/v3/payments", paymentBody(), { key: "k-3" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: "pending",
      paid: false,
      amount: { value: "150.00", currency: "RUB" },
    });
  });

  it("refuses bad JSON, unknown routes and wrong methods in YooKassa's error shape", async () => {
    const sb = await sandbox();
    expect(
      (await call(sb, "POST", "/v3/payments", undefined, { key: "k-4", raw: "{oops" })).body,
    ).toMatchObject({
      type: "error",
      code: "invalid_request",
    });
    expect((await call(sb, "GET", "/v3/nothing")).status).toBe(404);
    expect((await call(sb, "GET", "/v3/payments")).status).toBe(405);
    expect((await call(sb, "GET", "/v3/payments/unknown")).body).toMatchObject({ code: "not_found" });
  });

  it("reads refunds back and keeps refunded_amount on the payment", async () => {
    const sb = await sandbox();
    const p = (await call(sb, "POST", "/v3/payments", paymentBody("10.00"), { key: "k-5" })).body;
    sb.succeedPayment(String(p.id));
    const r = await call(
      sb,
      "POST",
      "/v3/refunds",
      { payment_id: p.id, amount: { value: "4.00", currency: "RUB" } },
      { key: "r-5" },
    );
    expect(r.status).toBe(200);
    expect((await call(sb, "GET", `/v3/refunds/${r.body.id}`)).body).toEqual(r.body);
    const paid = (await call(sb, "GET", `/v3/payments/${p.id}`)).body;
    expect(paid).toMatchObject({
      status: "succeeded",
      paid: true,
      refunded_amount: { value: "4.00", currency: "RUB" },
      refundable: true,
    });
  });
});

describe("YooKassa sandbox payment page and notifications", () => {
  it("shows the amount and escaped description, pays once however often Pay is pressed", async () => {
    const rec = await receiver();
    const sb = await sandbox({ notificationUrl: rec.url });
    const body = { ...paymentBody("99.90"), description: "<b>Stars</b> & more" };
    const p = (await call(sb, "POST", "/v3/payments", body, { key: "k-6" })).body;
    const url = (p.confirmation as { confirmation_url: string }).confirmation_url;
    const html = await (await fetch(url)).text();
    expect(html).toContain("99.90 ₽");
    expect(html).toContain("&lt;b&gt;Stars&lt;/b&gt; &amp; more");
    for (let i = 0; i < 2; i++) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "action=pay",
        redirect: "manual",
      });
      expect(res.status).toBe(303);
    }
    await waitFor(() => rec.got[0]);
    await new Promise((r) => setTimeout(r, 50));
    expect(rec.got.map((n) => [n.type, n.event])).toEqual([["notification", "payment.succeeded"]]);
    expect(rec.got[0]!.object).toMatchObject({
      id: p.id,
      status: "succeeded",
      paid: true,
      metadata: { order_id: "o-1" },
    });
    expect(await (await fetch(url)).text()).toContain("This payment is succeeded");
    expect((await fetch(`${sb.url}/pay/unknown`)).status).toBe(404);
  });

  it("holds a payment made with capture: false as waiting_for_capture", async () => {
    const rec = await receiver();
    const sb = await sandbox({ notificationUrl: rec.url });
    const p = (await call(sb, "POST", "/v3/payments", { ...paymentBody(), capture: false }, { key: "k-7" }))
      .body;
    sb.succeedPayment(String(p.id));
    await waitFor(() => rec.got[0]);
    expect(rec.got[0]).toMatchObject({
      event: "payment.waiting_for_capture",
      object: { status: "waiting_for_capture" },
    });
  });

  it("repeats a notification the receiver did not accept, and sends none while dropping", async () => {
    const rec = await receiver([500, 503]);
    const sb = await sandbox({ notificationUrl: rec.url });
    const a = (await call(sb, "POST", "/v3/payments", paymentBody(), { key: "k-8" })).body;
    sb.cancelPayment(String(a.id));
    await waitFor(() => sb.notificationsSent().find((n) => n.status === 200));
    expect(sb.notificationsSent().map((n) => [n.event, n.attempt, n.status])).toEqual([
      ["payment.canceled", 1, 500],
      ["payment.canceled", 2, 503],
      ["payment.canceled", 3, 200],
    ]);
    sb.setNotifications("drop");
    const b = (await call(sb, "POST", "/v3/payments", paymentBody(), { key: "k-9" })).body;
    sb.succeedPayment(String(b.id));
    await new Promise((r) => setTimeout(r, 50));
    expect(sb.notificationsSent()).toHaveLength(3);
    expect(sb.payment(String(b.id))?.status).toBe("succeeded");
    expect(() => sb.succeedPayment(String(b.id))).toThrow(/not pending/);
  });
});
