import {
  type Conversation,
  type ConversationFlavor,
  conversations,
  createConversation,
} from "@grammyjs/conversations";
import { Menu } from "@grammyjs/menu";
import { run } from "@grammyjs/runner";
import { Bot, type Context, GrammyError, InlineKeyboard } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import { startPolling, TOKEN } from "./harness.js";

/** A small shop bot: echo, an inline keyboard that edits on press, a Stars invoice, payments and refunds. */
function createShopBot(apiRoot: string): Bot {
  const bot = new Bot(TOKEN, { client: { apiRoot } });
  bot.command("start", (ctx) =>
    ctx.reply(`<b>Welcome</b> to the &lt;shop&gt;, ${ctx.from?.language_code ?? "?"}`, {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard()
        .text("Buy", "buy")
        .text("Help", "help")
        .row()
        .url("Site", "https://example.com"),
    }),
  );
  bot.callbackQuery("buy", async (ctx) => {
    await ctx.answerCallbackQuery({ text: "Pick an amount" });
    await ctx.editMessageText("Choose <i>amount</i>", {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("10 stars", "pay:10").text("Sold out", "pay:0"),
    });
  });
  bot.callbackQuery(/^pay:(\d+)$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const amount = Number(ctx.match[1]);
    await ctx.replyWithInvoice("Gift card", "A gift card code", `order-${amount}`, "XTR", [
      { label: "Gift card", amount: Math.max(amount, 1) },
    ]);
  });
  bot.on("pre_checkout_query", (ctx) =>
    ctx.preCheckoutQuery.invoice_payload === "order-0"
      ? ctx.answerPreCheckoutQuery(false, { error_message: "Sold out, sorry" })
      : ctx.answerPreCheckoutQuery(true),
  );
  bot.on("message:successful_payment", async (ctx) => {
    const payment = ctx.message.successful_payment;
    await ctx.reply(`Paid ${payment.total_amount} ${payment.currency} for ${payment.invoice_payload}`);
    await ctx.api.refundStarPayment(ctx.from.id, payment.telegram_payment_charge_id);
    try {
      await ctx.api.refundStarPayment(ctx.from.id, payment.telegram_payment_charge_id);
    } catch (error) {
      await ctx.reply(`Second refund: ${error instanceof GrammyError ? error.description : String(error)}`);
    }
  });
  bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  return bot;
}

