import { afterEach, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * Paying an order from the wallet, end to end through the Telegram emulator: one tap, one debit
 * with its reason and order, a refund of a failed order credited at once, and a clear refusal
 * when the balance does not cover the price.
 */

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };
const WALLET_BUTTON = /^👛 From my wallet/;

async function shop(): Promise<{ h: AppHarness; ledger: WalletLedger }> {
  h = await startAppHarness({ CHECKOUT: "wallet,stars" });
  return { h, ledger: new WalletLedger(h.app.redis, h.app.config.redisPrefix) };
}

async function topUp(ledger: WalletLedger, c: ChatUser, kopecks: number, ref = "topup:e2e-1") {
  const r = await ledger.credit(c.id, { amountKopecks: kopecks, reason: "topup", ref, paymentRef: ref });
  expect(r.ok).toBe(true);
}

/** The only order the reseller sandbox has seen. */
function onlyOrderId(hh: AppHarness): string {
  const orders = hh.sandbox.orders();
  expect(orders).toHaveLength(1);
  return orders[0]!.customId;
}

describe("paying from the wallet", () => {
  it("one tap pays and the order is delivered; the debit names the order", async () => {
    const { h, ledger } = await shop();
    const c = newAppCustomer(h.telegram);
    await topUp(ledger, c, 100_000);
    const card = await starsCard(c, 50);
    const tap = await c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId });
    expect(tap.callbackAnswer?.text).toMatch(/Paid from your wallet/);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const orderId = onlyOrderId(h);
    const order = await h.app.orders.get(orderId);
    expect(order).toMatchObject({
      rail: "wallet",
      telegramChargeId: `wallet:${orderId}`,
      state: "delivered",
    });
    const audit = await ledger.audit(c.id);
    expect(audit.problems).toEqual([]);
    expect(audit.entries).toHaveLength(2);
    expect(audit.entries[1]).toMatchObject({
      reason: "order",
      orderId,
      ref: `order:${orderId}`,
      amountKopecks: -order!.priceKopecks!,
    });
    expect(audit.balanceKopecks).toBe(100_000 - order!.priceKopecks!);
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("a failed delivery is credited back to the wallet at once, and the final message says so", async () => {
    const { h, ledger } = await shop();
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient cannot receive stars" }));
    const c = newAppCustomer(h.telegram);
    await topUp(ledger, c, 100_000);
    const card = await starsCard(c, 50);
    await c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId });
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toMatch(/is back in your wallet/);
    const orderId = onlyOrderId(h);
    const order = await h.app.orders.get(orderId);
    expect(order).toMatchObject({ state: "failed", refund: "done" });
    const audit = await ledger.audit(c.id);
    expect(audit.problems).toEqual([]);
    expect(audit.balanceKopecks).toBe(100_000);
    const refunds = audit.entries.filter((e) => e.reason === "refund");
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      orderId,
      ref: `refund:${orderId}`,
      amountKopecks: order!.priceKopecks!,
    });
  });

  it("paying from the wallet on a card shown again from /orders moves that card", async () => {
    const { h, ledger } = await shop();
    const c = newAppCustomer(h.telegram);
    await topUp(ledger, c, 100_000);
    const first = await starsCard(c, 50);
    await c.sendText("/orders");
    await c.pressButton(/^1\. #/, T);
    const again = await c.waitFor(
      (msgs) =>
        msgs.some(
          (m) => m.from === "bot" && m.messageId > first.messageId && /🧾 Order #/.test(m.text ?? ""),
        ),
      10_000,
    );
    const shown = again.filter((m) => m.from === "bot" && /🧾 Order #/.test(m.text ?? "")).at(-1)!;
    expect(shown.messageId).not.toBe(first.messageId);
    await c.pressButton(WALLET_BUTTON, { ...T, messageId: shown.messageId });
    await c.waitForBotMessage(DELIVERED, 20_000);
    // The card the customer paid on says delivered, with no pay buttons left on it.
    await c.waitFor(
      (msgs) => /Delivered\./.test(msgs.find((m) => m.messageId === shown.messageId)?.text ?? ""),
      20_000,
    );
    expect(c.buttons(shown.messageId).filter((b) => /Pay|wallet/.test(b))).toEqual([]);
    const order = await h.app.orders.get(onlyOrderId(h));
    expect(order?.cardMessageId).toBe(shown.messageId);
  });

  it("a double tap debits once", async () => {
    const { h, ledger } = await shop();
    const c = newAppCustomer(h.telegram);
    await topUp(ledger, c, 100_000);
    const card = await starsCard(c, 50);
    await Promise.all([
      c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId }),
      c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId }),
    ]);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const orderId = onlyOrderId(h);
    const audit = await ledger.audit(c.id);
    expect(audit.problems).toEqual([]);
    expect(audit.entries.filter((e) => e.reason === "order")).toHaveLength(1);
    const order = await h.app.orders.get(orderId);
    expect(order?.extraCharges ?? []).toEqual([]);
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("a balance below the price: a clear answer, nothing debited, the order stays payable", async () => {
    const { h, ledger } = await shop();
    const c = newAppCustomer(h.telegram);
    await topUp(ledger, c, 100);
    const card = await starsCard(c, 50);
    const refused = await c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId });
    expect(refused.callbackAnswer?.text).toMatch(/Your wallet holds ₽1(\.00)?, the order costs ₽[\d.,]+/);
    expect(refused.callbackAnswer?.text).toMatch(/Top it up with \/wallet/);
    const orderId = onlyOrderId(h);
    expect((await h.app.orders.get(orderId))?.state).toBe("quoted");
    expect((await ledger.audit(c.id)).entries).toHaveLength(1);
    expect(await ledger.balance(c.id)).toBe(100);
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 0 });

    // Topped up, the same card's button pays.
    await topUp(ledger, c, 100_000, "topup:e2e-2");
    const paid = await c.pressButton(WALLET_BUTTON, { ...T, messageId: card.messageId });
    expect(paid.callbackAnswer?.text).toMatch(/Paid from your wallet/);
    await c.waitForBotMessage(DELIVERED, 20_000);
    await eventually(
      async () => ((await h.app.orders.get(orderId))?.state === "delivered" ? true : null),
      10_000,
      "the order to be delivered",
    );
    expect((await ledger.audit(c.id)).entries.filter((e) => e.reason === "order")).toHaveLength(1);
  });
});

describe("finding the wallet", () => {
  it("the menu has a Wallet button and /help a wallet line where the shop offers one, and neither where it does not", async () => {
    h = await startAppHarness({ CHECKOUT: "wallet,stars" });
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("👛 Wallet", T);
    await c.waitForBotMessage(/Your wallet/, 10_000);
    await c.sendText("/help");
    expect((await c.waitForBotMessage(/How it works/, 10_000)).text).toContain("/wallet shows your balance");
    await h.close();

    h = await startAppHarness({ CHECKOUT: "stars" });
    const other = newAppCustomer(h.telegram);
    await other.sendText("/start");
    const menu = await other.waitForBotMessage(/What would you like to buy/, 10_000);
    expect(other.buttons(menu.messageId)).not.toContain("👛 Wallet");
    await other.sendText("/help");
    expect((await other.waitForBotMessage(/How it works/, 10_000)).text).not.toContain("/wallet");
  });
});
