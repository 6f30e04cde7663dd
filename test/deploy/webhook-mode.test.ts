import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALLOWED_UPDATES } from "../../src/bot/lifecycle.js";
import {
  APP_BOT_TOKEN,
  type AppHarness,
  buyStars,
  DELIVERED,
  newAppCustomer,
  startAppHarness,
} from "../helpers/app-harness.js";

const PUBLIC_WEBHOOK_URL = "https://shop.example.test/webhooks/telegram";
const SECRET = "telegram-webhook-secret_4f0c9a";

let h: AppHarness;

beforeEach(async () => {
  h = await startAppHarness(
    {
      BOT_MODE: "webhook",
      BOT_WEBHOOK_URL: PUBLIC_WEBHOOK_URL,
      BOT_WEBHOOK_SECRET: SECRET,
    },
    // Shutdown waits this long for an update in progress (one test leaves one hanging).
    { webhook: { stopGraceMs: 1_000 } },
  );
  // Play the reverse proxy: Telegram's requests to the public https address reach the local listener.
  // Re-register the webhook as the bot did, with the local address in place of the public one.
  const res = await fetch(`${h.telegram.apiRoot}/bot${APP_BOT_TOKEN}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      url: `${h.app.http.url}/webhooks/telegram`,
      secret_token: SECRET,
      allowed_updates: ALLOWED_UPDATES,
    }),
  });
  expect(res.ok).toBe(true);
});

afterEach(async () => {
  await h.close();
});

const CREATE = "POST /api/reseller/order/create";

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A text message update from `userId` in their private chat. */
function textUpdate(updateId: number, userId: number, text: string) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId % 1_000_000,
      date: Math.floor(Date.now() / 1000),
      chat: { id: userId, type: "private" },
      from: { id: userId, is_bot: false, first_name: "Test", language_code: "en" },
      text,
      ...(text.startsWith("/")
        ? { entities: [{ type: "bot_command", offset: 0, length: text.length }] }
        : {}),
    },
  };
}

function postUpdate(headers: Record<string, string>, update: unknown) {
  return fetch(`${h.app.http.url}/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(update),
  });
}

describe("BOT_MODE=webhook", () => {
  it("registers its public URL with the secret token and the update types it handles", () => {
    const [call] = h.telegram.calls("setWebhook");
    expect(call?.payload).toMatchObject({
      url: PUBLIC_WEBHOOK_URL,
      secret_token: SECRET,
      allowed_updates: ["message", "callback_query", "pre_checkout_query", "my_chat_member"],
    });
    expect(h.telegram.calls("getUpdates")).toHaveLength(0);
  });

  it("answers /start and sells Stars with updates arriving through the webhook", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/start");
    const menu = await customer.waitForBotMessage(/What would you like to buy/, 10_000);
    expect(customer.buttons(menu.messageId)).toContain("⭐ Telegram Stars");

    const final = await buyStars(customer);
    expect(final.text).toMatch(DELIVERED);
    expect(h.telegram.webhook()?.url).toBe(`${h.app.http.url}/webhooks/telegram`);
    expect(h.telegram.calls("getUpdates")).toHaveLength(0);
  });

  it("refuses updates with a wrong or missing secret token and does not act on them", async () => {
    const customer = newAppCustomer(h.telegram);
    customer.startChat();
    const update = {
      update_id: 999_000_001,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: customer.id, type: "private" },
        from: { id: customer.id, is_bot: false, first_name: "Mallory" },
        text: "/start",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    };
    const wrong = await postUpdate({ "x-telegram-bot-api-secret-token": `${SECRET}x` }, update);
    expect(wrong.status).toBe(401);
    const missing = await postUpdate({}, update);
    expect(missing.status).toBe(401);

    // The same update with the right token is handled: proof that only the token made the difference.
    const right = await postUpdate({ "x-telegram-bot-api-secret-token": SECRET }, update);
    expect(right.status).toBe(200);
    await customer.waitForBotMessage(/What would you like to buy/, 10_000);
    expect(customer.botMessages()).toHaveLength(1);
  });

  it("answers 200 only once the update has been handled", async () => {
    const customer = newAppCustomer(h.telegram);
    customer.startChat();
    const res = await postUpdate(
      { "x-telegram-bot-api-secret-token": SECRET },
      textUpdate(999_000_101, customer.id, "/start"),
    );
    expect(res.status).toBe(200);
    // Handled before the answer: the reply is in the chat already.
    expect(customer.botMessages().map((m) => m.text)).toEqual([
      expect.stringMatching(/What would you like to buy/),
    ]);
  });

  it("answers 503 to an update that arrives once shutdown began, and leaves it to Telegram to send again", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/start");
    await customer.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
    await customer.pressButton("50 ⭐", { timeoutMs: 10_000 });
    // The reseller swallows the quote: that update is still in progress when shutdown begins,
    // which keeps the listener open meanwhile.
    h.sandbox.fail(CREATE, "hang", 1);
    void customer.pressButton(/^🙋 To myself/, { timeoutMs: 10_000 }).catch(() => undefined);
    await until("the quote request", () =>
      h.sandbox.requests().some((r) => `${r.method} ${r.path}` === CREATE),
    );

    const stopping = h.app.stop(2_000);
    const late = newAppCustomer(h.telegram);
    late.startChat();
    const res = await postUpdate(
      { "x-telegram-bot-api-secret-token": SECRET },
      textUpdate(999_000_201, late.id, "/start"),
    );
    expect(res.status).toBe(503);
    await stopping;
    expect(late.botMessages()).toHaveLength(0);
  });
});
