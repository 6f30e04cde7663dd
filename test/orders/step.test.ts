import type { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineContext } from "../../src/orders/context.js";
import { TAKEN_OFF } from "../../src/orders/job-retry.js";
import { encodeJob } from "../../src/orders/jobs.js";
import { JobSchedule } from "../../src/orders/schedule.js";
import { nextStep } from "../../src/orders/steps.js";
import { order } from "../helpers/orders.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

let redis: Redis | undefined;
afterEach(async () => {
  await redis?.quit();
  redis = undefined;
});

/** A paid order, its step claimed by this process as the quote's expiry fell due. */
async function claimedStep() {
  redis = testRedis();
  const jobs = new JobSchedule(redis, `${uniquePrefix("step")}jobs`);
  const paid = order({ state: "paid", currency: "XTR" });
  const member = encodeJob({ type: "step", orderId: paid.id });
  await jobs.schedule(member, 1_000);
  const [claim] = await jobs.claim(2_000, 1, 10_000);
  expect(claim?.member).toBe(member);
  const payOrder = vi.fn(async () => {
    throw new Error("pay was called");
  });
  const ctx = { store: { jobs }, reseller: { payOrder }, payAnswers: { release: vi.fn() } };
  return { jobs, paid, member, lease: claim!.lease, payOrder, ctx: ctx as unknown as EngineContext };
}

describe("an order's step", () => {
  it("leaves pay to the process that the payment's write moved the step to", async () => {
    const { jobs, paid, member, lease, payOrder, ctx } = await claimedStep();
    // The payment, recorded in another process, wrote the step leased to that process.
    await jobs.schedule(member, lease + 5_000);
    expect(await nextStep(ctx, paid, member, { lease, claimed: true })).toBe(TAKEN_OFF);
    expect(payOrder).not.toHaveBeenCalled();
    // The other process's lease stands.
    expect(Number(await redis!.zscore(jobs.key, member))).toBe(lease + 5_000);
  });

  it("calls pay when its claim still stands (the process that recorded the payment died)", async () => {
    const { paid, member, lease, payOrder, ctx } = await claimedStep();
    await expect(nextStep(ctx, paid, member, { lease, claimed: true })).rejects.toThrow("pay was called");
    expect(payOrder).toHaveBeenCalledTimes(1);
  });

  it("calls pay without a look at the schedule when this process wrote the step itself", async () => {
    const { paid, member, payOrder, ctx } = await claimedStep();
    const holds = vi.spyOn(ctx.store.jobs, "holds");
    await expect(nextStep(ctx, paid, member, { lease: 1, claimed: false })).rejects.toThrow("pay was called");
    expect(holds).not.toHaveBeenCalled();
    expect(payOrder).toHaveBeenCalledTimes(1);
  });

  it("calls pay without a look at the schedule when the claim came long before the quote's expiry", async () => {
    const { paid, member, lease, payOrder, ctx } = await claimedStep();
    const holds = vi.spyOn(ctx.store.jobs, "holds");
    const quote = { ...paid, expiresAt: 900_000 };
    // Claimed at 2 s: the step was not the quote's expiry (due at 900 s), so the payment's write made it due.
    await expect(nextStep(ctx, quote, member, { lease, claimed: true, since: 2_000 })).rejects.toThrow(
      "pay was called",
    );
    expect(holds).not.toHaveBeenCalled();
    // Claimed within a minute of the expiry (clocks of two processes may differ): it asks.
    await expect(nextStep(ctx, quote, member, { lease, claimed: true, since: 850_000 })).rejects.toThrow(
      "pay was called",
    );
    expect(holds).toHaveBeenCalledTimes(1);
    expect(payOrder).toHaveBeenCalledTimes(2);
  });

  it("has nothing to do for an order past its steps", async () => {
    const { member, lease, payOrder, ctx } = await claimedStep();
    for (const state of ["delivered", "failed", "rejected", "expired", "cancelled"] as const) {
      const o = order({ state, currency: "XTR" });
      expect(await nextStep(ctx, o, member, { lease, claimed: true })).toBeUndefined();
    }
    expect(payOrder).not.toHaveBeenCalled();
  });
});
