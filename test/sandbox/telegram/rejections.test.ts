import { Bot, GrammyError, InlineKeyboard } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import { TOKEN } from "./harness.js";

/** Runs a Bot API call and returns the GrammyError it failed with. */
async function failure(call: Promise<unknown>): Promise<GrammyError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof GrammyError) return error;
    throw error;
  }
  throw new Error("expected the Bot API call to fail");
}

describe("the emulator rejects what Telegram rejects", () => {
  let emulator: TelegramEmulator;
  let bot: Bot;
  const chatId = 3001;

  beforeAll(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    bot = new Bot(TOKEN, { client: { apiRoot: emulator.apiRoot } });
    emulator.user({ id: chatId }).startChat();
  });

  afterAll(async () => {
    await emulator.close();
  });

  it("answers getMe with the configured bot and refuses any other token with 401", async () => {
    expect(await bot.api.getMe()).toMatchObject({ id: 123456789, is_bot: true, username: "shop_test_bot" });
    const stranger = new Bot("42:wrong-token", { client: { apiRoot: emulator.apiRoot } });
    const error = await failure(stranger.api.getMe());
    expect([error.error_code, error.description]).toEqual([401, "Unauthorized"]);
  });

  it("rejects malformed HTML with can't parse entities and stores nothing", async () => {
    const before = emulator.user({ id: chatId }).messages().length;
    for (const text of [
      "<b>unclosed",
      "line<br>break",
      "1 < 2",
      '<span class="x">s</span>',
      "<b><i>x</b></i>",
    ]) {
      const error = await failure(bot.api.sendMessage(chatId, text, { parse_mode: "HTML" }));
      expect(error.error_code).toBe(400);
      expect(error.description).toMatch(/^Bad Request: can't parse entities: /);
    }
    expect(emulator.user({ id: chatId }).messages()).toHaveLength(before);
  });

  it("rejects empty and over-long texts", async () => {
    expect((await failure(bot.api.sendMessage(chatId, "<b> </b>", { parse_mode: "HTML" }))).description).toBe(
      "Bad Request: message text is empty",
    );
    expect((await failure(bot.api.sendMessage(chatId, "x".repeat(4097)))).description).toBe(
      "Bad Request: message is too long",
    );
    const longHtml = `<b>${"y".repeat(4096)}</b>`;
    expect((await bot.api.sendMessage(chatId, longHtml, { parse_mode: "HTML" })).text).toHaveLength(4096);
  });

  it("rejects callback data over 64 bytes, counting UTF-8 bytes", async () => {
    const ok = await bot.api.sendMessage(chatId, "fits", {
      reply_markup: new InlineKeyboard().text("a", "x".repeat(64)),
    });
    expect(ok.reply_markup?.inline_keyboard[0]?.[0]).toMatchObject({ callback_data: "x".repeat(64) });
    for (const data of ["x".repeat(65), "й".repeat(33)]) {
      const error = await failure(
        bot.api.sendMessage(chatId, "too long", { reply_markup: new InlineKeyboard().text("a", data) }),
      );
      expect(error.description).toBe("Bad Request: BUTTON_DATA_INVALID");
    }
  });

  it("takes URL buttons, reply keyboards and keyboard removal", async () => {
    await bot.api.sendMessage(chatId, "links", {
      reply_markup: new InlineKeyboard().url("Site", "https://example.com"),
    });
    await bot.api.sendMessage(chatId, "menu", {
      reply_markup: { keyboard: [[{ text: "Catalog" }, { text: "Orders" }]], resize_keyboard: true },
    });
    await bot.api.sendMessage(chatId, "bye", { reply_markup: { remove_keyboard: true } });
    const sent = emulator.user({ id: chatId }).botMessages().slice(-3);
    expect(sent.map((m) => m.replyMarkup)).toEqual([
      { inline_keyboard: [[{ text: "Site", url: "https://example.com" }]] },
      { keyboard: [[{ text: "Catalog" }, { text: "Orders" }]], resize_keyboard: true },
      { remove_keyboard: true },
    ]);
  });

  it("refuses to edit or delete a message that is not there, and an edit that changes nothing", async () => {
    expect((await failure(bot.api.editMessageText(chatId, 999_999, "new"))).description).toBe(
      "Bad Request: message to edit not found",
    );
    expect((await failure(bot.api.deleteMessage(chatId, 999_999))).description).toBe(
      "Bad Request: message to delete not found",
    );
    const keyboard = new InlineKeyboard().text("Go", "go");
    const message = await bot.api.sendMessage(chatId, "<b>same</b>", {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
    const unchanged = await failure(
      bot.api.editMessageText(chatId, message.message_id, "<b>same</b>", {
        parse_mode: "HTML",
        reply_markup: keyboard,
      }),
    );
    expect(unchanged.description).toMatch(/^Bad Request: message is not modified: /);
    expect(
      (await failure(bot.api.editMessageReplyMarkup(chatId, message.message_id, { reply_markup: keyboard })))
        .description,
    ).toMatch(/not modified/);

    // An edit without reply_markup removes the inline keyboard, as on Telegram.
    await bot.api.editMessageText(chatId, message.message_id, "<b>same</b>", { parse_mode: "HTML" });
    const customer = emulator.user({ id: chatId });
    expect(customer.messages().find((m) => m.messageId === message.message_id)).toMatchObject({ edits: 1 });
    expect(customer.buttons(message.message_id)).toEqual([]);

    await bot.api.deleteMessage(chatId, message.message_id);
    expect(customer.messages().find((m) => m.messageId === message.message_id)?.deleted).toBe(true);
    expect((await failure(bot.api.editMessageText(chatId, message.message_id, "late"))).description).toBe(
      "Bad Request: message to edit not found",
    );
  });

  it("answers chat not found for users who never started the bot and 403 for users who blocked it", async () => {
    expect((await failure(bot.api.sendMessage(424242, "hi"))).description).toBe(
      "Bad Request: chat not found",
    );
    const silent = emulator.user({ id: 3002 });
    expect((await failure(bot.api.sendMessage(silent.id, "hi"))).description).toBe(
      "Bad Request: chat not found",
    );

    const customer = emulator.user({ id: 3003 });
    customer.startChat();
    customer.block();
    const blocked = await failure(bot.api.sendMessage(customer.id, "hi"));
    expect([blocked.error_code, blocked.description]).toEqual([
      403,
      "Forbidden: bot was blocked by the user",
    ]);
    customer.unblock();
    await bot.api.sendMessage(customer.id, "welcome back");
    expect(customer.lastBotMessage()?.text).toBe("welcome back");
  });

  it("validates Stars invoices: one price, no provider token, field lengths", async () => {
    const price = [{ label: "Card", amount: 10 }];
    const send = (over: {
      title?: string;
      payload?: string;
      prices?: typeof price;
      provider_token?: string;
    }) =>
      failure(
        bot.api.sendInvoice(
          chatId,
          over.title ?? "Card",
          "A card",
          over.payload ?? "p",
          "XTR",
          over.prices ?? price,
          {
            ...(over.provider_token ? { provider_token: over.provider_token } : {}),
          },
        ),
      );
    expect((await send({ provider_token: "123:TEST" })).description).toBe(
      "Bad Request: STARS_INVOICE_INVALID",
    );
    expect((await send({ prices: [...price, { label: "Tax", amount: 1 }] })).description).toBe(
      "Bad Request: STARS_INVOICE_INVALID",
    );
    expect((await send({ title: "t".repeat(33) })).description).toBe("Bad Request: INVOICE_TITLE_INVALID");
    expect((await send({ payload: "p".repeat(129) })).description).toBe(
      "Bad Request: INVOICE_PAYLOAD_INVALID",
    );
    const invoice = await bot.api.sendInvoice(chatId, "Card", "A card", "p".repeat(128), "XTR", price);
    expect(invoice.invoice).toMatchObject({ currency: "XTR", total_amount: 10 });
  });

  it("refuses to refund a charge it never saw", async () => {
    expect((await failure(bot.api.refundStarPayment(chatId, "stxUnknown"))).description).toBe(
      "Bad Request: CHARGE_NOT_FOUND",
    );
  });

  it("answers any other method with true and records it", async () => {
    await bot.api.setMyDescription("A shop");
    expect(emulator.calls("setMyDescription")).toMatchObject([
      { payload: { description: "A shop" }, ok: true },
    ]);
    expect(emulator.stats().byMethod.setMyDescription).toBe(1);
  });
});
