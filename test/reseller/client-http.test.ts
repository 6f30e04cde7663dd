import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createResellerClient, type ResellerClientOptions } from "../../src/reseller/client.js";
import { ResellerApiError, ResellerValidationError } from "../../src/reseller/errors.js";
import { parseRetryAfter } from "../../src/reseller/retry.js";
import type { ResellerClient } from "../../src/reseller/types.js";
import { type StubAction, type StubRequest, type StubServer, startStub } from "./stub-server.js";

const API_KEY = "sk_live_http_TEST_key_7f3a9c";
const ORDER = { custom_id: "c-1", product: "stars", recipient_username: "durov", quantity: 50 } as const;

let stub: StubServer | undefined;
let client: ResellerClient | undefined;

afterEach(async () => {
  await client?.close();
  await stub?.close();
  client = undefined;
  stub = undefined;
});

async function setup(
  respond: (req: StubRequest, index: number) => StubAction,
  opts: Partial<ResellerClientOptions> & { path?: string } = {},
) {
  stub = await startStub(respond);
  client = createResellerClient({
    baseUrl: stub.url + (opts.path ?? ""),
    apiKey: API_KEY,
    retryBaseDelayMs: 5,
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    ...opts,
  });
  return { stub, client };
}

async function failure(p: Promise<unknown>): Promise<ResellerApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ResellerApiError);
    return err as ResellerApiError;
  }
  throw new Error("expected the call to fail");
}

const created = {
  status: 200,
  body: { success: true, custom_id: "c-1", status: "created", total_to_pay_rub: 67.5 },
};

