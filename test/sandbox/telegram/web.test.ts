import { Bot, InlineKeyboard } from "grammy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../../sandbox/telegram/index.js";
import type { WebChatSnapshot } from "../../../sandbox/telegram/web/api.js";
import { startPolling, TOKEN } from "./harness.js";

/** A tiny shop bot: an HTML menu, a callback that edits it, a Stars invoice, a refund and a receipt. */
function createTinyBot(apiRoot: string): Bot {
  const bot = new Bot(TOKEN, { client: { apiRoot } });
  bot.command("start", (ctx) =>
    ctx.reply(`<b>Welcome</b>, <i>${ctx.from?.language_code ?? "?"}</i> &lt;friend&gt;`, {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard()
        .text("Buy", "buy")
        .text("Invoice", "invoice")
        .row()
        .url("Site", "https://example.com"),
    }),
  );
  bot.callbackQuery("buy", async (ctx) => {
    await ctx.answerCallbackQuery({ text: "Pick an amount" });
    await ctx.editMessageText("Choose <code>amount</code>", {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("50 stars", "amount:50"),
    });
  });
  bot.callbackQuery("invoice", async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.replyWithInvoice("50 Stars", "Stars for a friend", "order-50", "XTR", [
      { label: "50 Stars", amount: 50 },
    ]);
  });
  bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
  bot.on("message:successful_payment", async (ctx) => {
    const payment = ctx.message.successful_payment;
    await ctx.api.refundStarPayment(ctx.from.id, payment.telegram_payment_charge_id);
    await ctx.reply(`Paid ${payment.total_amount} ${payment.currency}, refunded`);
  });
  bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  return bot;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely inside assertions.
type Json = Record<string, any>;

