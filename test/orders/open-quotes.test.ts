import { afterEach, describe, expect, it } from "vitest";
import { OpenQuotesLimitError } from "../../src/orders/api.js";
import type { Order } from "../../src/orders/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";

let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** `create` requests the reseller sandbox processed, whatever their custom_id. */
function createsSeen(hh: EngineHarness): number {
  return hh.sandbox.requests().filter((r) => r.method === "POST" && r.path.endsWith("/order/create")).length;
}

describe("MAX_OPEN_QUOTES in the orders engine", () => {
  it("lets quotes asked for at the same time go over the limit by none, and sends no create for the refused", async () => {
    h = await startEngineHarness({ config: { maxOpenQuotes: 3 } });
    const hh = h;
    const customer = newCustomer();
    const ids = Array.from({ length: 8 }, () => newOrderId());
    const results = await Promise.allSettled(
      ids.map((orderId) => hh.engine.quote({ orderId, item: sampleItems().stars!, customer })),
    );
    const quoted = results.filter((r) => r.status === "fulfilled").map((r) => r.value as Order);
    const refused = results
      .filter((r) => r.status === "rejected")
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(quoted).toHaveLength(3);
    expect(quoted.every((o) => o.state === "quoted")).toBe(true);
    expect(refused).toHaveLength(5);
    for (const err of refused) {
      expect(err).toBeInstanceOf(OpenQuotesLimitError);
      expect((err as OpenQuotesLimitError).max).toBe(3);
      expect((err as OpenQuotesLimitError).open.map((o) => o.id).every((id) => ids.includes(id))).toBe(true);
    }
    expect(createsSeen(hh)).toBe(3);
    // Nothing of a refused quote was kept.
    for (const [i, r] of results.entries()) {
      if (r.status === "rejected") expect(await hh.engine.get(ids[i]!)).toBeNull();
    }
    // Another customer is not affected.
    const other = await hh.engine.quote({
      orderId: newOrderId(),
      item: sampleItems().stars!,
      customer: newCustomer(),
    });
    expect(other.state).toBe("quoted");
  });

  it("frees a place when a quote is paid, cancelled, or past its time even before its expiry job ran", async () => {
    h = await startEngineHarness({ config: { maxOpenQuotes: 2 } });
    const hh = h;
    const customer = newCustomer();
    const ask = () => hh.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
    const first = await ask();
    const second = await ask();
    const refused = await ask().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenQuotesLimitError);
    expect((refused as OpenQuotesLimitError).open.map((o) => o.id)).toEqual([first.id, second.id]);

    // Cancelled: one place free.
    expect((await hh.engine.cancel(first.id, customer.userId)).won).toBe(true);
    const third = await ask();
    await expect(ask()).rejects.toBeInstanceOf(OpenQuotesLimitError);

    // Paid: one place free.
    await hh.engine.markPaid(second.id, {
      userId: customer.userId,
      currency: "XTR",
      totalAmount: second.amount!,
      telegramChargeId: "open-quotes-charge-1",
    });
    const fourth = await ask();
    await expect(ask()).rejects.toBeInstanceOf(OpenQuotesLimitError);

    // Past its time: still `quoted` (its expiry job is due later) but no longer counted.
    await hh.engine.store.update(third.id, (o) => ({ next: { ...o, expiresAt: Date.now() - 1 } }));
    expect((await hh.engine.get(third.id))?.state).toBe("quoted");
    const fifth = await ask();
    expect(fifth.state).toBe("quoted");
    const last = (await ask().catch((err: unknown) => err)) as OpenQuotesLimitError;
    expect(last).toBeInstanceOf(OpenQuotesLimitError);
    expect(last.open.map((o) => o.id)).toEqual([fourth.id, fifth.id]);
  });
});
