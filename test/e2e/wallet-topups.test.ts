import { afterEach, describe, expect, it } from "vitest";
import type { EmulatorCore } from "../../sandbox/telegram/core.js";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import type { TopUp } from "../../src/wallet/topup.js";
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
const CREDITED_500 = /Wallet topped up: \+₽500\. Balance: ₽500$/;

function ledgerOf(harness: AppHarness): WalletLedger {
  return new WalletLedger(harness.app.redis, harness.app.config.redisPrefix);
}

/** /wallet → Top up → ₽500: the message with one button per top-up rail. */
async function railPicker(c: ChatUser): Promise<ChatMessage> {
  await c.sendText("/wallet");
  await c.pressButton("➕ Top up", T);
  await c.pressButton("₽500", T);
  return c.waitForBotMessage(/Top up by ₽500/, 10_000);
}

function urlButton(message: ChatMessage | undefined): string | undefined {
  const rows = (message?.replyMarkup as { inline_keyboard?: { url?: string }[][] } | undefined)
    ?.inline_keyboard;
  return rows?.flat().find((b) => b.url)?.url;
}

/** Sends a pre_checkout_query as Telegram would and waits for the bot's answer. */
async function preCheckout(
  harness: AppHarness,
  c: ChatUser,
  q: { payload: string; currency: string; total: number },
): Promise<{ ok: boolean; error?: string } | null> {
  const core = (harness.telegram as unknown as { core: EmulatorCore }).core;
  const id = core.newQueryId();
  const answer = core.waitForAnswer(core.preCheckoutQueries, id, c.id, 10_000);
  await c.sendUpdate({
    pre_checkout_query: {
      id,
      from: { id: c.id, is_bot: false, first_name: "Buyer", language_code: "en" },
      currency: q.currency,
      total_amount: q.total,
      invoice_payload: q.payload,
    },
  });
  return answer;
}

async function topUpRecord(harness: AppHarness, id: string): Promise<TopUp | null> {
  return (await harness.app.orders.topups?.get(id)) ?? null;
}

