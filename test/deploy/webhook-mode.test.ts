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
  h = await startAppHarness({
    BOT_MODE: "webhook",
    BOT_WEBHOOK_URL: PUBLIC_WEBHOOK_URL,
    BOT_WEBHOOK_SECRET: SECRET,
  });
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
      allowed_updates: ["message", "callback_query", "pre_checkout_query"],
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
});
