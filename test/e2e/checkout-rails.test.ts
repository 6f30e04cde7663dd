import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };

/** The URL of the first URL button on a bot message. */
function urlButton(message: ChatMessage | undefined): string | undefined {
  const rows = (message?.replyMarkup as { inline_keyboard?: { url?: string }[][] } | undefined)
    ?.inline_keyboard;
  return rows?.flat().find((b) => b.url)?.url;
}

async function linkMessage(c: ChatUser, text: RegExp): Promise<ChatMessage> {
  return c.waitForBotMessage(text, 10_000);
}

describe("several rails on one order card", () => {
  it("offers every rail of CHECKOUT in order, each with its price in its own unit", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,cryptopay,wallet,stars" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    const labels = c.buttons(card.messageId);
    expect(labels[0]).toMatch(/^💳 Card or SBP — ₽\d+/);
    expect(labels[1]).toMatch(/^🪙 Crypto — ₽\d+/);
    expect(labels[2]).toMatch(/^👛 From my wallet — ₽\d+/);
    expect(labels[3]).toMatch(/^⭐ Telegram Stars — \d+ ⭐/);
    expect(labels[4]).toBe("✖️ Cancel");
  });

  it("YooKassa: one payment for a double tap, paid on the page, then delivered", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,stars" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    await Promise.all([
      c.pressButton(/^💳 Card or SBP/, { ...T, messageId: card.messageId }),
      c.pressButton(/^💳 Card or SBP/, { ...T, messageId: card.messageId }),
    ]);
    const link = await linkMessage(c, /by card or SBP on YooKassa/);
    expect(h.yookassa.payments()).toHaveLength(1);
    const payment = h.yookassa.payments()[0]!;
    expect(urlButton(link)).toContain(payment.id);
    h.yookassa.succeedPayment(payment.id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const [order] = h.sandbox.orders();
    expect(h.sandbox.stats(order!.customId)).toMatchObject({ pays: 1, charges: 1 });
  });

  it("Crypto Pay: paid invoice delivered; a forged update is refused with 401", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const c = newAppCustomer(h.telegram);
    await starsCard(c, 50);
    await c.pressButton(/^💳 Pay/, T);
    await linkMessage(c, /@CryptoBot/);
    const [invoice] = h.cryptopay.invoices();
    expect(invoice?.fiat).toBe("RUB");
    await h.cryptopay.pay(invoice!.invoice_id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    expect(await h.cryptopay.sendUpdate(invoice!.invoice_id, { forge: true })).toBe(401);
  });

  it("wallet: refused without money; paid in one tap after a credit", async () => {
    h = await startAppHarness({ CHECKOUT: "wallet,stars" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    const refused = await c.pressButton(/^👛 From my wallet/, { ...T, messageId: card.messageId });
    expect(refused.callbackAnswer?.text).toMatch(/wallet holds ₽0/);
    const ledger = new WalletLedger(h.app.redis, h.app.config.redisPrefix);
    await ledger.credit(c.id, {
      amountKopecks: 100_000,
      reason: "topup",
      ref: "topup:test-1",
      paymentRef: "t1",
    });
    const paid = await c.pressButton(/^👛 From my wallet/, { ...T, messageId: card.messageId });
    expect(paid.callbackAnswer?.text).toMatch(/Paid from your wallet/);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const [order] = h.sandbox.orders();
    const { entries, balanceKopecks } = await ledger.entries(c.id);
    expect(entries[0]).toMatchObject({ reason: "order", orderId: order!.customId });
    expect(balanceKopecks).toBe(100_000 + entries[0]!.amountKopecks);
    expect((await ledger.audit(c.id)).problems).toEqual([]);
  });
});
