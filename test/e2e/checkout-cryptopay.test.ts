import { afterEach, describe, expect, it } from "vitest";
import type { SandboxInvoice } from "../../sandbox/cryptopay/server.js";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import { createCryptoPayClient } from "../../src/payments/cryptopay/client.js";
import { signCryptoPayUpdate } from "../../src/payments/cryptopay/webhook.js";
import { MAX_AMOUNT_KOPECKS, MAX_BALANCE_KOPECKS, WalletLedger } from "../../src/wallet/ledger.js";
import {
  APP_CRYPTOPAY_TOKEN,
  APP_OPERATOR_ID,
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * Paying an order with Crypto Pay, end to end: the invoice in fiat RUB made on the customer's tap,
 * signed updates re-read with getInvoices, polling for lost updates, and the money of a failed
 * order (or of a second paid invoice) credited to the wallet or left to the operators.
 */

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };
/** The Crypto Pay button: "Pay" when it is the only rail, "Crypto — ₽…" among several. */
const CRYPTO_BUTTON = /^(💳 Pay|🪙 Crypto)/;
const LINK = /@CryptoBot/;

/** The URL of the first URL button on a bot message. */
function urlButton(message: ChatMessage | undefined): string | undefined {
  const rows = (message?.replyMarkup as { inline_keyboard?: { url?: string }[][] } | undefined)
    ?.inline_keyboard;
  return rows?.flat().find((b) => b.url)?.url;
}

/** The card for 50 Stars, a tap on the Crypto Pay button, and the link message with its invoice. */
async function cryptoLink(
  hh: AppHarness,
  c: ChatUser,
): Promise<{ link: ChatMessage; invoice: SandboxInvoice }> {
  const card = await starsCard(c, 50);
  await c.pressButton(CRYPTO_BUTTON, { ...T, messageId: card.messageId });
  const link = await c.waitForBotMessage(LINK, 10_000);
  const invoices = hh.cryptopay.invoices();
  expect(invoices).toHaveLength(1);
  expect(urlButton(link)).toBe(invoices[0]!.bot_invoice_url);
  return { link, invoice: invoices[0]! };
}

/** The only order the reseller sandbox has seen. */
function onlyOrderId(hh: AppHarness): string {
  const orders = hh.sandbox.orders();
  expect(orders).toHaveLength(1);
  return orders[0]!.customId;
}