describe("wallet top-ups", () => {
  it("Stars: the invoice is credited once, even when the payment is handled twice; then a wallet purchase", async () => {
    h = await startAppHarness({ CHECKOUT: "stars,wallet" });
    const c = newAppCustomer(h.telegram);
    const picker = await railPicker(c);
    await c.pressButton(/^⭐ Telegram Stars — 334 ⭐/, { ...T, messageId: picker.messageId });
    const [invoiceMessage] = await c.waitFor((m) => m.some((x) => x.invoice !== undefined), 10_000);
    const invoice = c.messages().find((m) => m.invoice)?.invoice ?? invoiceMessage?.invoice;
    expect(invoice).toMatchObject({ currency: "XTR", totalAmount: 334 });
    expect(invoice?.payload).toMatch(/^topup:[0-9a-f-]{36}$/);

    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(CREDITED_500, 10_000);
    // The same successful_payment once more (a redelivered update): no second credit.
    const paid = c.messages().find((m) => m.successfulPayment !== undefined);
    await c.sendUpdate({ message: { successful_payment: paid?.successfulPayment } });
    await c.waitFor((m) => m.filter((x) => x.from === "bot" && CREDITED_500.test(x.text ?? "")).length >= 2);

    const ledger = ledgerOf(h);
    const { entries, balanceKopecks } = await ledger.entries(c.id);
    expect(balanceKopecks).toBe(50_000);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ reason: "topup", amountKopecks: 50_000 });
    expect(entries[0]?.ref).toMatch(/^topup:stars:stx/);
    const record = await topUpRecord(h, invoice?.payload.slice("topup:".length) ?? "");
    expect(record).toMatchObject({ state: "paid", userId: c.id, amountKopecks: 50_000 });

    // The topped-up money pays an order in one tap.
    const card = await starsCard(c, 50);
    const tap = await c.pressButton(/^👛 From my wallet/, { ...T, messageId: card.messageId });
    expect(tap.callbackAnswer?.text).toMatch(/Paid from your wallet/);
    await c.waitForBotMessage(DELIVERED, 20_000);
    const after = await ledger.audit(c.id);
    expect(after.problems).toEqual([]);
    expect(after.entries.map((e) => e.reason)).toEqual(["topup", "order"]);
    expect(after.balanceKopecks).toBe(50_000 + (after.entries[1]?.amountKopecks ?? 0));
  });

  it("a sticker instead of the typed amount gets the rule and the question again; the amount typed next is taken", async () => {
    h = await startAppHarness({ CHECKOUT: "stars,wallet" });
    const c = newAppCustomer(h.telegram);
    await c.sendText("/wallet");
    await c.pressButton("➕ Top up", T);
    await c.pressButton("✏️ Other amount", T);
    await c.waitForBotMessage("How much to top up?", 10_000);
    const before = c.botMessages().length;
    await c.sendUpdate({
      message: {
        sticker: {
          file_id: "s1",
          file_unique_id: "s1u",
          type: "regular",
          width: 512,
          height: 512,
          is_animated: false,
          is_video: false,
        },
      },
    });
    await c.waitFor(() => c.botMessages().length > before, 10_000);
    const reply = c.botMessages().at(-1)!;
    expect(reply.text).toContain("Please answer with a text message");
    expect(reply.text).toContain("How much to top up?");
    await c.sendText("500");
    await c.waitForBotMessage(/Top up by ₽500/, 10_000);
  });

  it("pre-checkout of a top-up: forged, malformed, another customer's or a changed amount is refused", async () => {
    h = await startAppHarness({ CHECKOUT: "stars,wallet" });
    const c = newAppCustomer(h.telegram);
    const other = newAppCustomer(h.telegram);
    const picker = await railPicker(c);
    await c.pressButton(/^⭐ Telegram Stars/, { ...T, messageId: picker.messageId });
    await c.waitFor((m) => m.some((x) => x.invoice !== undefined), 10_000);
    const payload = c.messages().find((m) => m.invoice)?.invoice?.payload ?? "";

    const forged = await preCheckout(h, c, {
      payload: "topup:00000000-0000-4000-8000-000000000000",
      currency: "XTR",
      total: 334,
    });
    expect(forged).toMatchObject({ ok: false, error: expect.stringMatching(/top-up does not exist/) });
    const malformed = await preCheckout(h, c, { payload: "topup:../../x", currency: "XTR", total: 334 });
    expect(malformed).toMatchObject({ ok: false, error: expect.stringMatching(/top-up does not exist/) });
    const stranger = await preCheckout(h, other, { payload, currency: "XTR", total: 334 });
    expect(stranger).toMatchObject({ ok: false, error: expect.stringMatching(/someone else/) });
    const cheaper = await preCheckout(h, c, { payload, currency: "XTR", total: 1 });
    expect(cheaper).toMatchObject({ ok: false, error: expect.stringMatching(/does not match/) });
    const roubles = await preCheckout(h, c, { payload, currency: "RUB", total: 50_000 });
    expect(roubles).toMatchObject({ ok: false, error: expect.stringMatching(/does not match/) });
    expect(await preCheckout(h, c, { payload, currency: "XTR", total: 334 })).toMatchObject({ ok: true });
    expect((await ledgerOf(h).entries(c.id)).total).toBe(0);
  });

  it("YooKassa: a double tap makes one payment; paid → credited once and the customer told", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,wallet" });
    const c = newAppCustomer(h.telegram);
    const picker = await railPicker(c);
    await Promise.all([
      c.pressButton(/^💳 Card or SBP — ₽500/, { ...T, messageId: picker.messageId }),
      c.pressButton(/^💳 Card or SBP — ₽500/, { ...T, messageId: picker.messageId }),
    ]);
    const link = await c.waitForBotMessage(/Top-up by ₽500: pay by card or SBP/, 10_000);
    expect(h.yookassa.payments()).toHaveLength(1);
    const payment = h.yookassa.payments()[0]!;
    expect(payment.metadata).toMatchObject({ purpose: "topup" });
    expect(urlButton(link)).toContain(payment.id);

    h.yookassa.succeedPayment(payment.id);
    await c.waitForBotMessage(CREDITED_500, 15_000);
    // The same notification again (a provider's retry) changes nothing.
    await h.app.orders
      .onPaymentHint("yookassa", payment.id)
      .then((s) => s && h?.app.orders.topups?.applyStatus(s));
    const ledger = ledgerOf(h);
    const { entries, balanceKopecks } = await ledger.entries(c.id);
    expect(balanceKopecks).toBe(50_000);
    expect(entries.map((e) => e.ref)).toEqual([`topup:yookassa:${payment.id}`]);
    expect(c.botMessages().filter((m) => CREDITED_500.test(m.text ?? ""))).toHaveLength(1);
  });

  it("YooKassa: a lost notification is made up for by the poll", async () => {
    h = await startAppHarness({ CHECKOUT: "yookassa,wallet" });
    h.yookassa.setNotifications("drop");
    const c = newAppCustomer(h.telegram);
    const picker = await railPicker(c);
    await c.pressButton(/^💳 Card or SBP/, { ...T, messageId: picker.messageId });
    await c.waitForBotMessage(/Top-up by ₽500/, 10_000);
    const payment = h.yookassa.payments()[0]!;
    h.yookassa.succeedPayment(payment.id);
    await c.waitForBotMessage(CREDITED_500, 25_000);
    expect(await ledgerOf(h).balance(c.id)).toBe(50_000);
  }, 40_000);

  it("Crypto Pay: the paid invoice is credited and the customer told; a forged update is refused", async () => {
    h = await startAppHarness({ CHECKOUT: "cryptopay,wallet" });
    const c = newAppCustomer(h.telegram);
    const picker = await railPicker(c);
    await c.pressButton(/^🪙 Crypto — ₽500/, { ...T, messageId: picker.messageId });
    await c.waitForBotMessage(/Top-up by ₽500: pay in the coin of your choice in @CryptoBot/, 10_000);
    const [invoice] = h.cryptopay.invoices();
    expect(invoice).toMatchObject({ fiat: "RUB" });
    await h.cryptopay.pay(invoice!.invoice_id);
    await c.waitForBotMessage(CREDITED_500, 15_000);
    expect(await h.cryptopay.sendUpdate(invoice!.invoice_id, { forge: true })).toBe(401);
    const { entries } = await ledgerOf(h).entries(c.id);
    expect(entries.map((e) => e.ref)).toEqual([`topup:cryptopay:${invoice!.invoice_id}`]);
  });
});
