import { Writable } from "node:stream";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startYooKassaSandbox, type YooKassaSandbox } from "../../sandbox/yookassa/server.js";
import { createLogger } from "../../src/logger.js";
import { Retry } from "../../src/orders/job-retry.js";
import type { OutgoingMessage } from "../../src/outgoing/messages.js";
import { createYooKassaClient, type YooKassaClient } from "../../src/payments/yookassa/client.js";
import { yookassaGateway } from "../../src/payments/yookassa/gateway.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import type { TopUp } from "../../src/wallet/topup.js";
import { TopUps } from "../../src/wallet/topups.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const SHOP_ID = "777001";
const SECRET = "test_topups-secret-31c9";

let redis: Redis;
let sandbox: YooKassaSandbox;
let client: YooKassaClient;
let wallet: WalletLedger;
let topups: TopUps;
let queued: OutgoingMessage[];
let scheduled: string[];
let announced: { topup: TopUp; balance: number }[];
let userSeq = 820_000_000;

beforeEach(async () => {
  redis = testRedis();
  const prefix = uniquePrefix("topups");
  sandbox = await startYooKassaSandbox({ shopId: SHOP_ID, secretKey: SECRET });
  const logger = createLogger(
    { level: "silent", secrets: [SECRET] },
    new Writable({ write: (_c, _e, cb) => cb() }),
  );
  client = createYooKassaClient({ apiUrl: sandbox.apiUrl, shopId: SHOP_ID, secretKey: SECRET, logger });
  wallet = new WalletLedger(redis, prefix);
  queued = [];
  scheduled = [];
  announced = [];
  topups = new TopUps({
    redis,
    prefix,
    wallet,
    gateways: { yookassa: yookassaGateway(client, { returnUrl: () => "https://t.me/shop_bot" }) },
    config: { checkout: ["yookassa", "stars", "wallet"], starPriceRub: 1.5 },
    log: logger,
    now: Date.now,
    schedule: async (member) => {
      scheduled.push(member);
    },
    enqueue: async (m) => {
      queued.push(m);
    },
    kick: () => {},
    announce: async (topup, balance) => {
      announced.push({ topup, balance });
    },
  });
});

afterEach(async () => {
  await client.close();
  await sandbox.close();
  await redis.quit();
});

function tap(rail: TopUp["rail"], amountKopecks = 30_000) {
  userSeq += 1;
  const userId = userSeq;
  return { userId, chatId: userId, locale: "en" as const, rail, amountKopecks };
}

describe("wallet top-ups", () => {
  it("one top-up per customer, rail and amount while the tap window lasts", async () => {
    const input = tap("yookassa");
    const [a, b] = await Promise.all([topups.open(input), topups.open(input)]);
    expect(a.id).toBe(b.id);
    expect(a).toMatchObject({ state: "open", amountKopecks: 30_000, payments: [] });
    expect((await topups.open({ ...input, amountKopecks: 50_000 })).id).not.toBe(a.id);
    expect((await topups.open({ ...input, rail: "stars" })).id).not.toBe(a.id);
  });

  it("prices a Stars top-up in Stars and refuses pre-checkout for other amounts, users and payloads", async () => {
    const t = await topups.open(tap("stars", 50_000));
    expect(topups.priceOf(t)).toEqual({ currency: "XTR", amount: 334 });
    const payload = `topup:${t.id}`;
    const ok = { userId: t.userId, currency: "XTR", totalAmount: 334 };
    expect(await topups.checkPayable(payload, ok)).toMatchObject({ ok: true });
    expect(await topups.checkPayable(payload, { ...ok, totalAmount: 333 })).toMatchObject({
      reason: "wrong_amount",
    });
    expect(await topups.checkPayable(payload, { ...ok, userId: 1 })).toMatchObject({ reason: "wrong_user" });
    expect(await topups.checkPayable("topup:nope", ok)).toMatchObject({ reason: "not_found" });
  });

  it("credits each Telegram payment once: a repeat changes nothing, a second payment is credited too", async () => {
    const t = await topups.open(tap("stars"));
    const receipt = { userId: t.userId, currency: "XTR", chargeId: "stx-1" };
    const [first, again] = await Promise.all([
      topups.creditTelegram(`topup:${t.id}`, receipt),
      topups.creditTelegram(`topup:${t.id}`, receipt),
    ]);
    expect([first?.applied, again?.applied].sort()).toEqual([false, true]);
    expect(await wallet.balance(t.userId)).toBe(30_000);
    await topups.creditTelegram(`topup:${t.id}`, { ...receipt, chargeId: "stx-2" });
    const audit = await wallet.audit(t.userId);
    expect(audit.problems).toEqual([]);
    expect(audit.entries.map((e) => e.ref)).toEqual(["topup:stars:stx-1", "topup:stars:stx-2"]);
    expect((await topups.get(t.id))?.payments.map((p) => p.id)).toEqual(["stx-1", "stx-2"]);
    expect(await topups.creditTelegram("topup:00000000-0000-4000-8000-000000000000", receipt)).toBeNull();
  });

  it("a provider page is made once, polled, and its payment credited once however often it is re-read", async () => {
    const t = await topups.open(tap("yookassa"));
    const [a, b] = await Promise.all([
      topups.startPayment(t, "Wallet top-up"),
      topups.startPayment(t, "Wallet top-up"),
    ]);
    expect(sandbox.payments()).toHaveLength(1);
    const id = sandbox.payments()[0]!.id;
    expect([a, b].filter((r) => r.ok)).not.toHaveLength(0);
    expect(scheduled).toContain(`tpoll:${t.id}`);
    expect(await topups.poll(t.id)).toBeInstanceOf(Retry);

    sandbox.succeedPayment(id);
    const [status] = await yookassaGateway(client, { returnUrl: () => "" }).read([id]);
    await Promise.all([topups.applyStatus(status!), topups.applyStatus(status!), topups.poll(t.id)]);
    expect(await wallet.balance(t.userId)).toBe(30_000);
    expect((await wallet.entries(t.userId)).total).toBe(1);
    expect(await topups.get(t.id)).toMatchObject({ state: "paid" });
    expect(await topups.poll(t.id)).toBeUndefined();

    expect(queued.length).toBeGreaterThan(0);
    expect(queued[0]).toEqual({ kind: "topup", chatId: t.chatId, topupId: t.id });
    await Promise.all([topups.deliver(t.id), topups.deliver(t.id)]);
    await topups.deliver(t.id);
    expect(announced.length).toBeGreaterThanOrEqual(1);
    expect(announced[0]?.balance).toBe(30_000);
    // Once told, a later re-read queues nothing more.
    const before = queued.length;
    await topups.applyStatus(status!);
    expect(queued).toHaveLength(before);
  });

  it("a cancelled page is retired and the next tap makes a new one", async () => {
    const t = await topups.open(tap("yookassa"));
    const first = await topups.startPayment(t, "Wallet top-up");
    if (!first.ok) throw new Error("no page");
    sandbox.cancelPayment(first.paymentId);
    await topups.poll(t.id);
    expect((await topups.get(t.id))?.payments[0]?.settled).toBe("cancelled");
    const second = await topups.startPayment((await topups.get(t.id))!, "Wallet top-up");
    expect(second.ok && second.paymentId).not.toBe(first.paymentId);
    expect(sandbox.payments()).toHaveLength(2);
  });
});
