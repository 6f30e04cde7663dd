import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ResellerSandbox, startResellerSandbox } from "../../sandbox/reseller/server.js";
import { createResellerClient } from "../../src/reseller/client.js";
import { ResellerApiError, ResellerValidationError } from "../../src/reseller/errors.js";
import type { CreateOrderRequest, ResellerClient } from "../../src/reseller/types.js";

const API_KEY = "rk_sandbox_SECRET_4d1e7b90aa";
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

let sandbox: ResellerSandbox;
let client: ResellerClient;
const thrown: unknown[] = [];

beforeAll(async () => {
  sandbox = await startResellerSandbox({ apiKey: API_KEY, deliveryDelayMs: 20, balanceRub: 1_000_000_000 });
  client = createResellerClient({
    baseUrl: sandbox.url,
    apiKey: API_KEY,
    logger,
    retryBaseDelayMs: 10,
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
  });
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

beforeEach(() => {
  sandbox.clearFaults();
  sandbox.setAuthFailure(false);
});

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    thrown.push(err);
    return err;
  }
  throw new Error("expected the call to fail");
}

const stars = (quantity: number, id = randomUUID()): CreateOrderRequest => ({
  custom_id: id,
  product: "stars",
  recipient_username: "durov_fan",
  quantity,
});

async function waitForFinal(customId: string) {
  for (let i = 0; i < 100; i++) {
    const o = await client.getOrder(customId);
    if (o.status === "delivered" || o.status === "failed") return o;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`order ${customId} did not finish`);
}

