import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startYooKassaSandbox, type YooKassaSandbox } from "../../../sandbox/yookassa/server.js";
import {
  type CreatePaymentInput,
  createYooKassaClient,
  idempotenceKeyFor,
  parseNotification,
  YooKassaApiError,
  type YooKassaClient,
  YooKassaValidationError,
} from "../../../src/payments/yookassa/index.js";

const SHOP_ID = "506751";
const SECRET = "test_SECRET_kQ9wZr7XbLmT2vYp";
const logLines: string[] = [];
const logger = pino(
  { level: "trace" },
  new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  }),
);

/** A notification receiver standing in for POST /webhooks/yookassa. */
const received: string[] = [];
let receiver: http.Server;
let receiverUrl: string;
let sandbox: YooKassaSandbox;
let client: YooKassaClient;
let counter = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/yookassa`;
  sandbox = await startYooKassaSandbox({
    shopId: SHOP_ID,
    secretKey: SECRET,
    notificationUrl: receiverUrl,
    notificationRetryDelayMs: 20,
  });
  client = createYooKassaClient({
    apiUrl: sandbox.apiUrl,
    shopId: SHOP_ID,
    secretKey: SECRET,
    logger,
    retryBaseDelayMs: 10,
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
  });
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

beforeEach(() => {
  sandbox.clearFaults();
  sandbox.setAuthFailure(false);
  sandbox.setNotifications("send");
});

afterEach(() => {
  // No log line, at any level, ever carries the secret key or the Authorization header.
  const auth = Buffer.from(`${SHOP_ID}:${SECRET}`).toString("base64");
  for (const line of logLines) {
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(auth);
  }
});

const order = (amountKopecks = 15_000): CreatePaymentInput => {
  const orderId = `order-${process.pid}-${++counter}`;
  return {
    amountKopecks,
    description: `Order ${orderId}: 100 Telegram Stars`,
    orderId,
    returnUrl: "https://t.me/sample_shop_bot",
    idempotenceKey: idempotenceKeyFor("pay", orderId),
  };
};

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

async function waitFor<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a customer does on the payment page: open it, press a button. */
async function pressOnPage(confirmationUrl: string, action: "pay" | "cancel") {
  const page = await fetch(confirmationUrl);
  const html = await page.text();
  expect(page.status).toBe(200);
  expect(html).toContain(`value="${action}"`);
  const form = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  expect(form).toBeDefined();
  const res = await fetch(new URL(form!, confirmationUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `action=${action}`,
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res;
}

const notificationsFor = (paymentId: string) =>
  received
    .map((raw) => ({ raw, hint: parseNotification(raw) }))
    .filter((n) => n.hint.kind === "hint" && n.hint.paymentId === paymentId);

describe("YooKassa client against the sandbox", () => {
  it("creates a pending payment with a confirmation URL, amount in exact kopecks and the order in metadata", async () => {
    const input = order(12_345);
    const p = await client.createPayment(input);
    expect(p).toMatchObject({
      status: "pending",
      paid: false,
      amountKopecks: 12_345,
      currency: "RUB",
      refundedKopecks: 0,
      orderId: input.orderId,
      description: input.description,
      test: true,
    });
    expect(p.confirmationUrl).toBe(`${sandbox.url}/pay/${p.id}`);
    const sent = sandbox.requests().find((r) => r.idempotenceKey === input.idempotenceKey);
    expect(sent?.body).toEqual({
      amount: { value: "123.45", currency: "RUB" },
      capture: true,
      confirmation: { type: "redirect", return_url: "https://t.me/sample_shop_bot" },
      description: input.description,
      metadata: { order_id: input.orderId },
    });
  });

  it("takes a payment made on the payment page: succeeded on re-read, and a notification that names it", async () => {
    const p = await client.createPayment(order());
    const res = await pressOnPage(p.confirmationUrl!, "pay");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("https://t.me/sample_shop_bot");

    const note = await waitFor(() => notificationsFor(p.id)[0]);
    expect(note.hint).toEqual({ kind: "hint", event: "payment.succeeded", paymentId: p.id, refundId: null });
    const fresh = await client.getPayment(p.id);
    expect(fresh).toMatchObject({ id: p.id, status: "succeeded", paid: true, amountKopecks: 15_000 });
    expect(fresh.confirmationUrl).toBeNull();
  });

  it("sees a payment cancelled on the page as canceled, with the reason", async () => {
    const p = await client.createPayment(order());
    expect((await pressOnPage(p.confirmationUrl!, "cancel")).status).toBe(303);
    const note = await waitFor(() => notificationsFor(p.id)[0]);
    expect(note.hint).toMatchObject({ event: "payment.canceled" });
    const fresh = await client.getPayment(p.id);
    expect(fresh).toMatchObject({ status: "canceled", paid: false });
    expect(fresh.cancellation).toEqual({ party: "yoo_money", reason: "expired_on_confirmation" });
  });

  it("finds a payment whose notification was lost by re-reading it", async () => {
    sandbox.setNotifications("drop");
    const p = await client.createPayment(order());
    sandbox.succeedPayment(p.id);
    await new Promise((r) => setTimeout(r, 50));
    expect(notificationsFor(p.id)).toEqual([]);
    expect(sandbox.notificationsSent().filter((n) => n.paymentId === p.id)).toEqual([]);
    expect((await client.getPayment(p.id)).status).toBe("succeeded");
  });

  it("makes one payment when the same Idempotence-Key is sent twice (double tap)", async () => {
    const input = order();
    const [a, b] = await Promise.all([client.createPayment(input), client.createPayment(input)]);
    const c = await client.createPayment(input);
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    expect(sandbox.keyStats(input.idempotenceKey)).toEqual({ requests: 3, created: 1 });
    expect(sandbox.payments().filter((p) => p.metadata.order_id === input.orderId)).toHaveLength(1);
  });

  it("retries a 500 with the same Idempotence-Key and makes one payment", async () => {
    const input = order();
    sandbox.fail("POST /v3/payments", "500");
    const p = await client.createPayment(input);
    const tries = sandbox.requests().filter((r) => r.idempotenceKey === input.idempotenceKey);
    expect(tries.map((r) => r.status)).toEqual([500, 200]);
    expect(sandbox.keyStats(input.idempotenceKey)).toEqual({ requests: 2, created: 1 });
    expect(
      sandbox
        .payments()
        .filter((x) => x.metadata.order_id === input.orderId)
        .map((x) => x.id),
    ).toEqual([p.id]);
  });

  it("makes one payment when the answer to a processed create is lost and the client retries", async () => {
    const input = order();
    sandbox.fail("POST /v3/payments", "lose_response");
    const p = await client.createPayment(input);
    expect(sandbox.keyStats(input.idempotenceKey)).toEqual({ requests: 2, created: 1 });
    expect(
      sandbox
        .payments()
        .filter((x) => x.metadata.order_id === input.orderId)
        .map((x) => x.id),
    ).toEqual([p.id]);
  });

  it("retries 429 and a hanging request, then succeeds", async () => {
    sandbox.fail("GET /v3/payments/*", "429");
    sandbox.fail("GET /v3/payments/*", "hang");
    const p = await client.createPayment(order());
    expect((await client.getPayment(p.id)).id).toBe(p.id);
    const reads = sandbox.requests().filter((r) => r.path === `/v3/payments/${p.id}`);
    expect(reads.map((r) => r.status)).toEqual([429, 0, 200]);
  });

  it("repeats a request YooKassa answered 202 processing, with the same key", async () => {
    const input = order();
    const p = await client.createPayment(input);
    sandbox.succeedPayment(p.id);
    const key = idempotenceKeyFor("refund", input.orderId);
    sandbox.fail("POST /v3/refunds", "202");
    const r = await client.createRefund({ paymentId: p.id, amountKopecks: 15_000, idempotenceKey: key });
    expect(r.status).toBe("succeeded");
    const tries = sandbox.requests().filter((x) => x.idempotenceKey === key);
    expect(tries.map((x) => x.status)).toEqual([202, 200]);
    expect(sandbox.keyStats(key)).toEqual({ requests: 2, created: 1 });
  });

  it("gives up on a server that keeps failing with a transient error that names the endpoint", async () => {
    const input = order();
    sandbox.fail("POST /v3/payments", "500", Infinity);
    const err = await failure(client.createPayment(input));
    expect(err).toBeInstanceOf(YooKassaApiError);
    const e = err as YooKassaApiError;
    expect(e).toMatchObject({ kind: "server", status: 500, code: "internal_server_error", transient: true });
    expect(e.message).toMatch(/same Idempotence-Key/);
    expect(sandbox.keyStats(input.idempotenceKey)).toEqual({ requests: 4, created: 0 });
  });

  it("answers bad credentials with a permanent auth error that does not carry the secret", async () => {
    const bad = createYooKassaClient({ apiUrl: sandbox.apiUrl, shopId: SHOP_ID, secretKey: "wrong-secret" });
    try {
      const err = await failure(bad.getPayment("any-id"));
      expect(err).toBeInstanceOf(YooKassaApiError);
      expect(err).toMatchObject({ kind: "auth", status: 401, code: "invalid_credentials", transient: false });
      expect((err as Error).message).toMatch(/YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY/);
    } finally {
      await bad.close();
    }
    sandbox.setAuthFailure(true);
    const err = await failure(client.createPayment(order()));
    expect(err).toMatchObject({ kind: "auth", transient: false });
    expect((err as Error).message).not.toContain(SECRET);
    expect(JSON.stringify((err as YooKassaApiError).body)).not.toContain(SECRET);
  });

  it("answers an unknown payment with a permanent not_found error", async () => {
    const err = await failure(client.getPayment("00000000-0000-0000-0000-000000000000"));
    expect(err).toMatchObject({ kind: "not_found", status: 404, transient: false });
  });

  it("refuses the same Idempotence-Key with a different request, naming the parameter", async () => {
    const input = order();
    await client.createPayment(input);
    const err = await failure(client.createPayment({ ...input, amountKopecks: input.amountKopecks + 1 }));
    expect(err).toMatchObject({
      kind: "invalid_request",
      status: 400,
      code: "invalid_request",
      parameter: "Idempotence-Key",
      transient: false,
    });
    expect(sandbox.keyStats(input.idempotenceKey).created).toBe(1);
  });

  it("refuses bad input before sending anything", async () => {
    const before = sandbox.requests().length;
    const err = await failure(
      client.createPayment({
        ...order(),
        amountKopecks: 150.5,
        description: "",
        idempotenceKey: "k".repeat(65),
      }),
    );
    expect(err).toBeInstanceOf(YooKassaValidationError);
    expect((err as YooKassaValidationError).issues.map((i) => i.field)).toEqual([
      "amountKopecks",
      "idempotenceKey",
      "description",
    ]);
    await expect(client.getPayment("../refunds")).rejects.toBeInstanceOf(YooKassaValidationError);
    expect(sandbox.requests().length).toBe(before);
  });

  it("refunds a payment in full, once per Idempotence-Key", async () => {
    const input = order(15_000);
    const p = await client.createPayment(input);
    sandbox.succeedPayment(p.id);
    const refundKey = idempotenceKeyFor("refund", input.orderId);
    const r = await client.createRefund({
      paymentId: p.id,
      amountKopecks: 15_000,
      idempotenceKey: refundKey,
    });
    expect(r).toMatchObject({ paymentId: p.id, status: "succeeded", amountKopecks: 15_000, currency: "RUB" });
    const again = await client.createRefund({
      paymentId: p.id,
      amountKopecks: 15_000,
      idempotenceKey: refundKey,
    });
    expect(again.id).toBe(r.id);
    expect(sandbox.refunds().filter((x) => x.paymentId === p.id)).toHaveLength(1);
    expect((await client.getPayment(p.id)).refundedKopecks).toBe(15_000);
    const note = await waitFor(() =>
      notificationsFor(p.id).find((n) => n.hint.kind === "hint" && n.hint.refundId),
    );
    expect(note.hint).toEqual({ kind: "hint", event: "refund.succeeded", paymentId: p.id, refundId: r.id });
  });

  it("refunds part of a payment, then refuses a refund above what is left", async () => {
    const input = order(10_000);
    const p = await client.createPayment(input);
    sandbox.succeedPayment(p.id);
    await client.createRefund({
      paymentId: p.id,
      amountKopecks: 2_550,
      idempotenceKey: idempotenceKeyFor("refund", input.orderId, 1),
      description: "Part of the order failed",
    });
    expect((await client.getPayment(p.id)).refundedKopecks).toBe(2_550);
    const err = await failure(
      client.createRefund({
        paymentId: p.id,
        amountKopecks: 7_451,
        idempotenceKey: idempotenceKeyFor("refund", input.orderId, 2),
      }),
    );
    expect(err).toMatchObject({
      kind: "invalid_request",
      status: 400,
      parameter: "amount.value",
      transient: false,
    });
    expect((err as Error).message).toMatch(/74\.50 RUB/);
    const rest = await client.createRefund({
      paymentId: p.id,
      amountKopecks: 7_450,
      idempotenceKey: idempotenceKeyFor("refund", input.orderId, 3),
    });
    expect(rest.amountKopecks).toBe(7_450);
    expect((await client.getPayment(p.id)).refundedKopecks).toBe(10_000);
  });

  it("refuses to refund a payment that is not paid", async () => {
    const input = order();
    const p = await client.createPayment(input);
    const err = await failure(
      client.createRefund({
        paymentId: p.id,
        amountKopecks: 100,
        idempotenceKey: idempotenceKeyFor("refund", input.orderId),
      }),
    );
    expect(err).toMatchObject({ kind: "invalid_request", parameter: "payment_id" });
    expect(sandbox.refunds().filter((x) => x.paymentId === p.id)).toEqual([]);
  });
});