/** POSTs an update to the app's Crypto Pay route with these headers; the HTTP status. */
async function postUpdate(hh: AppHarness, body: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${hh.listenerUrl}/webhooks/cryptopay`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** An `invoice_paid` update claiming this (unpaid) invoice was paid. */
function paidUpdateBody(invoice: SandboxInvoice): string {
  return JSON.stringify({
    update_id: 9001,
    update_type: "invoice_paid",
    request_date: new Date().toISOString(),
    payload: {
      ...invoice,
      status: "paid",
      paid_asset: "USDT",
      paid_amount: "1.00000000",
      paid_at: new Date().toISOString(),
    },
  });
}

function operatorOf(hh: AppHarness): ChatUser {
  const op = hh.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
  op.startChat();
  return op;
}

describe("the Crypto Pay invoice", () => {
  it("is in fiat RUB with the order in its payload and expires with the quote", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay", QUOTE_TTL_SECONDS: "600" });
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    const order = (await h.app.orders.get(onlyOrderId(h)))!;
    expect(invoice).toMatchObject({ currency_type: "fiat", fiat: "RUB", status: "active" });
    expect(Math.round(Number(invoice.amount) * 100)).toBe(order.priceKopecks);
    expect(invoice.payload).toContain(order.id);
    expect(order.payments).toEqual([
      expect.objectContaining({ rail: "cryptopay", id: String(invoice.invoice_id) }),
    ]);
    // The invoice lives as long as the quote has left (to the second the request was made in).
    const expiry = Date.parse(invoice.expiration_date!);
    expect(Math.abs(expiry - order.expiresAt!)).toBeLessThanOrEqual(2_000);
  });

  it("a double tap makes one invoice; a later tap shows the same one", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    await Promise.all([
      c.pressButton(CRYPTO_BUTTON, { ...T, messageId: card.messageId }),
      c.pressButton(CRYPTO_BUTTON, { ...T, messageId: card.messageId }),
    ]);
    const link = await c.waitForBotMessage(LINK, 10_000);
    await c.pressButton(CRYPTO_BUTTON, { ...T, messageId: card.messageId });
    await c.waitFor((msgs) => msgs.filter((m) => LINK.test(m.text ?? "")).length >= 2, 10_000);
    const invoices = h.cryptopay.invoices();
    expect(invoices).toHaveLength(1);
    const links = c.messages().filter((m) => LINK.test(m.text ?? ""));
    expect(links.map(urlButton)).toEqual(links.map(() => urlButton(link)));
    expect(urlButton(link)).toBe(invoices[0]!.bot_invoice_url);
  });

  it("a createInvoice whose answer is lost: the invoice made is found, never a second one", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const c = newAppCustomer(h.telegram);
    h.cryptopay.fail("createInvoice", "lose_response");
    const { invoice } = await cryptoLink(h, c);
    const creates = () => h!.cryptopay.requests().filter((r) => r.method === "createInvoice").length;
    expect(creates()).toBe(1);
    await h.cryptopay.pay(invoice.invoice_id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    expect(h.sandbox.stats(onlyOrderId(h))).toMatchObject({ pays: 1, charges: 1 });
  });

  it("a tap whose createInvoice answer is lost and not found then: the next tap finds it", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    // The invoice is made but its answer lost, and every look-up for it fails during this tap.
    h.cryptopay.fail("createInvoice", "lose_response");
    h.cryptopay.fail("getInvoices", "500", Number.POSITIVE_INFINITY);
    const failed = await c.pressButton(CRYPTO_BUTTON, { timeoutMs: 30_000, messageId: card.messageId });
    expect(failed.callbackAnswer?.text).toMatch(/could not be opened/);
    expect(h.cryptopay.invoices()).toHaveLength(1);
    h.cryptopay.clearFaults();
    // The failed tap is known to have failed: the next one at once looks for its invoice before creating one.
    await c.pressButton(CRYPTO_BUTTON, { ...T, messageId: card.messageId });
    const link = await c.waitForBotMessage(LINK, 10_000);
    const invoices = h.cryptopay.invoices();
    expect(invoices).toHaveLength(1);
    expect(urlButton(link)).toBe(invoices[0]!.bot_invoice_url);
    expect(h.cryptopay.requests().filter((r) => r.method === "createInvoice")).toHaveLength(1);
  }, 60_000);
});

describe("Crypto Pay updates", () => {
  it("a lost update: the poll job finds the paid invoice and the order is delivered", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    h.cryptopay.setWebhookMode("drop");
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    await h.cryptopay.pay(invoice.invoice_id);
    expect(h.cryptopay.updatesSent()).toEqual([]);
    await c.waitForBotMessage(DELIVERED, 30_000);
    const order = await h.app.orders.get(onlyOrderId(h));
    expect(order).toMatchObject({
      rail: "cryptopay",
      telegramChargeId: `cryptopay:${invoice.invoice_id}`,
      amount: order!.priceKopecks,
    });
    expect(order!.payments).toEqual([expect.objectContaining({ settled: "paid" })]);
    expect(h.sandbox.stats(order!.id)).toMatchObject({ pays: 1, charges: 1 });
  }, 40_000);

  it("an update without a signature, or with a forged one, is refused with 401 and changes nothing", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    const orderId = onlyOrderId(h);
    const body = paidUpdateBody(invoice);
    expect(await postUpdate(h, body, {})).toBe(401);
    const forged = signCryptoPayUpdate(body, `not-${APP_CRYPTOPAY_TOKEN}`);
    expect(await postUpdate(h, body, { "crypto-pay-api-signature": forged })).toBe(401);
    // A real signature over other bytes is as good as none.
    const other = signCryptoPayUpdate(`${body} `, APP_CRYPTOPAY_TOKEN);
    expect(await postUpdate(h, body, { "crypto-pay-api-signature": other })).toBe(401);
    expect((await h.app.orders.get(orderId))?.state).toBe("quoted");
    // Even a correctly signed update is only a hint: the invoice re-read says it is not paid.
    const signed = signCryptoPayUpdate(body, APP_CRYPTOPAY_TOKEN);
    expect(await postUpdate(h, body, { "crypto-pay-api-signature": signed })).toBe(200);
    const order = await h.app.orders.get(orderId);
    expect(order?.state).toBe("quoted");
    expect(order?.telegramChargeId).toBeUndefined();
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 0 });
  });
});

describe("the money of a failed order paid in crypto", () => {
  it("is credited to the wallet once when the shop offers one, and the final message says so", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay,wallet" });
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient cannot receive stars" }));
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    await h.cryptopay.pay(invoice.invoice_id);
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toMatch(/is back in your wallet/);
    const orderId = onlyOrderId(h);
    // The same update once more changes nothing.
    expect(await h.cryptopay.sendUpdate(invoice.invoice_id)).toBe(200);
    const order = await h.app.orders.get(orderId);
    expect(order).toMatchObject({ state: "failed", refund: "done", refundToWallet: true });
    const ledger = new WalletLedger(h.app.redis, h.app.config.redisPrefix);
    const audit = await ledger.audit(c.id);
    expect(audit.problems).toEqual([]);
    expect(audit.entries).toEqual([
      expect.objectContaining({
        reason: "refund",
        orderId,
        ref: `refund:${orderId}`,
        amountKopecks: order!.priceKopecks,
        paymentRef: String(invoice.invoice_id),
      }),
    ]);
    expect(audit.balanceKopecks).toBe(order!.priceKopecks);
  });

  it("is flagged for the operators when the wallet refuses the credit, and the customer is told the shop will refund", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay,wallet" });
    const operator = operatorOf(h);
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient cannot receive stars" }));
    const c = newAppCustomer(h.telegram);
    // A wallet at its highest balance: the refund's credit is refused.
    const ledger = new WalletLedger(h.app.redis, h.app.config.redisPrefix);
    for (let i = 0; i < MAX_BALANCE_KOPECKS / MAX_AMOUNT_KOPECKS; i++) {
      const r = await ledger.credit(c.id, {
        amountKopecks: MAX_AMOUNT_KOPECKS,
        reason: "topup",
        ref: `topup:full-${i}`,
        paymentRef: `full-${i}`,
      });
      expect(r.ok).toBe(true);
    }
    const { invoice } = await cryptoLink(h, c);
    await h.cryptopay.pay(invoice.invoice_id);
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toMatch(/The shop will refund you ₽/);
    expect(final.text).not.toMatch(/wallet/);
    const orderId = onlyOrderId(h);
    await operator.waitForBotMessage(/^💸 Refund needed/, 20_000);
    expect(await h.app.orders.get(orderId)).toMatchObject({ state: "failed", refund: "needed" });
    expect(await ledger.balance(c.id)).toBe(MAX_BALANCE_KOPECKS);
  });

  it("is flagged for the operators without a wallet, and the final message says the shop will refund", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const operator = operatorOf(h);
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient cannot receive stars" }));
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    await h.cryptopay.pay(invoice.invoice_id);
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toMatch(/The shop will refund you ₽/);
    const orderId = onlyOrderId(h);
    const alert = await operator.waitForBotMessage(/^💸 Refund needed/, 20_000);
    expect(alert.text).toContain(`#${orderId.slice(0, 8)}`);
    expect(await h.app.orders.get(orderId)).toMatchObject({ state: "failed", refund: "needed" });
  });
});

