import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, startApp } from "../../src/main.js";
import {
  type AppHarness,
  buyStars,
  DELIVERED,
  newAppCustomer,
  orderIdOf,
  starsCard,
  startAppBackends,
  startAppHarness,
} from "../helpers/app-harness.js";

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h.close();
});

const T = { timeoutMs: 10_000 };

describe("a customer who makes mistakes or changes their mind", () => {
  it("gets the broken rule and the same question again at each step", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.sendText("a lot");
    await c.waitForBotMessage(/Send a whole number from 50 to 1,000,000/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("How many stars?");
    await c.sendText("49");
    await c.waitForBotMessage(/The smallest amount is 50\./, 10_000);
    await c.sendText("75");
    await c.waitForBotMessage(/Who gets it\?/, 10_000);
    await c.sendText("@bad name");
    await c.waitForBotMessage(/only Latin letters, digits and underscores/, 10_000);
    await c.sendText("1friend");
    await c.waitForBotMessage(/starts with a letter/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("Who gets it?");
    await c.sendText("https://t.me/good_friend");
    await c.waitForBotMessage(/Order #/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("⭐ 75 Telegram Stars");
    expect(c.lastBotMessage()?.text).toContain("For: @good_friend");
  });

  it("goes Back a step and Cancels without any order at the reseller", async () => {
    const c = newAppCustomer(h.telegram);
    const before = h.sandbox.orders().length;
    await c.sendText("/start");
    await c.pressButton("🕹 Games", T);
    await c.pressButton("PUBG Mobile", T);
    await c.waitForBotMessage(/choose the region/, 10_000);
    await c.pressButton("‹ Back", T);
    await c.waitForBotMessage(/Choose a game/, 10_000);
    await c.pressButton("Genshin Impact", T);
    await c.pressButton("✖️ Cancel", T);
    await c.waitForBotMessage(/Cancelled\. Nothing was ordered\./, 10_000);
    expect(h.sandbox.orders().length).toBe(before);
  });

  it("can cancel an unpaid quote from its card", async () => {
    const c = newAppCustomer(h.telegram);
    await starsCard(c);
    await c.pressButton("✖️ Cancel", T);
    await c.waitForBotMessage(/✖️ Cancelled\./, 10_000);
    expect(c.buttons()).toEqual([]);
  });
});

describe("after the payment", () => {
  it("a failed delivery says why and refunds the Stars", async () => {
    h.sandbox.setOutcome((o) =>
      o.request.recipient_username === "unlucky_one"
        ? { status: "failed", errorMessage: "Recipient <unlucky_one> cannot receive stars" }
        : { status: "delivered" },
    );
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.pressButton("100 ⭐", T);
    await c.sendText("@unlucky_one");
    await c.pressButton(/^💳 Pay/, T);
    await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    expect((await c.payInvoice(T)).ok).toBe(true);
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toContain("Reason: Recipient <unlucky_one> cannot receive stars");
    expect(final.html).toContain("Recipient &lt;unlucky_one&gt; cannot receive stars");
    expect(final.text).toMatch(/Your \d+ stars (are|were) refunded/);
    await c.waitFor(() => h.telegram.refunds().some((r) => r.userId === c.id), 10_000);
  });

  it("a failed delivery whose reason is longer than a message can be still says why, cut short", async () => {
    const long = `Recipient cannot receive stars: ${"<limit> ".repeat(1_000)}`;
    h.sandbox.setOutcome((o) =>
      o.request.recipient_username === "wordy_reseller"
        ? { status: "failed", errorMessage: long }
        : { status: "delivered" },
    );
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.pressButton("100 ⭐", T);
    await c.sendText("@wordy_reseller");
    await c.pressButton(/^💳 Pay/, T);
    await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    expect((await c.payInvoice(T)).ok).toBe(true);
    const final = await c.waitForBotMessage(/could not be delivered/, 20_000);
    expect(final.text).toContain(`Reason: ${long.slice(0, 400)}`);
    expect(final.text).toContain("…");
    expect(final.text).toMatch(/Your \d+ stars (are|were) refunded/);
  });

  it("a delivery that comes before pay is answered leaves the card delivered, not waiting for the supplier", async () => {
    // Every answer to pay is lost after the charge: the order is delivered (its webhook comes at
    // once) while pay is still being retried, and the answer to the payment gives up waiting.
    h.sandbox.fail("POST /api/reseller/order/pay", "lose_response", 4);
    const c = newAppCustomer(h.telegram);
    const card = await starsCard(c, 50);
    await c.pressButton(/^💳 Pay/, { ...T, messageId: card.messageId });
    await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(DELIVERED, 20_000);
    // Pay's retries and the answer to the payment are over well within this.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(c.messages().find((m) => m.messageId === card.messageId)?.text).toContain("✅ Delivered.");
    h.sandbox.clearFaults();
  });

  it("/orders lists the customer's own orders with their status and opens a card", async () => {
    const c = newAppCustomer(h.telegram);
    await buyStars(c);
    await c.sendText("/orders");
    await c.waitForBotMessage(/Your orders/, 10_000);
    expect(c.lastBotMessage()?.text).toContain("Your orders (1)");
    expect(c.lastBotMessage()?.text).toContain("delivered");
    await c.pressButton(/^1\. #/, T);
    await c.waitFor((msgs) => msgs.filter((m) => m.text?.startsWith("🧾 Order #")).length === 2, 10_000);
    expect(c.lastBotMessage()?.text).toContain("✅ Delivered.");
  });
});

describe("a group the bot was added to", () => {
  it("sells nothing there and shows nobody's orders: a command points to the private chat", async () => {
    const group = h.telegram.group({ id: -1001000000777 });
    const ann = group.member({ id: 640_000_001, username: "ann_in_group", languageCode: "en" });
    const boris = group.member({ id: 640_000_002, username: "boris_in_group", languageCode: "ru" });
    await ann.sendText("/start");
    await group.waitForBotMessage(
      "🛍 The shop is in a private chat with me: open @shop_test_bot and send /start there.",
    );
    await boris.sendText("/orders@shop_test_bot");
    await group.waitForBotMessage(/^🛍 Магазин — в личном чате со мной: откройте @shop_test_bot/);
    await boris.sendText("/start@some_other_bot");
    await boris.sendText("hello everyone");
    await ann.sendText("/help");
    await group.waitFor((msgs) => msgs.filter((m) => m.from === "bot").length === 3);
    expect(
      group
        .messages()
        .filter((m) => m.from === "bot")
        .every((m) => (m.text ?? "").startsWith("🛍")),
    ).toBe(true);
    expect(
      group.messages().some((m) => (m.replyMarkup as { inline_keyboard?: unknown[] })?.inline_keyboard),
    ).toBe(false);
  });

  it("says nothing to a member who writes a lot there, not even to slow down", async () => {
    const group = h.telegram.group({ id: -1001000000778 });
    const chatty = group.member({ id: 640_000_003, firstName: "Chatty", languageCode: "en" });
    for (let i = 0; i < 30; i++) await chatty.sendText(`hello ${i}`);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(group.messages().filter((m) => m.from === "bot")).toEqual([]);
  });
});

describe("a restart in the middle of a conversation", () => {
  it("continues where the customer was", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", T);
    await c.pressButton("250 ⭐", T);
    await c.waitForBotMessage(/Who gets it\?/, 10_000);
    await h.app.stop(2_000);
    let second: App | undefined;
    try {
      second = await startApp(h.env, { engine: { leaseMs: 5_000, idleDelayMs: 20 } });
      await c.sendText("@after_restart");
      await c.waitForBotMessage(/Order #/, 10_000);
      expect(c.lastBotMessage()?.text).toContain("⭐ 250 Telegram Stars");
      expect(c.lastBotMessage()?.text).toContain("For: @after_restart");
      await c.pressButton(/^💳 Pay/, T);
      await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
      const id = orderIdOf(c.messages().find((m) => m.invoice)!);
      expect((await c.payInvoice(T)).ok).toBe(true);
      await c.waitForBotMessage(DELIVERED, 20_000);
      expect(h.sandbox.stats(id)).toMatchObject({ creates: 1, charges: 1 });
    } finally {
      await second?.stop(2_000);
    }
  });
});

describe("a create whose answer was lost", () => {
  it("refused on its repeat (an order with that id exists) says the supplier is not answering, and Retry quotes anew", async () => {
    const b = await startAppBackends();
    // In front of the sandbox: the first create is processed but answered 500, its repeat 409.
    let creates = 0;
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString();
        const up = await fetch(b.sandbox.url + (req.url ?? ""), {
          method: req.method,
          headers: { authorization: String(req.headers.authorization), "content-type": "application/json" },
          body: req.method === "GET" ? undefined : body,
        });
        let [status, text] = [up.status, await up.text()];
        if (req.url?.endsWith("/order/create") && ++creates <= 2) {
          [status, text] =
            creates === 1
              ? [500, ""]
              : [
                  409,
                  JSON.stringify({ success: false, error: "duplicate", message: "Order already exists" }),
                ];
        }
        res.writeHead(status, { "content-type": "application/json" });
        res.end(text);
      });
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const { port } = proxy.address() as AddressInfo;
    let app: App | undefined;
    try {
      app = await startApp(
        { ...b.env, RESELLER_API_URL: `http://127.0.0.1:${port}` },
        { engine: { leaseMs: 5_000, idleDelayMs: 20 } },
      );
      const c = newAppCustomer(b.telegram);
      await c.sendText("/start");
      await c.pressButton("⭐ Telegram Stars", T);
      await c.pressButton("50 ⭐", T);
      await c.pressButton(/^🙋 To myself/, T);
      const told = await c.waitForBotMessage(/not answering/, 10_000);
      expect(told.text).not.toContain("Check what you entered");
      await c.pressButton("🔄 Try again", T);
      await c.waitForBotMessage(/Order #/, 10_000);
    } finally {
      await app?.stop(2_000);
      await new Promise((ok) => proxy.close(ok));
      await b.close();
    }
  });
});