describe("reseller client over HTTP", () => {
  it("appends the spec paths to a base URL with a path prefix and sends the key as a Bearer header", async () => {
    const { stub, client } = await setup(
      () => ({ status: 200, body: { success: true, balance_nano: 1, balance_rub: 2 } }),
      {
        path: "/proxy/v1/",
      },
    );
    expect(await client.balance()).toEqual({ balanceRub: 2, balanceNano: 1 });
    expect(stub.requests[0]!.url).toBe("/proxy/v1/api/reseller/balance");
    expect(stub.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("retries a create after a 500 with the same body, so the same custom_id", async () => {
    const { stub, client } = await setup((_r, i) =>
      i < 2 ? { status: 500, body: { error: "boom" } } : created,
    );
    const res = await client.createOrder(ORDER);
    expect(res).toMatchObject({ customId: "c-1", status: "created", totalToPayRub: 67.5 });
    expect(stub.requests).toHaveLength(3);
    expect(new Set(stub.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(ORDER)]));
  });

  it("retries after a hang hits the headers timeout and after a dropped connection", async () => {
    const { stub, client } = await setup((_r, i) => (i === 0 ? "hang" : i === 1 ? "reset" : created));
    await client.createOrder(ORDER);
    expect(stub.requests.map((r) => JSON.parse(r.body).custom_id)).toEqual(["c-1", "c-1", "c-1"]);
  });

  it("gives up after the configured retries with a server error naming the endpoint and attempts", async () => {
    const { stub, client } = await setup(
      () => ({ status: 503, body: { success: false, error: "maintenance" } }),
      {
        retries: 2,
      },
    );
    const err = await failure(client.getOrder("c-1"));
    expect(stub.requests).toHaveLength(3);
    expect(err).toMatchObject({
      kind: "server",
      status: 503,
      code: "maintenance",
      endpoint: "GET /api/reseller/order/{custom_id}",
    });
    expect(err.transient).toBe(true);
    expect(err.message).toContain("GET /api/reseller/order/c-1 after 3 attempts");
  });

  it("sends pay once whatever went wrong: its caller reads the order before paying again", async () => {
    const { stub, client } = await setup(() => ({ status: 503, body: { success: false } }), { retries: 2 });
    const err = await failure(client.payOrder("c-1"));
    expect(stub.requests).toHaveLength(1);
    expect(err).toMatchObject({ kind: "server", status: 503, endpoint: "POST /api/reseller/order/pay" });
    expect(err.transient).toBe(true);
  });

  it("reports a timeout kind when every attempt hangs", async () => {
    const { stub, client } = await setup(() => "hang", { retries: 1 });
    const err = await failure(client.getOrder("c-1"));
    expect(err).toMatchObject({
      kind: "timeout",
      status: null,
      endpoint: "GET /api/reseller/order/{custom_id}",
    });
    expect(err.message).toContain("headers timeout after 300 ms");
    expect(stub.requests).toHaveLength(2);
  });

  it("reports a network kind when the server cannot be reached", async () => {
    const { stub } = await setup(() => created);
    const url = stub.url;
    await stub.close();
    client = createResellerClient({ baseUrl: url, apiKey: API_KEY, retries: 1, retryBaseDelayMs: 1 });
    const err = await failure(client.balance());
    expect(err.kind).toBe("network");
    expect(err.message).toContain("check RESELLER_API_URL");
  });

  it("honours Retry-After on 429 and then succeeds", async () => {
    const { stub, client } = await setup((_r, i) =>
      i === 0 ? { status: 429, body: { error: "slow_down" }, headers: { "retry-after": "0" } } : created,
    );
    await client.createOrder(ORDER);
    expect(stub.requests).toHaveLength(2);
  });

  it("reports rate_limited when 429 persists", async () => {
    const { client } = await setup(() => ({ status: 429, headers: { "retry-after": "0" } }), { retries: 1 });
    expect((await failure(client.gifts())).kind).toBe("rate_limited");
  });

  it("parses Retry-After as seconds or an HTTP date and caps it at 30 s", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("3600", now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it("never retries a 4xx and maps statuses to kinds", async () => {
    const cases: [number, unknown, string][] = [
      [401, { error: "unauthorized" }, "auth"],
      [403, {}, "auth"],
      [402, { error: "insufficient_funds" }, "insufficient_funds"],
      [400, { message: "Insufficient balance" }, "insufficient_funds"],
      [404, { error: "order_not_found" }, "not_found"],
      [409, { error: "conflict" }, "bad_request"],
    ];
    for (const [status, body, kind] of cases) {
      const { stub, client } = await setup(() => ({ status, body }));
      const err = await failure(client.payOrder("c-1"));
      expect(err.kind).toBe(kind);
      expect(err.status).toBe(status);
      expect(err.transient).toBe(false);
      expect(stub.requests).toHaveLength(1);
      await client.close();
      await stub.close();
    }
    client = undefined;
    stub = undefined;
  });

  it("takes a 403 whose body says the deposit ran short for insufficient funds, not a bad key", async () => {
    const { client } = await setup((req) =>
      req.url.endsWith("/pay")
        ? {
            status: 403,
            body: { success: false, error: "insufficient_balance", message: "Insufficient balance" },
          }
        : { status: 403, body: { success: false, error: "forbidden", message: "Invalid API key" } },
    );
    expect(await failure(client.payOrder("c-1"))).toMatchObject({ kind: "insufficient_funds", status: 403 });
    expect(await failure(client.balance())).toMatchObject({ kind: "auth", status: 403 });
  });

  it("takes a refusal that says in Russian that the deposit ran short for insufficient funds", async () => {
    const refusals = [
      { success: false, error: "Недостаточно средств на балансе" },
      { success: false, message: "Не хватает денег для оплаты заказа" },
      { success: false, detail: "Баланс недостаточен" },
      { success: false, error: "Средств недостаточно" },
    ];
    const { client } = await setup((_req, i) =>
      i < refusals.length
        ? { status: 400, body: refusals[i] }
        : { status: 400, body: { success: false, error: "Неверный товар" } },
    );
    for (let i = 0; i < refusals.length; i++) {
      expect(await failure(client.payOrder("c-1"))).toMatchObject({
        kind: "insufficient_funds",
        status: 400,
      });
    }
    expect(await failure(client.payOrder("c-1"))).toMatchObject({ kind: "bad_request" });
  });

  it("tells the operator to check the key on a 401", async () => {
    const { client } = await setup(() => ({ status: 401, body: { success: false, error: "unauthorized" } }));
    const err = await failure(client.balance());
    expect(err.message).toMatch(
      /rejected the API key \(401 unauthorized\) at GET \/api\/reseller\/balance.*RESELLER_API_KEY/,
    );
  });

  it("lists missing and invalid fields from a 400", async () => {
    const { client } = await setup(() => ({
      status: 400,
      body: {
        success: false,
        error: "validation_error",
        message: "Missing required fields",
        errors: [{ field: "fields.player_id" }],
        invalid_fields: ["quantity"],
      },
    }));
    const err = await failure(
      client.createOrder({ custom_id: "c-2", product: "game", product_ref: "x", quantity: 1 }),
    );
    expect(err).toMatchObject({
      kind: "bad_request",
      code: "validation_error",
      missingFields: ["fields.player_id", "quantity"],
    });
    expect(err.message).toContain("fields.player_id, quantity");
  });

  it("treats success:false in a 200 as a bad_request error", async () => {
    const { stub, client } = await setup(() => ({
      status: 200,
      body: { success: false, error: "gift_sold_out", message: "Sold out" },
    }));
    const err = await failure(
      client.createOrder({ custom_id: "c-3", product: "gift", gift_id: "1", recipient_username: "durov" }),
    );
    expect(err).toMatchObject({ kind: "bad_request", status: 200, code: "gift_sold_out" });
    expect(err.message).toContain("Sold out");
    expect(stub.requests).toHaveLength(1);
  });

  it("reads an order status in any case as the spec's lower-case one", async () => {
    const { client } = await setup((req) => {
      if (req.url.endsWith("/pay"))
        return { status: 200, body: { success: true, status: "Pending", price_charged_rub: 65 } };
      return {
        status: 200,
        body: { success: true, status: "DELIVERED", delivered_payload: { tx_hash: "0x1" } },
      };
    });
    expect((await client.getOrder("c-1")).status).toBe("delivered");
    expect((await client.payOrder("c-1")).status).toBe("pending");
  });

  it("takes a zero or negative price for no price: a create answer with one is not understood, a catalog item with one is left out", async () => {
    const { client } = await setup((req) => {
      if (req.url.endsWith("/neural"))
        return {
          status: 200,
          body: {
            success: true,
            items: [
              { code: "free", title: "Free", wholesale_price_rub: 0 },
              { code: "minus", title: "Minus", wholesale_price_rub: "-5" },
              { code: "plus", title: "Plus", wholesale_price_rub: "2190,50" },
            ],
          },
        };
      const total = JSON.parse(req.body).custom_id === "c-zero" ? 0 : -100;
      return { status: 200, body: { success: true, status: "created", total_to_pay_rub: total } };
    });
    expect((await client.neural()).map((i) => [i.code, i.wholesalePriceRub])).toEqual([["plus", 2190.5]]);
    for (const custom_id of ["c-zero", "c-minus"]) {
      const err = await failure(client.createOrder({ ...ORDER, custom_id }));
      expect(err).toMatchObject({ kind: "bad_response", endpoint: "POST /api/reseller/order/create" });
    }
  });

  it("reads an order record marked success:false as the order, and a success:false that is no record of it as a refusal", async () => {
    const { client } = await setup((req) =>
      req.url.endsWith("/c-failed")
        ? {
            status: 200,
            body: {
              success: false,
              custom_id: "c-failed",
              status: "failed",
              error_message: "Recipient not found",
            },
          }
        : req.url.endsWith("/c-error")
          ? { status: 200, body: { success: false, status: "failed", message: "Internal error" } }
          : { status: 200, body: { success: false, error: "not_found", message: "No such order" } },
    );
    expect(await client.getOrder("c-failed")).toMatchObject({
      status: "failed",
      errorMessage: "Recipient not found",
    });
    expect(await failure(client.getOrder("c-other"))).toMatchObject({ kind: "bad_request", status: 200 });
    expect(await failure(client.getOrder("c-error"))).toMatchObject({ kind: "bad_request", status: 200 });
  });

  it("turns a 2xx body it cannot understand into bad_response naming the endpoint, without retrying", async () => {
    const bodies: StubAction[] = [
      { status: 200, raw: "<html>oops</html>" },
      { status: 200, body: { success: true, nothing: "here" } },
      { status: 200, raw: "" },
    ];
    const { stub, client } = await setup((_r, i) => bodies[i]!);
    for (let i = 0; i < bodies.length; i++) {
      const err = await failure(client.products());
      expect(err).toMatchObject({
        kind: "bad_response",
        endpoint: "GET /api/reseller/products",
        status: 200,
      });
      expect(err.message).toContain("GET /api/reseller/products");
    }
    expect(stub.requests).toHaveLength(3);
  });

  it("does not follow redirects", async () => {
    const { stub, client } = await setup(() => ({
      status: 302,
      headers: { location: "https://elsewhere.example/" },
    }));
    const err = await failure(client.balance());
    expect(err.kind).toBe("bad_response");
    expect(err.message).toContain("redirect");
    expect(stub.requests).toHaveLength(1);
  });

  it("sends nothing for an invalid create request or an empty custom_id", async () => {
    const { stub, client } = await setup(() => created);
    await expect(client.createOrder({ ...ORDER, quantity: 49 })).rejects.toBeInstanceOf(
      ResellerValidationError,
    );
    await expect(client.payOrder("")).rejects.toBeInstanceOf(ResellerValidationError);
    await expect(client.gameRegions(" ")).rejects.toBeInstanceOf(ResellerValidationError);
    expect(stub.requests).toHaveLength(0);
  });

  it("calls the metrics hook once per attempt with status and error kind", async () => {
    const seen: { endpoint: string; status: number | null; error?: string }[] = [];
    const { client } = await setup((_r, i) => (i === 0 ? { status: 500 } : created), {
      onRequest: ({ endpoint, status, error }) => seen.push({ endpoint, status, error }),
    });
    await client.createOrder(ORDER);
    expect(seen).toEqual([
      { endpoint: "POST /api/reseller/order/create", status: 500, error: "server" },
      { endpoint: "POST /api/reseller/order/create", status: 200, error: undefined },
    ]);
  });

  it("stops retrying when the caller aborts", async () => {
    const { stub, client } = await setup(() => "hang", { headersTimeoutMs: 10_000 });
    const ac = new AbortController();
    const p = failure(client.balance({ signal: ac.signal }));
    setTimeout(() => ac.abort(), 50);
    const err = await p;
    expect(err.message).toContain("cancelled by the caller");
    expect(stub.requests).toHaveLength(1);
  });

  it("keeps the API key out of logs and errors even when the server echoes it", async () => {
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
    const echo = (req: StubRequest): StubAction => ({
      status: 401,
      body: { success: false, error: "unauthorized", message: `bad key ${req.headers.authorization}` },
    });
    const { client } = await setup(
      (req, i) => (i === 0 ? { status: 500, body: { message: `${req.headers.authorization}` } } : echo(req)),
      {
        logger,
      },
    );
    const err = await failure(client.balance());
    const everything = [
      lines.join(""),
      err.message,
      JSON.stringify(err.body),
      JSON.stringify(err),
      String(err.stack),
    ].join("\n");
    expect(lines.length).toBeGreaterThan(0);
    expect(everything).toContain("[redacted]");
    expect(everything).not.toContain(API_KEY);
  });
});
