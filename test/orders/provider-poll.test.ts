import { afterEach, describe, expect, it } from "vitest";
import { type CryptoPaySandbox, startCryptoPaySandbox } from "../../sandbox/cryptopay/server.js";
import { encodeJob } from "../../src/orders/jobs.js";
import { orderKeys } from "../../src/orders/keys.js";
import { PAYMENT_POLL_FOR_MS } from "../../src/orders/provider-checkout.js";
import { type CryptoPayClient, createCryptoPayClient } from "../../src/payments/cryptopay/client.js";
import { cryptopayGateway } from "../../src/payments/cryptopay/gateway.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * The poll job of provider payments on a clock the test moves: a payment page stays payable as
 * long as the quote, so a lost notification must still be caught when the customer pays late in
 * a long quote.
 */

const TOKEN = "777:AApoll-test-cryptopay-token";
const LEASE_MS = 2_000;

let h: EngineHarness | undefined;
let cp: CryptoPaySandbox | undefined;
let client: CryptoPayClient | undefined;
afterEach(async () => {
  await h?.close();
  await client?.close();
  await cp?.close();
  h = cp = client = undefined;
});

describe("polling a Crypto Pay invoice", () => {
  it("an invoice paid more than the poll span after it was made, inside a long quote, is still found", async () => {
    let t = Date.now();
    const clock = () => t;
    // No webhook URL: every update is lost.
    cp = await startCryptoPaySandbox({ token: TOKEN, now: clock });
    client = createCryptoPayClient({ apiUrl: cp.apiUrl, token: TOKEN, retryBaseDelayMs: 10 });
    h = await startEngineHarness({
      checkout: ["cryptopay"],
      gateways: { cryptopay: cryptopayGateway(client) },
      now: clock,
      leaseMs: LEASE_MS,
      config: { quoteTtlSeconds: 6 * 3600 },
    });
    const customer = newCustomer();
    const order = await h.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const started = await h.engine.startPayment({
      orderId: order.id,
      userId: customer.userId,
      rail: "cryptopay",
      description: "poll test",
    });
    if (!started.ok) throw new Error(`no invoice: ${started.reason}`);
    const invoiceId = Number(started.paymentId);
    expect(Date.parse(cp.invoice(invoiceId)!.expiration_date!)).toBe(order.expiresAt);

    // The poll job looks once more after the poll span has passed: the invoice is still open.
    const reads = () => cp!.requests().filter((r) => r.method === "getInvoices").length;
    const before = reads();
    t += PAYMENT_POLL_FOR_MS + 60_000;
    const poll = encodeJob({ type: "ppoll", orderId: order.id });
    await eventually(
      async () => {
        if (reads() === before) return null;
        const score = await h!.redis.zscore(orderKeys(h!.prefix).jobs, poll);
        // Done: dropped, or due again later (a running job's score is its lease's end).
        return score === null || Number(score) > t + LEASE_MS ? true : null;
      },
      10_000,
      "the poll job to read the open invoice",
    );
    expect(cp.invoice(invoiceId)?.status).toBe("active");

    // An hour later, the quote still running, the customer pays; the update is lost.
    t += 3600_000;
    await cp.pay(invoiceId);
    const paid = await eventually(
      async () => {
        const o = await h!.engine.get(order.id);
        return o?.telegramChargeId ? o : null;
      },
      10_000,
      "the poll job to find the paid invoice",
    );
    expect(paid).toMatchObject({ rail: "cryptopay", telegramChargeId: `cryptopay:${invoiceId}` });
  });
});
