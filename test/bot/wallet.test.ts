import { afterEach, describe, expect, it } from "vitest";
import { commandList } from "../../src/bot/commands.js";
import { topUpRails } from "../../src/bot/format/rails.js";
import { renderTopUpRails } from "../../src/bot/format/wallet.js";
import { createI18n, translator } from "../../src/bot/i18n.js";
import { decodeTopUp, encodeTopUp } from "../../src/bot/keyboards/callbacks.js";
import { sessionKey } from "../../src/bot/redis-keys.js";
import { parseSignedRub } from "../../src/bot/validate.js";
import type { WalletLedger } from "../../src/wallet/ledger.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { ALICE, BORIS, callbackUpdate, type TestUser, textUpdate } from "./helpers/updates.js";

/** The harness's operator (OPERATOR_IDS=7001). */
const OLGA: TestUser = { id: 7001, first_name: "Olga", language_code: "en" };
const ORDER_A = "1a2b3c4d-0000-4000-8000-000000000001";
const ORDER_B = "5e6f7a8b-0000-4000-8000-000000000002";

let h: BotHarness;
afterEach(async () => {
  await h?.close();
  // Tests without a bot leave nothing to close.
  h = undefined as unknown as BotHarness;
});

async function walletBot(env: Record<string, string> = {}): Promise<WalletLedger> {
  h = await startBotHarness(env, undefined, { wallet: true });
  if (!h.wallet) throw new Error("no wallet");
  return h.wallet;
}

const press = (label: string | RegExp, user = ALICE) => h.send(callbackUpdate(user, h.tg.button(label).data));
const labels = () => h.tg.lastButtons().map((b) => b.text);
const callbackAnswers = () => h.tg.of("answerCallbackQuery").map((c) => c.payload.text);

/** Seven entries for ALICE, oldest first: balance 300 − 110 + 110 + 15 + 150 + 500 − 64.50 = 900.50 ₽. */
async function seedAlice(w: WalletLedger): Promise<void> {
  await w.credit(ALICE.id, { amountKopecks: 30_000, reason: "topup", ref: "topup:p1", paymentRef: "p1" });
  await w.debit(ALICE.id, {
    amountKopecks: 11_000,
    reason: "order",
    ref: `order:${ORDER_A}`,
    orderId: ORDER_A,
  });
  await w.credit(ALICE.id, {
    amountKopecks: 11_000,
    reason: "refund",
    ref: `refund:${ORDER_A}`,
    orderId: ORDER_A,
  });
  await w.credit(ALICE.id, {
    amountKopecks: 1_500,
    reason: "referral",
    ref: `referral:${ORDER_B}`,
    orderId: ORDER_B,
  });
  await w.adjust(ALICE.id, {
    amountKopecks: 15_000,
    note: "sorry <for> the delay",
    by: OLGA.id,
    ref: "adjust:a1",
  });
  await w.credit(ALICE.id, { amountKopecks: 50_000, reason: "topup", ref: "topup:p2", paymentRef: "p2" });
  await w.debit(ALICE.id, {
    amountKopecks: 6_450,
    reason: "order",
    ref: `order:${ORDER_B}`,
    orderId: ORDER_B,
  });
}

