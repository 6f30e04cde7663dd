import { afterEach, describe, expect, it } from "vitest";
import { OutgoingQueue } from "../../src/outgoing/queue.js";
import { type AppHarness, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a customer during a rush", () => {
  it("gets answers at once while the outgoing queue is full of the bot's own messages", async () => {
    h = await startAppHarness();
    const queue = new OutgoingQueue(h.app.redis, h.env.REDIS_PREFIX!);
    // Card updates for 600 other chats: at Telegram's pace they take about 20 s to go out.
    for (let chat = 1; chat <= 600; chat++) {
      await queue.enqueue({ kind: "card", chatId: 9_000_000 + chat, orderId: `rush-${chat}` });
    }
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
    await c.waitFor(
      (msgs) => msgs.some((m) => m.replyMarkup && /50 ⭐/.test(JSON.stringify(m.replyMarkup))),
      10_000,
    );
    // Both answers arrived while most of the queue was still waiting: replies never queue behind it.
    expect(await queue.depth()).toBeGreaterThan(300);
  });
});
