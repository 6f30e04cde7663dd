import { describe, expect, it } from "vitest";
import { decodeJob, encodeJob, type Job } from "../../src/orders/jobs.js";
import { canMove, enter, isQuoteExpired, jobsFor, NEXT_STATES } from "../../src/orders/lifecycle.js";
import { ORDER_STATES, type Order, type OrderState } from "../../src/orders/types.js";
import { order as sampleOrder } from "../helpers/orders.js";

const T = 1_000_000;
const timing = { now: T, quoteTtlMs: 900_000, pollMs: 3000 };

function order(state: OrderState, over: Partial<Order> = {}): Order {
  return sampleOrder({ state, currency: "XTR", createdAt: T, updatedAt: T, times: {}, ...over });
}

/** "job:<type>" for a scheduled job, "message:<kind>" for one queued for the chat, "cancel:<type>" for a job taken off. */
const types = (o: Order, from: OrderState | null) =>
  jobsFor(o, from, timing).map((e) =>
    "cancel" in e
      ? `cancel:${e.cancel.split(":")[0]}`
      : "member" in e
        ? `job:${e.member.split(":")[0]}`
        : "stands" in e
          ? `stands:${e.stands.split(":")[0]}`
          : `message:${e.message.kind}`,
  );

describe("order lifecycle", () => {
  it("never leaves a final state, and every state the table names exists", () => {
    for (const s of ["delivered", "failed", "rejected"] as const) expect(NEXT_STATES[s]).toEqual([]);
    for (const s of ORDER_STATES) for (const to of NEXT_STATES[s]) expect(ORDER_STATES).toContain(to);
    expect(canMove("pending", "paid")).toBe(false);
    expect(canMove("expired", "paid")).toBe(true);
  });

  it("updates the card of an order paid on a provider's page, which the bot did not answer in the chat", () => {
    const paidOn = (rail: Order["rail"]) =>
      types(order("paid", { cardMessageId: 7, rail, currency: "RUB" }), "quoted");
    expect(paidOn("yookassa")).toEqual(["job:step", "message:card"]);
    expect(paidOn("cryptopay")).toEqual(["job:step", "message:card"]);
    expect(paidOn("wallet")).toEqual(["job:step"]);
    expect(paidOn("invoice")).toEqual(["job:step"]);
  });

  it("keeps the draft's step (its expiry) for a quote that kept the draft's expiry, and moves it otherwise", () => {
    const draftMade = T - 100;
    const kept = order("quoted", { times: { draft: draftMade }, expiresAt: draftMade + timing.quoteTtlMs });
    expect(types(kept, "draft")).toEqual([]);
    const later = order("quoted", { times: { draft: draftMade }, expiresAt: T + timing.quoteTtlMs });
    expect(jobsFor(later, "draft", timing)).toEqual([
      { member: encodeJob({ type: "step", orderId: later.id }), dueAt: T + timing.quoteTtlMs },
    ]);
    // A quote moved on later (a new price) always schedules its own expiry.
    expect(types(kept, "quoted")).toEqual(["job:step"]);
  });

  it("queues no card update for a fresh quote (the flow shows that card), but does when the quote expires", () => {
    expect(types(order("quoted", { cardMessageId: 7 }), "draft")).toEqual(["job:step"]);
    expect(types(order("expired", { cardMessageId: 7 }), "quoted")).toEqual(["cancel:step", "message:card"]);
  });

  it("moves the order's one step from its expiry to pay to tracking, and takes it off when nothing is next", () => {
    // The paid card is the bot's answer to the payment itself, sent at once, not queued.
    // A paid quote's step moves from its expiry to `pay` (now, run here) in one ZADD: nothing to take off.
    // Held until the first status poll is due (POLL_INTERVAL_SECONDS, 3 s here).
    expect(jobsFor(order("paid", { cardMessageId: 7 }), "quoted", timing)).toEqual([
      { member: `step:${order("paid").id}`, dueAt: T, runHere: true, holdMs: 3000 },
    ]);
    expect(types(order("cancelled"), "draft")).toEqual(["cancel:step"]);
    expect(types(order("quoted"), "draft")).toEqual(["job:step"]);
    // `pay` answered: the same step becomes the first status poll, and the card shows `pending`.
    expect(types(order("pending"), "paid")).toEqual(["job:step", "message:card"]);
    expect(jobsFor(order("pending"), "paid", timing)[0]).toEqual({
      member: `step:${order("paid").id}`,
      dueAt: T + 3000,
    });
    // A refused `pay` ends it, as does a late payment that is refunded and never paid.
    expect(types(order("rejected", { telegramChargeId: "c1" }), "paid")).toContain("cancel:step");
    expect(types(order("paid"), "expired")).toEqual(["job:step"]);
  });

  it("leaves a paid order's step as its first poll when `pay` answered within the step's hold", () => {
    const step = `step:${order("paid").id}`;
    // `pay` written held for 3 s and answered 200 ms later: the lease's end is the first poll.
    const held = { ...timing, stepAt: T - 200 + 3000 };
    expect(jobsFor(order("pending"), "paid", held)).toEqual([
      { stands: step, at: T + 2800 },
      { message: { kind: "card", chatId: order("paid").customer.chatId, orderId: order("paid").id } },
    ]);
    // A lease renewed while `pay` ran ends well after the first poll: the step is moved there.
    expect(jobsFor(order("pending"), "paid", { ...timing, stepAt: T + 10_000 })[0]).toEqual({
      member: step,
      dueAt: T + 3000,
    });
    // Nor does a lease about to end serve: the first poll comes at least half the interval after `pay`.
    expect(jobsFor(order("pending"), "paid", { ...timing, stepAt: T + 1000 })[0]).toEqual({
      member: step,
      dueAt: T + 3000,
    });
    // Only the `pending` write that `pay` itself makes leaves the step.
    expect(types(order("pending"), "paid")).toEqual(["job:step", "message:card"]);
    // A first poll under 2 s is not worth holding `pay` for: the store's own hold applies.
    expect(jobsFor(order("paid"), "quoted", { ...timing, pollMs: 1000 })).toEqual([
      { member: step, dueAt: T, runHere: true },
    ]);
  });

  it("refunds Stars before the final message of a failed order, and sends it at once otherwise", () => {
    // A pending order that settles also ends its polling (cancel:step) and any re-read a flood of
    // delivery webhooks made due (cancel:track).
    expect(types(order("failed", { telegramChargeId: "c1" }), "pending")).toEqual([
      "message:alert",
      "job:refund",
      "cancel:step",
      "cancel:track",
    ]);
    expect(types(order("failed", { currency: "RUB", refund: "needed" }), "pending")).toEqual([
      "message:alert",
      "message:final",
      "message:alert",
      "cancel:step",
      "cancel:track",
    ]);
    expect(types(order("delivered", { cardMessageId: 7 }), "pending")).toEqual([
      "message:final",
      "cancel:step",
      "cancel:track",
      "message:card",
    ]);
    // Settled from `paid` (the reseller answered before `pay`'s own answer was written): the same.
    expect(types(order("delivered", { cardMessageId: 7 }), "paid")).toEqual([
      "message:final",
      "cancel:step",
      "cancel:track",
      "message:card",
    ]);
  });

  it("owes a hand refund for a failed order paid in roubles, not for one paid in Stars", () => {
    expect(enter(order("pending", { currency: "RUB" }), "failed", T).refund).toBe("needed");
    expect(enter(order("pending"), "failed", T).refund).toBe("none");
    expect(enter(order("quoted"), "paid", T).times.paid).toBe(T);
  });

  it("counts a quote expired at its expiry time", () => {
    expect(isQuoteExpired(order("quoted", { expiresAt: T }), T)).toBe(true);
    expect(isQuoteExpired(order("quoted", { expiresAt: T + 1 }), T)).toBe(false);
    expect(isQuoteExpired(order("paid", { expiresAt: 0 }), T)).toBe(false);
  });

  it("encodes every job so that decoding gives it back", () => {
    const id = "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";
    const jobs: Job[] = [
      { type: "step", orderId: id },
      { type: "expire", orderId: id },
      { type: "submit", orderId: id },
      { type: "track", orderId: id },
      { type: "card", orderId: id },
      { type: "final", orderId: id },
      { type: "refund", orderId: id },
      { type: "xrefund", orderId: id, chargeId: "stxABC" },
      { type: "alert", kind: "refund_needed", orderId: id },
      { type: "balance" },
    ];
    for (const job of jobs) expect(decodeJob(encodeJob(job))).toEqual(job);
    expect(encodeJob({ type: "alert", kind: "stuck", orderId: id })).toBe(`alert:stuck:${id}`);
    expect(decodeJob("nonsense:1")).toBeNull();
  });
});