describe("the emulator's web chat", () => {
  let emulator: TelegramEmulator;
  let stopBot: () => Promise<void>;
  let base: string;

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const chat = async (user: number): Promise<WebChatSnapshot> =>
    (await (await fetch(`${base}/demo/api/chat?user=${user}`)).json()) as WebChatSnapshot;
  /** Reads the chat until `predicate` holds (the bot answers asynchronously). */
  const waitForChat = async (user: number, predicate: (c: WebChatSnapshot) => boolean) => {
    const until = Date.now() + 5000;
    for (;;) {
      const snapshot = await chat(user);
      if (predicate(snapshot)) return snapshot;
      if (Date.now() > until) throw new Error(`chat never matched: ${JSON.stringify(snapshot, null, 2)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const botSaid = (text: string) => (c: WebChatSnapshot) =>
    c.messages.some((m) => m.from === "bot" && m.text?.includes(text));

  beforeEach(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    base = emulator.apiRoot;
    const bot = createTinyBot(emulator.apiRoot);
    await bot.api.setMyCommands([{ command: "start", description: "Main menu" }]);
    await bot.api.setMyCommands(
      [
        { command: "start", description: "Main menu" },
        { command: "balance", description: "Deposit balance" },
      ],
      { scope: { type: "chat", chat_id: 9001 } },
    );
    stopBot = await startPolling(bot);
  });

  afterEach(async () => {
    await stopBot();
    await emulator.close();
  });

  it("serves a self-contained page whose policy allows only its own inline script and style", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await res.text();
    expect(html).toContain("<script>");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|https?:\/\/(?!example)/);
    expect(html).not.toContain("innerHTML");
  });

  it("delivers typed text to the bot and shows its HTML reply with the inline keyboard", async () => {
    const sent = await post("/demo/api/send", { user: 1001, text: "/start", lang: "en" });
    expect(sent).toEqual({ status: 200, body: { ok: true } });
    const snapshot = await waitForChat(1001, botSaid("Welcome"));
    expect(snapshot.user).toEqual({
      id: 1001,
      username: "demo_customer",
      firstName: "Anna",
      languageCode: "en",
    });
    expect(snapshot.bot.username).toBe("shop_test_bot");
    const [mine, reply] = snapshot.messages;
    expect(mine).toMatchObject({ id: 1, from: "user", text: "/start", edited: false });
    expect(reply).toMatchObject({
      id: 2,
      from: "bot",
      text: "Welcome, en <friend>",
      html: "<b>Welcome</b>, <i>en</i> &lt;friend&gt;",
      keyboard: [
        [
          { text: "Buy", type: "callback", data: "buy" },
          { text: "Invoice", type: "callback", data: "invoice" },
        ],
        [{ text: "Site", type: "url", url: "https://example.com" }],
      ],
    });
  });

  it("presses a button, returns the bot's callback answer and shows the edit in place", async () => {
    await post("/demo/api/send", { user: 1001, text: "/start" });
    const menu = (await waitForChat(1001, botSaid("Welcome"))).messages[1]!;
    const pressed = await post("/demo/api/press", { user: 1001, messageId: menu.id, data: "buy" });
    expect(pressed.status).toBe(200);
    expect(pressed.body).toMatchObject({ ok: true, answer: { text: "Pick an amount" } });
    const after = await waitForChat(1001, botSaid("Choose amount"));
    expect(after.messages).toHaveLength(2);
    expect(after.messages[1]).toMatchObject({
      id: menu.id,
      edited: true,
      html: "Choose <code>amount</code>",
      keyboard: [[{ text: "50 stars", type: "callback", data: "amount:50" }]],
    });
  });

  it("pays an invoice with the simulated pre-checkout query and successful payment, and shows the refund", async () => {
    await post("/demo/api/send", { user: 1001, text: "/start" });
    const menu = (await waitForChat(1001, botSaid("Welcome"))).messages[1]!;
    await post("/demo/api/press", { user: 1001, messageId: menu.id, data: "invoice" });
    const withInvoice = await waitForChat(1001, (c) => c.messages.some((m) => m.invoice));
    const invoice = withInvoice.messages.find((m) => m.invoice)!;
    expect(invoice.invoice).toEqual({
      title: "50 Stars",
      description: "Stars for a friend",
      currency: "XTR",
      totalAmount: 50,
      paid: false,
    });
    expect(invoice.keyboard?.[0]?.[0]).toMatchObject({ type: "pay" });

    const paid = await post("/demo/api/pay", { user: 1001, messageId: invoice.id });
    expect(paid.body).toEqual({ ok: true });
    const receipt = await waitForChat(1001, botSaid("Paid 50 XTR, refunded"));
    expect(receipt.messages.find((m) => m.id === invoice.id)?.invoice?.paid).toBe(true);
    expect(receipt.messages.find((m) => m.payment)).toMatchObject({
      from: "user",
      payment: { currency: "XTR", totalAmount: 50, refunded: true },
    });
  });

  it("streams a fresh snapshot over Server-Sent Events whenever the chat changes", async () => {
    const abort = new AbortController();
    const res = await fetch(`${base}/demo/api/events?user=1001`, { signal: abort.signal });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const nextSnapshot = async (): Promise<WebChatSnapshot> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event);
          if (/^event: chat$/m.test(event) && data) return JSON.parse(data[1]!) as WebChatSnapshot;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the event stream ended");
        buffer += value;
      }
    };
    try {
      expect((await nextSnapshot()).messages).toEqual([]);
      await post("/demo/api/send", { user: 1001, text: "hello" });
      let snapshot = await nextSnapshot();
      while (!botSaid("echo: hello")(snapshot)) snapshot = await nextSnapshot();
      expect(snapshot.messages.map((m) => [m.from, m.text])).toEqual([
        ["user", "hello"],
        ["bot", "echo: hello"],
      ]);
    } finally {
      abort.abort();
    }
  });

  it("ends open event streams when the emulator closes", async () => {
    const res = await fetch(`${base}/demo/api/events?user=1001`);
    const reader = res.body!.getReader();
    await reader.read();
    await stopBot();
    stopBot = async () => {};
    await emulator.close();
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(done).toBe(true);
    emulator = await startTelegramEmulator({ token: TOKEN });
  });

  it("shows each user the command menu of their own scope", async () => {
    expect((await chat(1001)).commands.map((c) => c.command)).toEqual(["start"]);
    expect((await chat(9001)).commands.map((c) => c.command)).toEqual(["start", "balance"]);
    expect((await chat(9001)).user).toMatchObject({ username: "demo_operator", firstName: "Oleg" });
  });

  it("refuses malformed requests with a status and a reason", async () => {
    await post("/demo/api/send", { user: 1001, text: "/start" });
    const menu = (await waitForChat(1001, botSaid("Welcome"))).messages[1]!;

    const badJson = await post("/demo/api/send", "{not json");
    expect(badJson).toEqual({ status: 400, body: { ok: false, error: "the body is not valid JSON" } });
    expect((await post("/demo/api/send", [1, 2])).status).toBe(400);
    expect((await post("/demo/api/send", { text: "hi" })).body.error).toMatch(/user must be/);
    expect((await post("/demo/api/send", { user: -5, text: "hi" })).status).toBe(400);
    expect((await post("/demo/api/send", { user: 1001, text: "   " })).body.error).toMatch(/text must be/);
    expect((await post("/demo/api/send", { user: 1001, text: "x".repeat(4097) })).status).toBe(400);
    expect((await post("/demo/api/send", { user: 1001, text: "hi", lang: "<b>" })).status).toBe(400);
    const longData = await post("/demo/api/press", { user: 1001, messageId: menu.id, data: "x".repeat(65) });
    expect(longData.body.error).toMatch(/1-64 bytes/);
    expect((await post("/demo/api/press", { user: 1001, messageId: 999, data: "buy" })).status).toBe(404);
    expect((await post("/demo/api/pay", { user: 1001, messageId: menu.id })).status).toBe(404);

    const textPlain = await fetch(`${base}/demo/api/send`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ user: 1001, text: "hi" }),
    });
    expect(textPlain.status).toBe(415);
    const crossSite = await post(
      "/demo/api/send",
      { user: 1001, text: "hi" },
      { origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    expect((await fetch(`${base}/demo/api/chat?user=abc`)).status).toBe(400);
    expect((await fetch(`${base}/demo/api/send`)).status).toBe(405);
    expect((await fetch(`${base}/demo/api/nothing`)).status).toBe(404);

    const texts = (await chat(1001)).messages.map((m) => m.text);
    expect(texts).not.toContain("hi");
  });
});
