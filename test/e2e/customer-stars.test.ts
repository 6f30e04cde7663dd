import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser } from "../../sandbox/telegram/index.js";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  orderIdOf,
  quoteStars,
  startAppHarness,
} from "../helpers/app-harness.js";
import { testRedisUrl } from "../helpers/redis.js";

let h: AppHarness | undefined;

/** In Russian: /start → Telegram Stars → types 100 → types a recipient; resolves with the order card. */
async function russianStarsCard(customer: ChatUser): Promise<ChatMessage> {
  await customer.sendText("/start");
  await customer.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
  await customer.waitForBotMessage(/Сколько звёзд\?/, 10_000);
  await customer.sendText("100");
  await customer.waitForBotMessage(/Кому\?/, 10_000);
  await customer.sendText("@drug_pokupatelya");
  return customer.waitForBotMessage(/Заказ #/, 10_000);
}
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a customer buying Stars end to end", () => {
  it("goes from /start to the delivered message, paying an XTR invoice", async () => {
    h = await startAppHarness();
    const customer = newAppCustomer(h.telegram);
    const invoice = await quoteStars(customer);
    expect(invoice.invoice).toMatchObject({ currency: "XTR" });
    const id = orderIdOf(invoice);
    const paid = await customer.payInvoice({ timeoutMs: 10_000 });
    expect(paid.ok).toBe(true);
    const final = await customer.waitForBotMessage(DELIVERED, 20_000);
    expect(final.text).toContain("50 Telegram Stars");
    expect(final.text).toMatch(/Transaction: \S+/);
    expect(h.sandbox.stats(id)).toMatchObject({ creates: 1, pays: 1, charges: 1 });
    // The card (the message that showed the price) is edited as the order moves.
    const cards = await customer.waitFor(
      (msgs) =>
        msgs.some(
          (m) => m.text?.startsWith(`🧾 Order #${id.slice(0, 8)}`) && m.text.includes("✅ Delivered."),
        ),
      10_000,
    );
    expect(cards.filter((m) => m.text?.startsWith("🧾 Order #"))).toHaveLength(1);
  });

  it("answers the payment with the card already being delivered: one edit of it, none queued for pay's step", async () => {
    h = await startAppHarness();
    const hh = h;
    hh.sandbox.pauseDelivery(true);
    const customer = newAppCustomer(hh.telegram);
    const invoice = await quoteStars(customer);
    const id = orderIdOf(invoice);
    const card = customer.messages().find((m) => m.text?.startsWith(`🧾 Order #${id.slice(0, 8)}`));
    expect(card).toBeDefined();
    const cardEdits = () =>
      hh.telegram
        .calls("editMessageText")
        .filter((c) => c.ok && Number(c.payload.message_id) === card!.messageId)
        .map((c) => String(c.payload.text));
    const before = cardEdits().length;
    expect((await customer.payInvoice({ timeoutMs: 10_000 })).ok).toBe(true);
    await customer.waitFor(
      (msgs) => msgs.some((m) => m.messageId === card!.messageId && /Being delivered/.test(m.text ?? "")),
      10_000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    // The answer showed the order being delivered at once; nothing else edited the card meanwhile.
    const after = cardEdits().slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/Being delivered/);
    hh.sandbox.pauseDelivery(false);
    await customer.waitForBotMessage(DELIVERED, 20_000);
    await customer.waitFor(
      (msgs) => msgs.some((m) => m.messageId === card!.messageId && /✅ Delivered\./.test(m.text ?? "")),
      10_000,
    );
    expect(cardEdits().slice(before)).toHaveLength(2);
  });

  it("answers the Pay tap and the payment in the language chosen, without reading the chat's session", async () => {
    h = await startAppHarness({ DEFAULT_LOCALE: "en" });
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/language");
    await customer.pressButton("🇷🇺 Русский", { timeoutMs: 10_000 });
    await customer.waitForBotMessage(/по-русски/, 10_000);
    const card = await russianStarsCard(customer);
    const session = `${h.env.REDIS_PREFIX}session:${customer.id}`;
    const monitor = new Redis(testRedisUrl());
    // The card is shown before its update's end writes the session (the quote's id): wait for that.
    for (let i = 0; i < 100 && !(await monitor.get(session))?.includes("lastQuoteId"); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const reads: string[] = [];
    await monitor.monitor().then((m) =>
      m.on("monitor", (_time: string, args: string[]) => {
        if (args.includes(session)) reads.push(args.join(" "));
      }),
    );
    try {
      await customer.pressButton(/^💳 Оплатить/, { timeoutMs: 10_000 });
      await customer.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
      const invoice = customer.messages().find((m) => m.invoice);
      expect(invoice?.invoice?.title).toMatch(/^Заказ #/);
      expect((await customer.payInvoice({ timeoutMs: 10_000 })).ok).toBe(true);
      await customer.waitFor(
        (msgs) =>
          msgs.some((m) => m.messageId === card.messageId && /Доставляется|Доставлен/.test(m.text ?? "")),
        10_000,
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(reads).toEqual([]);
    } finally {
      monitor.disconnect();
    }
    expect((await customer.waitForBotMessage(/доставлен/, 20_000)).text).toContain("Транзакция:");
  });

  it("speaks Russian to a Russian customer, all the way", async () => {
    h = await startAppHarness({ DEFAULT_LOCALE: "en" });
    const customer = h.telegram.user({ id: 620_000_001, username: "pokupatel_1", languageCode: "ru" });
    await russianStarsCard(customer);
    expect(customer.lastBotMessage()?.text).toContain("⭐ 100 звёзд Telegram");
    expect(customer.lastBotMessage()?.text).toContain("Кому: @drug_pokupatelya");
    await customer.pressButton(/^💳 Оплатить/, { timeoutMs: 10_000 });
    await customer.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    expect((await customer.payInvoice({ timeoutMs: 10_000 })).ok).toBe(true);
    const final = await customer.waitForBotMessage(/доставлен/, 20_000);
    expect(final.text).toContain("Транзакция:");
  });

  it("never charges twice when Pay is double-tapped and both invoices are paid", async () => {
    h = await startAppHarness();
    const customer = newAppCustomer(h.telegram);
    const invoice = await quoteStars(customer);
    const id = orderIdOf(invoice);
    await customer.pressButton(/^💳 Pay/, { timeoutMs: 10_000 });
    await customer.waitFor((m) => m.filter((x) => x.invoice).length === 2, 10_000);
    const [first, second] = customer.messages().filter((m) => m.invoice);
    expect((await customer.payInvoice({ messageId: first!.messageId, timeoutMs: 10_000 })).ok).toBe(true);
    await customer.waitForBotMessage(DELIVERED, 20_000);
    const again = await customer.payInvoice({ messageId: second!.messageId, timeoutMs: 10_000 });
    expect(again.ok).toBe(false);
    expect(h.sandbox.stats(id)).toMatchObject({ creates: 1, charges: 1 });
    expect(customer.botMessages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);
  });
});