describe("/wallet for customers", () => {
  it("shows the balance and the last five entries, newest first, each with its reason in words", async () => {
    const w = await walletBot();
    await seedAlice(w);
    await h.send(textUpdate(ALICE, "/wallet"));
    const text = h.tg.lastText();
    expect(text).toContain("Your wallet");
    expect(text).toContain("Balance: <b>₽900.50</b>");
    expect(text).toContain("Entries 1–5 of 7");
    const lines = text.split("\n").filter((l) => l.includes(" · "));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/<b>−₽64\.50<\/b> · order #5e6f7a8b$/);
    expect(lines[1]).toMatch(/<b>\+₽500<\/b> · top-up$/);
    expect(lines[2]).toMatch(/<b>\+₽150<\/b> · correction by the shop: sorry &lt;for&gt; the delay$/);
    expect(lines[3]).toMatch(/<b>\+₽15<\/b> · referral bonus$/);
    expect(lines[4]).toMatch(/<b>\+₽110<\/b> · refund for order #1a2b3c4d$/);
    const day = new Intl.DateTimeFormat("en-US", {
      day: "numeric",
      month: "short",
      year: "numeric",
      timeZone: "UTC",
    });
    expect(lines[0]?.startsWith(day.format(Date.now()))).toBe(true);
    expect(h.tg.lastButtons()).toEqual([
      { text: "Older ›", data: "w:p:5" },
      { text: "➕ Top up", data: "w:t" },
    ]);
  });

  it("pages to older and newer entries by editing the message", async () => {
    const w = await walletBot();
    await seedAlice(w);
    await h.send(textUpdate(ALICE, "/wallet"));
    const messageId = h.tg.last("sendMessage")?.payload;
    expect(messageId).toBeDefined();
    await press("Older ›");
    const edit = h.tg.last("editMessageText")!;
    expect(edit.payload.message_id).toBe(100);
    expect(String(edit.payload.text)).toContain("Entries 6–7 of 7");
    expect(String(edit.payload.text)).toContain("order #1a2b3c4d");
    expect(String(edit.payload.text)).toMatch(/\+₽300<\/b> · top-up/);
    expect(h.tg.lastButtons().map((b) => b.data)).toEqual(["w:p:0", "w:t"]);
    await press("‹ Newer");
    expect(h.tg.lastText()).toContain("Entries 1–5 of 7");
    // A page past the end (the button was forged or the list changed) shows the last page.
    await h.send(callbackUpdate(ALICE, "w:p:9995"));
    expect(h.tg.lastText()).toContain("Entries 6–7 of 7");
  });

  it("says there are no entries yet for a new wallet", async () => {
    await walletBot();
    await h.send(textUpdate(BORIS, "/wallet"));
    expect(h.tg.lastText().replace(/\s/g, " ")).toContain("Баланс: <b>0 ₽</b>");
    expect(h.tg.lastText()).toContain("Пополнений и списаний пока не было.");
    expect(labels()).toEqual(["➕ Пополнить"]);
  });

  it("answers that the wallet is not available when the shop does not offer it", async () => {
    h = await startBotHarness();
    await h.send(textUpdate(ALICE, "/wallet"));
    expect(h.tg.lastText()).toBe(
      "👛 The wallet is not available in this shop. You pay for each order on its card.",
    );
    h.tg.reset();
    await h.send(callbackUpdate(ALICE, "w:t"));
    expect(h.tg.texts()).toEqual([]);
    expect(callbackAnswers()).toEqual(["This button is no longer active."]);
  });

  it("lists /wallet in the command menu only where the wallet is offered", () => {
    const i18n = createI18n({ defaultLocale: "en" });
    const names = (operator: boolean, wallet: boolean) =>
      commandList(i18n, "en", operator, wallet).map((c) => c.command);
    expect(names(false, false)).not.toContain("wallet");
    expect(names(false, true)).toContain("wallet");
    expect(commandList(i18n, "en", true, true).find((c) => c.command === "wallet")?.description).toContain(
      "Operator",
    );
  });
});

describe("topping up", () => {
  it("offers the preset amounts, then one button per rail with its price and top-up data", async () => {
    await walletBot({ STAR_PRICE_RUB: "1.5" });
    await h.send(textUpdate(ALICE, "/wallet"));
    await press("➕ Top up");
    expect(h.tg.lastText()).toContain("How much to top up?");
    expect(labels()).toEqual(["₽100", "₽300", "₽500", "₽1,000", "₽3,000", "✏️ Other amount", "‹ Back"]);
    await press("₽300");
    expect(h.tg.lastText()).toContain("Top up by ₽300");
    expect(h.tg.lastButtons()).toEqual([
      { text: "⭐ Telegram Stars — 200 ⭐", data: "tu:stars:30000" },
      { text: "‹ Back", data: "w:t" },
    ]);
  });

  it("ends a typed amount with /cancel: the next number is no amount", async () => {
    await walletBot();
    await h.send(textUpdate(ALICE, "/wallet"));
    await press("➕ Top up");
    await press("✏️ Other amount");
    await h.send(textUpdate(ALICE, "/cancel"));
    // Said so that it does not read as a cancelled order.
    expect(h.tg.lastText()).toBe(
      "✖️ Cancelled: I am no longer waiting for that answer. Nothing else changed.",
    );
    await h.send(textUpdate(ALICE, "300"));
    expect(h.tg.lastText()).not.toContain("Top up by");
  });

  it("prices a rouble rail in roubles", async () => {
    await walletBot({ CHECKOUT: "invoice", PAYMENT_PROVIDER_TOKEN: "284685063:TEST:abc" });
    await h.send(textUpdate(BORIS, "/wallet"));
    await press("➕ Пополнить", BORIS);
    await press(/^1\s000\s₽$/, BORIS);
    expect(h.tg.button(/Оплата в Telegram/).text).toMatch(/^💳 Оплата в Telegram — 1\s000\s₽$/);
    expect(h.tg.button(/Оплата в Telegram/).data).toBe("tu:invoice:100000");
  });

  it("shows every rail of a CHECKOUT list but the wallet and direct, in its order", () => {
    const t = translator(createI18n({ defaultLocale: "en" }), "en");
    const rails = topUpRails(["yookassa", "wallet", "stars", "direct", "cryptopay", "invoice"]);
    expect(rails).toEqual(["yookassa", "stars", "cryptopay", "invoice"]);
    expect(topUpRails("stars")).toEqual(["stars"]);
    expect(topUpRails("direct")).toEqual([]);
    const view = renderTopUpRails(30_000, rails, { t, locale: "en", starPriceRub: 4.5 });
    const buttons = view.keyboard?.inline_keyboard
      .flat()
      .map((b) => [b.text, "callback_data" in b ? b.callback_data : ""]);
    expect(buttons).toEqual([
      ["💳 Card or SBP — ₽300", "tu:yookassa:30000"],
      ["⭐ Telegram Stars — 67 ⭐", "tu:stars:30000"],
      ["🪙 Crypto — ₽300", "tu:cryptopay:30000"],
      ["💳 Telegram payment — ₽300", "tu:invoice:30000"],
      ["‹ Back", "w:t"],
    ]);
  });

  it("encodes and decodes top-up data, refusing anything outside the rule", () => {
    expect(encodeTopUp("cryptopay", 10_000_000)).toBe("tu:cryptopay:10000000");
    expect(decodeTopUp("tu:cryptopay:10000000")).toEqual({ rail: "cryptopay", amountKopecks: 10_000_000 });
    expect(decodeTopUp("tu:stars:1000")).toEqual({ rail: "stars", amountKopecks: 1_000 });
    for (const bad of [
      "tu:stars:999",
      "tu:stars:10000100",
      "tu:stars:30050",
      "tu:wallet:30000",
      "tu:direct:30000",
      "tu:stars:",
      "pay:x",
    ]) {
      expect(decodeTopUp(bad), bad).toBeNull();
    }
  });

  it("asks for another amount and answers a typo with the rule and the question again", async () => {
    await walletBot();
    await h.send(textUpdate(ALICE, "/wallet"));
    await press("➕ Top up");
    await press("✏️ Other amount");
    expect(h.tg.lastText()).toContain("Send a whole number of roubles from ₽10 to ₽100,000.");
    expect(labels()).toEqual(["✖️ Cancel"]);
    for (const [typed, rule] of [
      ["12.5", "Send a whole number, without a fraction."],
      ["5", "The smallest amount is ₽10."],
      ["200000", "The largest amount is ₽100,000."],
      ["three hundred", "Send a whole number from ₽10 to ₽100,000, digits only."],
    ] as const) {
      h.tg.reset();
      await h.send(textUpdate(ALICE, typed));
      expect(h.tg.texts()).toHaveLength(1);
      expect(h.tg.lastText()).toBe(
        `⚠️ ${rule}\n\n✏️ <b>How much to top up?</b>\nSend a whole number of roubles from ₽10 to ₽100,000.`,
      );
      expect(labels()).toEqual(["✖️ Cancel"]);
    }
    await h.send(textUpdate(ALICE, "1 500"));
    expect(h.tg.lastText()).toContain("Top up by ₽1,500");
    expect(h.tg.button(/Stars/).data).toBe("tu:stars:150000");
    // The question was answered: the next text is not taken as an amount.
    await h.send(textUpdate(ALICE, "700"));
    expect(h.tg.lastText()).toContain("I did not understand that");
  });

  it("keeps the typed question across a restart and forgets it on Cancel or another command", async () => {
    await walletBot();
    await h.send(textUpdate(ALICE, "/wallet"));
    await press("➕ Top up");
    await press("✏️ Other amount");
    h.restart();
    await h.send(textUpdate(ALICE, "250"));
    expect(h.tg.button(/Stars/).data).toBe("tu:stars:25000");

    await press("‹ Back");
    await press("✏️ Other amount");
    await press("✖️ Cancel");
    expect(h.tg.lastText()).toContain("Your wallet");
    await h.send(textUpdate(ALICE, "500"));
    expect(h.tg.lastText()).toContain("I did not understand that");

    await h.send(textUpdate(ALICE, "/wallet"));
    await press("➕ Top up");
    await press("✏️ Other amount");
    await h.send(textUpdate(ALICE, "/help"));
    await h.send(textUpdate(ALICE, "500"));
    expect(h.tg.lastText()).toContain("I did not understand that");
  });
});

describe("/wallet <user id> for operators", () => {
  /** Opens ALICE's wallet as the operator and walks Adjust up to the confirmation. */
  async function adjustUpTo(amount: string, note: string): Promise<void> {
    await h.send(textUpdate(OLGA, `/wallet ${ALICE.id}`));
    await press("✏️ Adjust", OLGA);
    await h.send(textUpdate(OLGA, amount));
    await h.send(textUpdate(OLGA, note));
  }

  it("shows a customer's balance and entries with paging", async () => {
    const w = await walletBot();
    await seedAlice(w);
    await h.send(textUpdate(OLGA, `/wallet ${ALICE.id}`));
    const text = h.tg.lastText();
    expect(text).toContain("Wallet of customer</b> <code>5001</code>");
    expect(text).toContain("Balance: <b>₽900.50</b>");
    expect(text).toContain("Entries 1–5 of 7");
    expect(text).toMatch(
      /correction by the shop: sorry &lt;for&gt; the delay · by <code>7001<\/code> · <code>adjust:a1<\/code>/,
    );
    expect(h.tg.lastButtons().map((b) => b.data)).toEqual([
      `ow:p:${ALICE.id}:5`,
      `ow:a:${ALICE.id}`,
      `ow:p:${ALICE.id}:0`,
    ]);
    await press("Older ›", OLGA);
    expect(h.tg.lastText()).toContain("Entries 6–7 of 7");
    await h.send(textUpdate(OLGA, "/wallet alice"));
    expect(h.tg.lastText()).toContain("/wallet 123456789");
  });

  it("warns under the title when the id has never written to the bot", async () => {
    await walletBot();
    await h.send(textUpdate(ALICE, "/start"));
    await h.send(textUpdate(OLGA, `/wallet ${ALICE.id}`));
    expect(h.tg.lastText()).not.toContain("never written to the bot");
    await h.send(textUpdate(OLGA, "/wallet 99999999"));
    expect(h.tg.lastText()).toContain("Wallet of customer</b> <code>99999999</code>");
    expect(h.tg.lastText()).toContain("⚠️ This id has never written to the bot");
    await h.send(textUpdate(OLGA, "/customer 99999999"));
    expect(h.tg.lastText()).toContain("⚠️ This id has never written to the bot");
    await h.send(textUpdate(OLGA, `/customer ${ALICE.id}`));
    expect(h.tg.lastText()).not.toContain("never written to the bot");
  });

  it("adjusts once when Confirm is tapped twice", async () => {
    const w = await walletBot();
    await w.credit(ALICE.id, { amountKopecks: 10_000, reason: "topup", ref: "topup:p1" });
    await h.send(textUpdate(OLGA, `/wallet ${ALICE.id}`));
    await press("✏️ Adjust", OLGA);
    expect(h.tg.lastText()).toContain("Send the signed amount in roubles");
    await h.send(textUpdate(OLGA, "+1.505"));
    expect(h.tg.lastText()).toMatch(
      /^⚠️ Send a signed amount in roubles.*\n\n✏️ <b>Correct the wallet of<\/b>/,
    );
    await h.send(textUpdate(OLGA, "+150"));
    expect(h.tg.lastText()).toContain("<b>+₽150</b> for <code>5001</code>");
    await h.send(textUpdate(OLGA, "x".repeat(201)));
    expect(h.tg.lastText()).toMatch(
      /^⚠️ A reason is required: one line of at most 200 characters\.\n\n✏️ <b>\+₽150<\/b>/,
    );
    await h.send(textUpdate(OLGA, "  goodwill for order #1a2b  "));
    const confirm = h.tg.lastText();
    expect(confirm).toContain("Amount: <b>+₽150</b>");
    expect(confirm).toContain("Reason: goodwill for order #1a2b");
    expect(confirm).toContain("Balance now: ₽100");
    const data = h.tg.button("✅ Confirm").data;
    expect(data).toMatch(new RegExp(`^ow:y:${ALICE.id}:[0-9a-f-]{36}$`));

    h.tg.reset();
    await Promise.all([h.send(callbackUpdate(OLGA, data)), h.send(callbackUpdate(OLGA, data))]);
    await h.send(callbackUpdate(OLGA, data));
    const audit = await w.audit(ALICE.id);
    expect(audit.problems).toEqual([]);
    expect(audit.balanceKopecks).toBe(25_000);
    const adjustments = audit.entries.filter((e) => e.reason === "adjustment");
    expect(adjustments).toHaveLength(1);
    expect(adjustments[0]).toMatchObject({
      amountKopecks: 15_000,
      note: "goodwill for order #1a2b",
      by: OLGA.id,
      ref: `adjust:${data.split(":").slice(3).join(":")}`,
    });
    expect(h.tg.texts()[0]).toContain("✅ Applied: +₽150. Balance: ₽250.");
    expect(callbackAnswers().filter((t) => t === "This correction was already applied.")).toHaveLength(2);
  });

  it("adjusts once when a second process confirms from the session it read before the first tap", async () => {
    const w = await walletBot();
    await w.credit(ALICE.id, { amountKopecks: 5_000, reason: "topup", ref: "topup:p1" });
    await adjustUpTo("-20.50", "duplicate top-up");
    const data = h.tg.button("✅ Confirm").data;
    const key = sessionKey(h.config.redisChatPrefix, OLGA.id);
    const before = await h.redis.get(key);
    expect(before).toContain("adjust-confirm");
    await h.send(callbackUpdate(OLGA, data));
    await h.redis.set(key, before ?? "");
    h.restart();
    await h.send(callbackUpdate(OLGA, data));
    expect(h.tg.lastText()).toContain("This correction was already applied (−₽20.50). Balance: ₽29.50.");
    const audit = await w.audit(ALICE.id);
    expect(audit.balanceKopecks).toBe(2_950);
    expect(audit.entries.filter((e) => e.reason === "adjustment")).toHaveLength(1);
  });

  it("refuses a debit beyond the balance, showing the balance, and changes nothing", async () => {
    const w = await walletBot();
    await w.credit(ALICE.id, { amountKopecks: 10_000, reason: "topup", ref: "topup:p1" });
    await h.send(textUpdate(OLGA, `/wallet ${ALICE.id}`));
    await press("✏️ Adjust", OLGA);
    await h.send(textUpdate(OLGA, "-150"));
    expect(h.tg.lastText()).toContain(
      "⛔ Refused: the balance is ₽100, so −₽150 cannot be taken. Nothing changed.",
    );
    expect(h.tg.lastText()).toContain("Send the signed amount in roubles");

    // The balance drops between the confirmation and the tap: the ledger refuses at Confirm.
    await h.send(textUpdate(OLGA, "-80"));
    await h.send(textUpdate(OLGA, "duplicate top-up"));
    await w.debit(ALICE.id, {
      amountKopecks: 5_000,
      reason: "order",
      ref: `order:${ORDER_A}`,
      orderId: ORDER_A,
    });
    await press("✅ Confirm", OLGA);
    expect(h.tg.lastText()).toContain(
      "⛔ Refused: the balance is ₽50, so −₽80 cannot be taken. Nothing changed.",
    );
    const audit = await w.audit(ALICE.id);
    expect(audit.balanceKopecks).toBe(5_000);
    expect(audit.entries.map((e) => e.reason)).toEqual(["topup", "order"]);
  });

  it("lets a customer neither look up nor adjust another customer's wallet", async () => {
    const w = await walletBot();
    await w.credit(BORIS.id, { amountKopecks: 70_000, reason: "topup", ref: "topup:b1" });
    await w.credit(ALICE.id, { amountKopecks: 1_000, reason: "topup", ref: "topup:a1" });
    await h.send(textUpdate(ALICE, `/wallet ${BORIS.id}`));
    expect(h.tg.lastText()).toContain("Your wallet");
    expect(h.tg.lastText()).toContain("Balance: <b>₽10</b>");
    expect(h.tg.lastText()).not.toContain("700");

    h.tg.reset();
    const uuid = "0b7c1c1e-8d5e-4f6a-9c1d-2e3f4a5b6c7d";
    await h.send(callbackUpdate(ALICE, `ow:p:${BORIS.id}:0`));
    await h.send(callbackUpdate(ALICE, `ow:a:${BORIS.id}`));
    await h.send(textUpdate(ALICE, "+5000"));
    await h.send(callbackUpdate(ALICE, `ow:y:${BORIS.id}:${uuid}`));
    expect(h.tg.texts()).toEqual(["I did not understand that. Send /start to see what you can buy."]);
    const audit = await w.audit(BORIS.id);
    expect(audit.balanceKopecks).toBe(70_000);
    expect(audit.entries).toHaveLength(1);
    expect(await w.entryByRef(BORIS.id, `adjust:${uuid}`)).toBeNull();
  });
});

describe("parseSignedRub", () => {
  it("reads signed roubles with up to two decimals into kopecks", () => {
    expect(parseSignedRub("+150")).toEqual({ ok: true, value: 15_000 });
    expect(parseSignedRub("-20.50")).toEqual({ ok: true, value: -2_050 });
    expect(parseSignedRub("−20,5")).toEqual({ ok: true, value: -2_050 });
    expect(parseSignedRub("75")).toEqual({ ok: true, value: 7_500 });
    for (const bad of ["0", "-0.00", "1.505", "abc", "+", "10000001", "1e3"]) {
      expect(parseSignedRub(bad).ok, bad).toBe(false);
    }
  });
});