describe("a second paid invoice for one order", () => {
  /** Another invoice for the same order, as a second process (or a lost look-up) could have made. */
  async function secondInvoice(hh: AppHarness, orderId: string, kopecks: number): Promise<number> {
    const client = createCryptoPayClient({ apiUrl: hh.cryptopay.apiUrl, token: APP_CRYPTOPAY_TOKEN });
    try {
      const inv = await client.createInvoice({ amountKopecks: kopecks, orderId, payload: "order" });
      return inv.invoiceId;
    } finally {
      await client.close();
    }
  }

  it("is credited to the wallet once when the shop offers one; the order is delivered once", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay,wallet" });
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    const orderId = onlyOrderId(h);
    const price = (await h.app.orders.get(orderId))!.priceKopecks!;
    const second = await secondInvoice(h, orderId, price);
    await h.cryptopay.pay(invoice.invoice_id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    await h.cryptopay.pay(second);
    expect(await h.cryptopay.sendUpdate(second)).toBe(200);
    const ledger = new WalletLedger(h.app.redis, h.app.config.redisPrefix);
    const credited = await eventually(
      async () => {
        const o = await h!.app.orders.get(orderId);
        return o?.extraCharges?.[0]?.refund === "done" ? o : null;
      },
      10_000,
      "the second payment to be credited",
    );
    expect(credited.extraCharges).toEqual([
      expect.objectContaining({ telegramChargeId: `cryptopay:${second}`, amount: price, refund: "done" }),
    ]);
    const audit = await ledger.audit(c.id);
    expect(audit.problems).toEqual([]);
    expect(audit.entries).toEqual([
      expect.objectContaining({
        reason: "refund",
        orderId,
        amountKopecks: price,
        paymentRef: String(second),
      }),
    ]);
    expect(credited).toMatchObject({
      state: "delivered",
      telegramChargeId: `cryptopay:${invoice.invoice_id}`,
    });
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 1, charges: 1 });
    expect(c.messages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);
    // The customer paid on Crypto Pay's side, outside the chat: the chat says where the money went.
    const told = await c.waitForBotMessage(/second payment/, 10_000);
    expect(told.text).toContain(`#${orderId.slice(0, 8)}`);
    expect(told.text).toContain("goes back to your wallet in the bot");
  });

  it("is flagged for the operators without a wallet; the order is delivered once", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay" });
    const operator = operatorOf(h);
    const c = newAppCustomer(h.telegram);
    const { invoice } = await cryptoLink(h, c);
    const orderId = onlyOrderId(h);
    const price = (await h.app.orders.get(orderId))!.priceKopecks!;
    const second = await secondInvoice(h, orderId, price);
    await h.cryptopay.pay(invoice.invoice_id);
    await c.waitForBotMessage(DELIVERED, 20_000);
    await h.cryptopay.pay(second);
    const alert = await operator.waitForBotMessage(/^💳 Second payment/, 20_000);
    expect(alert.text).toContain(`#${orderId.slice(0, 8)}`);
    const order = await h.app.orders.get(orderId);
    expect(order?.extraCharges).toEqual([
      expect.objectContaining({ telegramChargeId: `cryptopay:${second}`, amount: price, refund: "needed" }),
    ]);
    expect(h.sandbox.stats(orderId)).toMatchObject({ pays: 1, charges: 1 });
    expect(c.messages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);
    const told = await c.waitForBotMessage(/second payment/, 10_000);
    expect(told.text).toContain("The shop has been told and will refund this second payment");
  });
});
