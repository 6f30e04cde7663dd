import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAX_AMOUNT_KOPECKS,
  MAX_BALANCE_KOPECKS,
  verifyLedger,
  type WalletEntry,
  WalletInputError,
  WalletLedger,
  type WalletResult,
} from "../../src/wallet/ledger.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

let nextUser = 1000;
const newUser = () => nextUser++;

function applied(r: WalletResult): WalletEntry {
  if (!r.ok) throw new Error(`expected the operation to be applied, got ${r.refusal}`);
  return r.entry;
}

describe("wallet ledger", () => {
  let redis: Redis;
  let prefix: string;
  let wallet: WalletLedger;
  beforeAll(() => {
    redis = testRedis();
    prefix = uniquePrefix("wallet");
    wallet = new WalletLedger(redis, prefix, { now: () => 1_700_000_000_000 });
  });
  afterAll(async () => {
    await redis.quit();
  });

  /** Everything Redis holds for a wallet, to show that a refused operation wrote nothing. */
  async function snapshot(userId: number) {
    const k = wallet.keys;
    return {
      wallet: await redis.hgetall(k.wallet(userId)),
      entries: await redis.lrange(k.entries(userId), 0, -1),
      refs: await redis.hgetall(k.refs(userId)),
    };
  }

  it("records a top-up, an order and its refund, each with its reason and the balance after it", async () => {
    const user = newUser();
    expect(await wallet.balance(user)).toBe(0);
    const topup = await wallet.credit(user, {
      amountKopecks: 100_000,
      reason: "topup",
      ref: "topup:pay-1",
      paymentRef: "pay-1",
    });
    expect(topup).toMatchObject({ ok: true, applied: true, balanceKopecks: 100_000 });
    expect(applied(topup)).toEqual({
      id: `${user}:1`,
      seq: 1,
      at: 1_700_000_000_000,
      amountKopecks: 100_000,
      balanceAfter: 100_000,
      reason: "topup",
      ref: "topup:pay-1",
      paymentRef: "pay-1",
    });
    const order = await wallet.debit(user, {
      amountKopecks: 37_550,
      reason: "order",
      ref: "order:o-1",
      orderId: "o-1",
    });
    expect(order).toMatchObject({ ok: true, applied: true, balanceKopecks: 62_450 });
    expect(applied(order)).toMatchObject({ amountKopecks: -37_550, balanceAfter: 62_450, orderId: "o-1" });
    const refund = await wallet.credit(user, {
      amountKopecks: 37_550,
      reason: "refund",
      ref: "refund:o-1",
      orderId: "o-1",
    });
    expect(refund).toMatchObject({ ok: true, applied: true, balanceKopecks: 100_000 });

    expect(await wallet.balance(user)).toBe(100_000);
    const page = await wallet.entries(user, { offset: 0, limit: 10 });
    expect(page.total).toBe(3);
    expect(page.balanceKopecks).toBe(100_000);
    expect(page.entries.map((e) => [e.reason, e.amountKopecks, e.balanceAfter])).toEqual([
      ["refund", 37_550, 100_000],
      ["order", -37_550, 62_450],
      ["topup", 100_000, 100_000],
    ]);
    expect((await wallet.audit(user)).problems).toEqual([]);
  });

  it("pages through entries newest first with the total", async () => {
    const user = newUser();
    for (let i = 1; i <= 7; i++) {
      await wallet.credit(user, { amountKopecks: i * 100, reason: "topup", ref: `topup:p${i}` });
    }
    const first = await wallet.entries(user, { offset: 0, limit: 3 });
    const second = await wallet.entries(user, { offset: 3, limit: 3 });
    const last = await wallet.entries(user, { offset: 6, limit: 3 });
    expect([first, second, last].map((p) => p.entries.map((e) => e.seq))).toEqual([
      [7, 6, 5],
      [4, 3, 2],
      [1],
    ]);
    expect(first.total).toBe(7);
    expect(first.balanceKopecks).toBe(2_800);
    expect((await wallet.entries(user, { offset: 10, limit: 3 })).entries).toEqual([]);
  });

  it("refuses a debit over the balance and writes nothing", async () => {
    const user = newUser();
    await wallet.credit(user, { amountKopecks: 5_000, reason: "topup", ref: "topup:a" });
    const before = await snapshot(user);
    const r = await wallet.debit(user, {
      amountKopecks: 5_001,
      reason: "order",
      ref: "order:big",
      orderId: "big",
    });
    expect(r).toEqual({ ok: false, refusal: "insufficient", balanceKopecks: 5_000 });
    expect(await snapshot(user)).toEqual(before);

    // The same ref goes through once the balance covers it: a refusal leaves no trace of the ref.
    await wallet.credit(user, { amountKopecks: 1, reason: "topup", ref: "topup:b" });
    const again = await wallet.debit(user, {
      amountKopecks: 5_001,
      reason: "order",
      ref: "order:big",
      orderId: "big",
    });
    expect(again).toMatchObject({ ok: true, applied: true, balanceKopecks: 0 });
  });

  it("refuses a debit from a wallet never used and creates no keys", async () => {
    const user = newUser();
    const r = await wallet.debit(user, { amountKopecks: 1, reason: "order", ref: "order:x", orderId: "x" });
    expect(r).toEqual({ ok: false, refusal: "insufficient", balanceKopecks: 0 });
    expect(
      await redis.exists(wallet.keys.wallet(user), wallet.keys.entries(user), wallet.keys.refs(user)),
    ).toBe(0);
  });

  it("applies the same ref once when it is sent again, and returns the original entry", async () => {
    const user = newUser();
    await wallet.credit(user, { amountKopecks: 10_000, reason: "topup", ref: "topup:t" });
    const move = { amountKopecks: 2_500, reason: "order", ref: "order:o-2", orderId: "o-2" } as const;
    const first = await wallet.debit(user, move);
    const second = await wallet.debit(user, move);
    expect(first).toMatchObject({ ok: true, applied: true, balanceKopecks: 7_500 });
    expect(second).toMatchObject({ ok: true, applied: false, balanceKopecks: 7_500 });
    expect(applied(second)).toEqual(applied(first));
    const page = await wallet.entries(user, { limit: 10 });
    expect(page.total).toBe(2);
    expect(await wallet.balance(user)).toBe(7_500);
    // After a restart the debit is found by its ref, so the order is marked paid rather than charged again.
    expect(await wallet.entryByRef(user, "order:o-2")).toEqual(applied(first));
    expect(await wallet.entryByRef(user, "order:never")).toBeNull();
  });

  it("applies a credit once when the same ref races itself on several connections", async () => {
    const user = newUser();
    const clients = Array.from({ length: 4 }, () => testRedis());
    try {
      const ledgers = clients.map((c) => new WalletLedger(c, prefix));
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          ledgers[i % ledgers.length]!.credit(user, {
            amountKopecks: 30_000,
            reason: "refund",
            ref: "refund:o-3",
            orderId: "o-3",
          }),
        ),
      );
      expect(results.filter((r) => r.ok && r.applied)).toHaveLength(1);
      expect(results.filter((r) => r.ok && !r.applied)).toHaveLength(39);
      expect(await wallet.balance(user)).toBe(30_000);
      expect((await wallet.entries(user)).total).toBe(1);
    } finally {
      await Promise.all(clients.map((c) => c.quit()));
    }
  });

  it("refuses a ref used before for a different amount or reason and writes nothing", async () => {
    const user = newUser();
    await wallet.credit(user, { amountKopecks: 10_000, reason: "topup", ref: "topup:same" });
    const before = await snapshot(user);
    const otherAmount = await wallet.credit(user, {
      amountKopecks: 9_999,
      reason: "topup",
      ref: "topup:same",
    });
    expect(otherAmount).toMatchObject({ ok: false, refusal: "ref_conflict", balanceKopecks: 10_000 });
    const otherReason = await wallet.credit(user, {
      amountKopecks: 10_000,
      reason: "referral",
      ref: "topup:same",
    });
    expect(otherReason).toMatchObject({ ok: false, refusal: "ref_conflict" });
    const debit = await wallet.debit(user, {
      amountKopecks: 10_000,
      reason: "order",
      ref: "topup:same",
      orderId: "z",
    });
    expect(debit).toMatchObject({ ok: false, refusal: "ref_conflict" });
    expect(await snapshot(user)).toEqual(before);
  });

  it("lets exactly as many of 200 racing debits through as the balance covers, and never goes below zero", async () => {
    const user = newUser();
    const balance = 1_000_000;
    const amount = 14_900;
    await wallet.credit(user, { amountKopecks: balance, reason: "topup", ref: "topup:race" });
    const clients = Array.from({ length: 5 }, () => testRedis());
    try {
      const ledgers = clients.map((c) => new WalletLedger(c, prefix));
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          ledgers[i % ledgers.length]!.debit(user, {
            amountKopecks: amount,
            reason: "order",
            ref: `order:race-${i}`,
            orderId: `race-${i}`,
          }),
        ),
      );
      const ok = results.filter((r) => r.ok && r.applied).length;
      const refused = results.filter((r) => !r.ok && r.refusal === "insufficient").length;
      expect(ok).toBe(Math.floor(balance / amount));
      expect(refused).toBe(200 - ok);
      for (const r of results) expect(r.balanceKopecks).toBeGreaterThanOrEqual(0);
      expect(await wallet.balance(user)).toBe(balance - ok * amount);
      const audit = await wallet.audit(user);
      expect(audit.entries).toHaveLength(ok + 1);
      expect(audit.problems).toEqual([]);
      expect(audit.entries.reduce((s, e) => s + e.amountKopecks, 0)).toBe(audit.balanceKopecks);
    } finally {
      await Promise.all(clients.map((c) => c.quit()));
    }
  });

  it("records an operator adjustment with its note and operator, and refuses one that would go below zero", async () => {
    const user = newUser();
    const op = 777;
    const up = await wallet.adjust(user, {
      amountKopecks: 20_000,
      note: "compensation for a late order",
      by: op,
      ref: `adjust:${randomUUID()}`,
    });
    expect(applied(up)).toMatchObject({
      reason: "adjustment",
      amountKopecks: 20_000,
      note: "compensation for a late order",
      by: op,
    });
    const down = await wallet.adjust(user, {
      amountKopecks: -5_000,
      note: "duplicate top-up",
      by: op,
      ref: `adjust:${randomUUID()}`,
    });
    expect(down).toMatchObject({ ok: true, applied: true, balanceKopecks: 15_000 });
    expect(applied(down)).toMatchObject({ amountKopecks: -5_000, note: "duplicate top-up", by: op });
    const before = await snapshot(user);
    const tooMuch = await wallet.adjust(user, {
      amountKopecks: -15_001,
      note: "too much",
      by: op,
      ref: `adjust:${randomUUID()}`,
    });
    expect(tooMuch).toEqual({ ok: false, refusal: "insufficient", balanceKopecks: 15_000 });
    expect(await snapshot(user)).toEqual(before);
  });

  it("refuses an adjustment without a note or an operator, naming both", async () => {
    const user = newUser();
    const err = await wallet
      .adjust(user, { amountKopecks: 100, note: " ", by: 0, ref: "adjust:n" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WalletInputError);
    expect((err as WalletInputError).problems).toEqual([
      "note must be a non-empty text",
      "by must be the operator's user id (got 0)",
    ]);
    await expect(
      wallet.credit(user, { amountKopecks: 100, reason: "adjustment", ref: "adjust:m" }),
    ).rejects.toThrow(/note must be a non-empty text; by must be the operator's user id/);
    expect(await redis.exists(wallet.keys.wallet(user))).toBe(0);
  });

  it("refuses invalid amounts before anything reaches Redis", async () => {
    const user = newUser();
    const bad: unknown[] = [
      0,
      -100,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      MAX_AMOUNT_KOPECKS + 1,
      "100",
      1e300,
    ];
    for (const amount of bad) {
      await expect(
        wallet.credit(user, { amountKopecks: amount as number, reason: "topup", ref: "topup:bad" }),
      ).rejects.toThrow(/amountKopecks must/);
      await expect(
        wallet.debit(user, {
          amountKopecks: amount as number,
          reason: "order",
          ref: "order:bad",
          orderId: "o",
        }),
      ).rejects.toThrow(/amountKopecks must/);
    }
    // An adjustment is signed (a negative amount debits), so only its size and wholeness are checked.
    const badAdjustments: unknown[] = [0, 1.5, -1.5, Number.NaN, -(MAX_AMOUNT_KOPECKS + 1), "-100"];
    for (const amount of badAdjustments) {
      await expect(
        wallet.adjust(user, { amountKopecks: amount as number, note: "n", by: 1, ref: "adjust:bad" }),
      ).rejects.toThrow(/amountKopecks must/);
    }
    expect(
      await redis.exists(wallet.keys.wallet(user), wallet.keys.entries(user), wallet.keys.refs(user)),
    ).toBe(0);
    // The largest amount allowed does go through.
    const max = await wallet.credit(user, {
      amountKopecks: MAX_AMOUNT_KOPECKS,
      reason: "topup",
      ref: "topup:max",
    });
    expect(max).toMatchObject({ ok: true, balanceKopecks: MAX_AMOUNT_KOPECKS });
  });

  it("refuses reasons that do not fit the direction, a missing order id, a bad ref or user id", async () => {
    const user = newUser();
    const problems = async (p: Promise<unknown>) =>
      ((await p.catch((e: unknown) => e)) as WalletInputError).problems;
    expect(
      await problems(
        wallet.credit(user, { amountKopecks: 1, reason: "order", ref: "order:a", orderId: "a" }),
      ),
    ).toEqual(["a credit may not have reason order"]);
    expect(await problems(wallet.debit(user, { amountKopecks: 1, reason: "topup", ref: "topup:a" }))).toEqual(
      ["a debit may not have reason topup"],
    );
    expect(await problems(wallet.debit(user, { amountKopecks: 1, reason: "order", ref: "order a" }))).toEqual(
      ["ref must be a non-empty text without spaces", "orderId must be a non-empty text"],
    );
    expect(
      await problems(
        wallet.credit(-5, { amountKopecks: 0, reason: "refund", ref: "refund:q", orderId: "q" }),
      ),
    ).toEqual(["userId must be a positive integer (got -5)", "amountKopecks must be above 0 (got 0)"]);
    await expect(wallet.entries(user, { offset: -1, limit: 0 })).rejects.toThrow(
      /offset must be 0 or more.*limit must be from 1 to 100/,
    );
    expect(await redis.exists(wallet.keys.wallet(user))).toBe(0);
  });

  it("refuses a credit that would take the balance over the limit", async () => {
    const user = newUser();
    for (let i = 0; i < MAX_BALANCE_KOPECKS / MAX_AMOUNT_KOPECKS; i++) {
      applied(
        await wallet.credit(user, { amountKopecks: MAX_AMOUNT_KOPECKS, reason: "topup", ref: `topup:l${i}` }),
      );
    }
    const before = await snapshot(user);
    const over = await wallet.credit(user, { amountKopecks: 1, reason: "topup", ref: "topup:over" });
    expect(over).toEqual({ ok: false, refusal: "balance_limit", balanceKopecks: MAX_BALANCE_KOPECKS });
    expect(await snapshot(user)).toEqual(before);
    const audit = await wallet.audit(user);
    expect(audit.problems).toEqual([]);
    expect(audit.entries.at(-1)?.balanceAfter).toBe(MAX_BALANCE_KOPECKS);
  });
});