describe("a customer talking to a grammY bot through the emulator", () => {
  let emulator: TelegramEmulator;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    stop = await startPolling(createShopBot(emulator.apiRoot));
  });

  afterEach(async () => {
    await stop();
    await emulator.close();
  });

  it("echoes what the customer types", async () => {
    const customer = emulator.user({ id: 1001, firstName: "Ann" });
    await customer.sendText("hello there");
    const reply = await customer.waitForBotMessage("echo: hello there");
    expect(reply.from).toBe("bot");
    expect(customer.messages().map((m) => [m.from, m.text])).toEqual([
      ["user", "hello there"],
      ["bot", "echo: hello there"],
    ]);
  });

  it("shows the plain text a person sees, keeps the HTML as sent and passes the user's language", async () => {
    const customer = emulator.user({ id: 1002, languageCode: "ru" });
    await customer.sendText("/start");
    const welcome = await customer.waitForBotMessage(/^Welcome/);
    expect(welcome.text).toBe("Welcome to the <shop>, ru");
    expect(welcome.html).toBe("<b>Welcome</b> to the &lt;shop&gt;, ru");
    expect(welcome.parseMode).toBe("HTML");
    expect(customer.buttons()).toEqual(["Buy", "Help", "Site"]);
  });

  it("presses an inline button by its label, returns the callback answer and sees the edit", async () => {
    const customer = emulator.user({ id: 1003 });
    await customer.sendText("/start");
    const welcome = await customer.waitForBotMessage("Welcome");
    const pressed = await customer.pressButton("Buy");
    expect(pressed.callbackAnswer).toEqual({ text: "Pick an amount" });
    const edited = await customer.waitForBotMessage("Choose amount");
    expect(edited).toMatchObject({ messageId: welcome.messageId, edits: 1, html: "Choose <i>amount</i>" });
    expect(customer.buttons()).toEqual(["10 stars", "Sold out"]);
    const callback = emulator.calls("answerCallbackQuery")[0];
    expect(callback?.ok).toBe(true);
  });

  it("pays a Stars invoice with pre-checkout then successful_payment, and records the bot's refund", async () => {
    const customer = emulator.user({ id: 1004 });
    await customer.sendText("/start");
    await customer.waitForBotMessage("Welcome");
    await customer.pressButton("Buy");
    await customer.pressButton("10 stars");
    const [invoice] = await customer.waitFor((msgs) => msgs.some((m) => m.invoice));
    expect(customer.messages().find((m) => m.invoice)?.invoice).toEqual({
      title: "Gift card",
      description: "A gift card code",
      payload: "order-10",
      currency: "XTR",
      totalAmount: 10,
    });
    expect(invoice).toBeDefined();

    expect(await customer.payInvoice()).toEqual({ ok: true });
    await customer.waitForBotMessage("Paid 10 XTR for order-10");
    await customer.waitForBotMessage("Second refund: Bad Request: CHARGE_ALREADY_REFUNDED");

    const payment = customer.messages().find((m) => m.successfulPayment)?.successfulPayment as Record<
      string,
      unknown
    >;
    expect(payment).toMatchObject({ currency: "XTR", total_amount: 10, invoice_payload: "order-10" });
    expect(payment.provider_payment_charge_id).toBeUndefined();
    expect(emulator.refunds()).toEqual([{ userId: 1004, chargeId: payment.telegram_payment_charge_id }]);
  });

  it("reports the bot's refusal at pre-checkout and sends no successful_payment", async () => {
    const customer = emulator.user({ id: 1005 });
    await customer.sendText("/start");
    await customer.waitForBotMessage("Welcome");
    await customer.pressButton("Buy");
    await customer.pressButton(/sold out/i);
    await customer.waitFor((msgs) => msgs.some((m) => m.invoice));
    expect(await customer.payInvoice()).toEqual({ ok: false, error: "Sold out, sorry" });
    expect(customer.messages().some((m) => m.successfulPayment)).toBe(false);
  });

  it("pays through the invoice's own Pay button", async () => {
    const customer = emulator.user({ id: 1006 });
    await customer.sendText("/start");
    await customer.waitForBotMessage("Welcome");
    await customer.pressButton("Buy");
    await customer.pressButton("10 stars");
    await customer.waitFor((msgs) => msgs.some((m) => m.invoice));
    expect(customer.buttons()).toEqual(["Pay ⭐️10"]);
    await customer.pressButton(/^Pay/);
    await customer.waitForBotMessage("Paid 10 XTR");
    await customer.waitForBotMessage("Second refund");
  });

  it("fails a press with a message that lists the chat when no button has that label", async () => {
    const customer = emulator.user({ id: 1007 });
    await customer.sendText("/start");
    await customer.waitForBotMessage("Welcome");
    await expect(customer.pressButton("Checkout", { timeoutMs: 50 })).rejects.toThrow(
      /No inline button matching Checkout[\s\S]*Buy \| Help/,
    );
  });

  it("tells the bot about a forged callback and the bot's handlers see it", async () => {
    const customer = emulator.user({ id: 1008 });
    await customer.sendText("/start");
    const welcome = await customer.waitForBotMessage("Welcome");
    await customer.pressCallbackData("pay:0", welcome.messageId);
    await customer.waitFor((msgs) => msgs.some((m) => m.invoice?.payload === "order-0"));
  });

  it("rejects waitFor with the chat's messages when the predicate never holds", async () => {
    const customer = emulator.user({ id: 1009 });
    await customer.sendText("ping");
    await customer.waitForBotMessage("echo: ping");
    await expect(customer.waitFor(() => false, 50)).rejects.toThrow(
      /Timed out after 50 ms[\s\S]*#2 bot: "echo: ping"/,
    );
  });
});

describe("the emulator under @grammyjs/runner and @grammyjs/menu", () => {
  it("serves a runner-driven bot whose menu edits its own message on press", async () => {
    const emulator = await startTelegramEmulator({ token: TOKEN });
    const bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    let count = 0;
    const menu = new Menu("counter").text(
      () => `Count: ${count}`,
      async (ctx) => {
        count += 1;
        ctx.menu.update();
      },
    );
    bot.use(menu);
    bot.command("counter", (ctx) => ctx.reply("Counter", { reply_markup: menu }));
    const handle = run(bot);
    try {
      const customer = emulator.user({ id: 2001 });
      await customer.sendText("/counter");
      await customer.waitFor(() => customer.buttons().includes("Count: 0"));
      await customer.pressButton("Count: 0");
      await customer.waitFor(() => customer.buttons().includes("Count: 1"));
      const counter = customer.lastBotMessage();
      expect(counter).toMatchObject({ text: "Counter", edits: 1 });
    } finally {
      await handle.stop();
      await emulator.close();
    }
  });
});

describe("the emulator under @grammyjs/conversations", () => {
  it("carries a conversation across several customer messages and reports each change", async () => {
    const emulator = await startTelegramEmulator({ token: TOKEN });
    type Ctx = ConversationFlavor<Context>;
    const bot = new Bot<Ctx>(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    bot.use(conversations());
    bot.use(
      createConversation(async (conversation: Conversation<Ctx, Context>, ctx: Context) => {
        await ctx.reply("Which email gets the code?");
        const answer = await conversation.waitFor("message:text");
        await answer.reply(`Sending to ${answer.message.text}`);
      }, "ask-email"),
    );
    bot.command("buy", (ctx) => ctx.conversation.enter("ask-email"));
    const changes: number[] = [];
    const unsubscribe = emulator.onChange((chatId) => changes.push(chatId));
    const stop = await startPolling(bot);
    try {
      const customer = emulator.user({ id: 2101 });
      await customer.sendText("/buy");
      await customer.waitForBotMessage("Which email");
      await customer.sendText("ann@example.com");
      await customer.waitForBotMessage("Sending to ann@example.com");
      unsubscribe();
      expect(changes).toEqual([2101, 2101, 2101, 2101]);
    } finally {
      await stop();
      await emulator.close();
    }
  });
});
