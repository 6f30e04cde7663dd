import { afterEach, describe, expect, it } from "vitest";
import {
  createYooKassaClient,
  YooKassaApiError,
  type YooKassaClient,
} from "../../../src/payments/yookassa/index.js";
import { type StubAction, type StubServer, startStub } from "../../reseller/stub-server.js";

/** Answers the sandbox does not give: YooKassa's shapes with extra fields, and broken ones. */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function setup(
  respond: (index: number) => StubAction,
): Promise<{ stub: StubServer; yk: YooKassaClient }> {
  const stub = await startStub((_req, i) => respond(i));
  const yk = createYooKassaClient({
    apiUrl: `${stub.url}/v3`,
    shopId: "1",
    secretKey: "stub-secret",
    retryBaseDelayMs: 1,
  });
  open.push(stub, yk);
  return { stub, yk };
}

const payment = {
  id: "2f5a1b3c-000f-5000-8000-1a2b3c4d5e6f",
  status: "pending",
  paid: false,
  amount: { value: "150.00", currency: "RUB" },
  confirmation: { type: "redirect", confirmation_url: "https://yoomoney.ru/checkout/x", enforce: false },
  created_at: "2026-01-01T00:00:00.000Z",
  description: "Order o-1",
  metadata: { order_id: "o-1", cms_name: "shop", nested: { ignored: true } },
  recipient: { account_id: "1", gateway_id: "2" },
  refundable: false,
  test: false,
  some_future_field: [1, 2, 3],
};

const input = {
  amountKopecks: 15_000,
  description: "Order o-1",
  orderId: "o-1",
  returnUrl: "https://t.me/bot",
  idempotenceKey: "pay:o-1",
};

describe("YooKassa client response handling", () => {
  it("reads a payment with fields it does not know, and sends Basic auth and the Idempotence-Key", async () => {
    const { stub, yk } = await setup(() => ({ status: 200, body: payment }));
    const p = await yk.createPayment(input);
    expect(p).toMatchObject({
      id: payment.id,
      status: "pending",
      amountKopecks: 15_000,
      confirmationUrl: "https://yoomoney.ru/checkout/x",
      metadata: { order_id: "o-1", cms_name: "shop" },
      orderId: "o-1",
    });
    const req = stub.requests[0]!;
    expect(req.url).toBe("/v3/payments");
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from("1:stub-secret").toString("base64")}`);
    expect(req.headers["idempotence-key"]).toBe("pay:o-1");
  });

  it("refuses a payment made for another order or amount under the same key, without retrying", async () => {
    const { stub, yk } = await setup(() => ({
      status: 200,
      body: { ...payment, metadata: { order_id: "o-2" } },
    }));
    const err = await yk.createPayment(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(YooKassaApiError);
    expect(err).toMatchObject({ kind: "bad_response", transient: false });
    expect((err as Error).message).toMatch(/order o-2/);
    expect(stub.requests).toHaveLength(1);
  });

  it("calls an unknown status, a float-like amount or a non-JSON body a bad response", async () => {
    const bodies: StubAction[] = [
      { status: 200, body: { ...payment, status: "authorized" } },
      { status: 200, body: { ...payment, amount: { value: "150.001", currency: "RUB" } } },
      { status: 200, raw: "<html>proxy</html>" },
    ];
    for (const answer of bodies) {
      const { yk } = await setup(() => answer);
      await expect(yk.getPayment(payment.id)).rejects.toMatchObject({ kind: "bad_response" });
    }
  });

  it("names YooKassa's error code, parameter and error id on a 400", async () => {
    const { yk } = await setup(() => ({
      status: 400,
      body: {
        type: "error",
        id: "ab1c-0001",
        code: "invalid_request",
        description: "Value of amount.value is incorrect",
        parameter: "amount.value",
      },
    }));
    const err = (await yk.createPayment(input).catch((e: unknown) => e)) as YooKassaApiError;
    expect(err).toMatchObject({
      kind: "invalid_request",
      code: "invalid_request",
      parameter: "amount.value",
      errorId: "ab1c-0001",
      transient: false,
    });
    expect(err.message).toContain("Value of amount.value is incorrect [parameter: amount.value]");
  });

  it("maps 403 to a permanent forbidden error and a dropped connection to a transient network error", async () => {
    const { yk } = await setup(() => ({ status: 403, body: { type: "error", code: "forbidden" } }));
    await expect(yk.getPayment(payment.id)).rejects.toMatchObject({ kind: "forbidden", transient: false });
    const { stub, yk: yk2 } = await setup(() => "reset");
    await expect(yk2.getPayment(payment.id)).rejects.toMatchObject({ kind: "network", transient: true });
    expect(stub.requests).toHaveLength(4);
  });
});