describe("verifyLedger", () => {
  const entry = (seq: number, amountKopecks: number, balanceAfter: number): WalletEntry => ({
    id: `1:${seq}`,
    seq,
    at: 0,
    amountKopecks,
    balanceAfter,
    reason: amountKopecks > 0 ? "topup" : "order",
    ref: `r${seq}`,
  });

  it("accepts a ledger whose running sums and balance agree, in any order", () => {
    expect(verifyLedger([entry(2, -300, 700), entry(1, 1000, 1000)], 700)).toEqual([]);
    expect(verifyLedger([], 0)).toEqual([]);
  });

  it("names a balance that is not the sum of the entries", () => {
    expect(verifyLedger([entry(1, 1000, 1000)], 900)).toEqual([
      "balance 900 is not the sum of the entries 1000",
    ]);
  });

  it("names an entry that took the balance below zero or does not follow the running sum", () => {
    expect(verifyLedger([entry(1, 100, 100), entry(2, -200, -100)], -100)).toEqual([
      "entry 1:2: balanceAfter -100 is below zero",
      "balance -100 is below zero",
    ]);
    expect(verifyLedger([entry(1, 100, 100), entry(2, 50, 100)], 150)).toEqual([
      "entry 1:2: balanceAfter 100, running sum 150",
    ]);
  });

  it("names a missing entry and a ref used twice", () => {
    expect(verifyLedger([entry(1, 100, 100), entry(3, 100, 200)], 200)).toEqual([
      "entry 1:3: seq 3 where 2 was expected",
    ]);
    expect(verifyLedger([entry(1, 100, 100), { ...entry(2, 100, 200), ref: "r1" }], 200)).toEqual([
      "entry 1:2: ref r1 appears twice",
    ]);
  });
});