describe("reseller client against the sandbox", () => {
  it("reads every catalog: products, gifts, neural and all three games levels", async () => {
    const products = await client.products();
    expect(products.map((p) => p.id)).toEqual(
      expect.arrayContaining(["stars", "premium_3m", "gift", "steam", "neural", "game"]),
    );
    expect(products.find((p) => p.id === "stars")!.wholesalePriceRub).toBeGreaterThan(0);

    const gifts = await client.gifts();
    expect(gifts.length).toBeGreaterThan(0);
    expect(gifts[0]).toMatchObject({
      giftId: expect.any(String),
      starCount: expect.any(Number),
      wholesalePriceRub: expect.any(Number),
    });

    const neural = await client.neural();
    expect(neural.length).toBeGreaterThan(0);
    expect(neural.every((n) => n.delivery === "auto")).toBe(true);

    const games = await client.games();
    expect(games.map((g) => g.key)).toContain("pubg");
    const regions = await client.gameRegions("pubg");
    expect(regions.map((r) => r.code)).toContain("global");
    const topup = await client.gamePackages("pubg", "global");
    expect(topup.delivery).toBe("topup");
    expect(topup.fields).toEqual(["player_id"]);
    expect(topup.packages[0]).toMatchObject({
      productRef: expect.any(String),
      wholesalePriceRub: expect.any(Number),
    });
    const codes = await client.gamePackages("pubg", "ru");
    expect(codes).toMatchObject({ delivery: "codes", fields: [] });
  });

  it("reads the balance", async () => {
    sandbox.setBalanceRub(12_345.67);
    expect(await client.balance()).toEqual({ balanceRub: 12_345.67, balanceNano: 12_345.67e9 });
    sandbox.setBalanceRub(1_000_000_000);
  });

  it("creates, pays and reads an order until it is delivered", async () => {
    const req = stars(100);
    const created = await client.createOrder(req);
    expect(created).toMatchObject({ customId: req.custom_id, status: "created" });
    expect(created.totalToPayRub).toBeGreaterThan(0);
    const paid = await client.payOrder(req.custom_id);
    expect(paid).toMatchObject({
      customId: req.custom_id,
      status: "pending",
      priceChargedRub: created.totalToPayRub,
    });
    const order = await waitForFinal(req.custom_id);
    expect(order.status).toBe("delivered");
    expect(order.deliveredPayload).toHaveProperty("tx_hash");
    expect(order.raw).toHaveProperty("product", "stars");
  });

  it("orders every other product kind", async () => {
    const gift = (await client.gifts()).find((g) => g.remainingCount !== 0)!;
    const neural = (await client.neural())[0]!;
    const topup = (await client.gamePackages("pubg", "global")).packages[0]!;
    const requests: CreateOrderRequest[] = [
      { custom_id: randomUUID(), product: "premium_6m", recipient_username: "durov_fan" },
      { custom_id: randomUUID(), product: "gift", recipient_username: "durov_fan", gift_id: gift.giftId },
      { custom_id: randomUUID(), product: "steam", recipient_username: "gaben.fan", quantity: 500 },
      { custom_id: randomUUID(), product: "neural", code: neural.code },
      {
        custom_id: randomUUID(),
        product: "game",
        product_ref: topup.productRef,
        quantity: 2,
        fields: { player_id: "51234567" },
      },
    ];
    for (const req of requests) {
      expect((await client.createOrder(req)).status).toBe("created");
      expect((await client.payOrder(req.custom_id)).status).toBe("pending");
    }
  });

  it.each([
    ["stars", 49, false],
    ["stars", 50, true],
    ["stars", 1_000_000, true],
    ["stars", 1_000_001, false],
    ["steam", 49, false],
    ["steam", 50, true],
    ["steam", 50_000, true],
    ["steam", 50_001, false],
    ["game", 0, false],
    ["game", 1, true],
    ["game", 10, true],
    ["game", 11, false],
  ] as const)(
    "for %s quantity %d, creates the order only when it is within the limits",
    async (product, quantity, ok) => {
      const before = sandbox.requests().length;
      const custom_id = randomUUID();
      const req: CreateOrderRequest =
        product === "game"
          ? {
              custom_id,
              product,
              quantity,
              product_ref: (await client.gamePackages("pubg", "ru")).packages[0]!.productRef,
            }
          : { custom_id, product, quantity, recipient_username: product === "steam" ? "gaben" : "durov_fan" };
      const sentBefore = product === "game" ? before + 1 : before;
      if (ok) {
        expect((await client.createOrder(req)).status).toBe("created");
        expect(sandbox.order(custom_id)?.status).toBe("created");
      } else {
        const err = await failure(client.createOrder(req));
        expect(err).toBeInstanceOf(ResellerValidationError);
        expect((err as ResellerValidationError).fields).toEqual(["quantity"]);
        expect(sandbox.requests().length).toBe(sentBefore);
      }
    },
  );

  it("refuses premium with a quantity before sending anything", async () => {
    const before = sandbox.requests().length;
    const err = await failure(
      client.createOrder({
        custom_id: randomUUID(),
        product: "premium_3m",
        recipient_username: "durov_fan",
        quantity: 1,
      }),
    );
    expect((err as ResellerValidationError).fields).toEqual(["quantity"]);
    expect(sandbox.requests().length).toBe(before);
  });

  it("surfaces a 400 with missing fields as a typed error and does not retry it", async () => {
    const ref = (await client.gamePackages("pubg", "global")).packages[0]!.productRef;
    const custom_id = randomUUID();
    const err = await failure(
      client.createOrder({
        custom_id,
        product: "game",
        product_ref: ref,
        quantity: 1,
        fields: { nick: "x" },
      }),
    );
    expect(err).toBeInstanceOf(ResellerApiError);
    expect(err).toMatchObject({
      kind: "bad_request",
      status: 400,
      code: "validation_error",
      missingFields: ["fields.player_id"],
      endpoint: "POST /api/reseller/order/create",
    });
    expect((err as Error).message).toContain("fields.player_id");
    expect(sandbox.stats(custom_id).creates).toBe(1);
  });

  it("charges once when create and pay are repeated with the same custom_id", async () => {
    const req = stars(200);
    const a = await client.createOrder(req);
    const b = await client.createOrder(req);
    expect(b.totalToPayRub).toBe(a.totalToPayRub);
    await client.payOrder(req.custom_id);
    await client.payOrder(req.custom_id);
    expect(sandbox.stats(req.custom_id)).toMatchObject({
      creates: 2,
      pays: 2,
      charges: 1,
      chargedRub: a.totalToPayRub,
    });
  });

  it.each(["500", "hang", "lose_response", "reset"] as const)(
    "retries create after %s with the same custom_id; pay fails once and a second pay charges once",
    async (mode) => {
      const req = stars(300);
      const chargesBefore = sandbox.totalCharges();
      sandbox.fail("POST /api/reseller/order/create", mode, 1);
      sandbox.fail("POST /api/reseller/order/pay", mode, 1);
      await client.createOrder(req);
      await expect(client.payOrder(req.custom_id)).rejects.toMatchObject({ transient: true });
      const paid = await client.payOrder(req.custom_id);
      expect(paid.status).toBe("pending");
      const sent = sandbox.requests().filter((r) => r.path.startsWith("/api/reseller/order/"));
      const mine = sent.filter((r) => (r.body as { custom_id?: string } | null)?.custom_id === req.custom_id);
      expect(mine.map((r) => r.path)).toEqual([
        "/api/reseller/order/create",
        "/api/reseller/order/create",
        "/api/reseller/order/pay",
        "/api/reseller/order/pay",
      ]);
      expect(sandbox.stats(req.custom_id).charges).toBe(1);
      expect(sandbox.totalCharges()).toBe(chargesBefore + 1);
    },
  );

  it("retries after a 429, honouring Retry-After", async () => {
    sandbox.fail("GET /api/reseller/balance", "429", 1);
    const before = sandbox.requests().length;
    await client.balance();
    const seen = sandbox.requests().slice(before);
    expect(seen.map((r) => r.status)).toEqual([429, 200]);
  });

  it("does not retry a 4xx: insufficient deposit, unknown order, rejected key", async () => {
    const req = stars(1_000);
    await client.createOrder(req);
    sandbox.setBalanceRub(1);
    const funds = await failure(client.payOrder(req.custom_id));
    sandbox.setBalanceRub(1_000_000_000);
    expect(funds).toMatchObject({ kind: "insufficient_funds", status: 402, code: "insufficient_funds" });
    expect(sandbox.stats(req.custom_id)).toMatchObject({ pays: 1, charges: 0 });

    const before = sandbox.requests().length;
    const missing = await failure(client.getOrder(randomUUID()));
    expect(missing).toMatchObject({ kind: "not_found", status: 404, code: "order_not_found" });

    sandbox.setAuthFailure(true);
    const auth = await failure(client.balance());
    expect(auth).toMatchObject({ kind: "auth", status: 401 });
    expect((auth as Error).message).toContain("RESELLER_API_KEY");
    expect(sandbox.requests().length).toBe(before + 2);
  });

  it("keeps the API key out of every log line and error", async () => {
    sandbox.fail("GET /api/reseller/gifts", "500", 1);
    await client.gifts();
    sandbox.setAuthFailure(true);
    await failure(client.balance());
    expect(logLines.length).toBeGreaterThan(0);
    expect(thrown.length).toBeGreaterThan(0);
    const errors = thrown.map((e) =>
      [String(e), JSON.stringify(e), (e as Error).stack, JSON.stringify((e as ResellerApiError).body)].join(
        "\n",
      ),
    );
    expect([...logLines, ...errors].join("\n")).not.toContain(API_KEY);
  });
});
