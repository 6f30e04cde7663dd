import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  APP_OPERATOR_ID,
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  startAppHarness,
} from "../helpers/app-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };

/** The Stars flow up to the quote: /start → Telegram Stars → 50 ⭐ → to myself. */
async function askFor50Stars(c: ReturnType<typeof newAppCustomer>): Promise<void> {
  await c.sendText("/start");
  await c.pressButton("⭐ Telegram Stars", T);
  await c.pressButton("50 ⭐", T);
  await c.pressButton(/^🙋 To myself/, T);
}

describe("a product the deposit cannot cover", () => {
  it("is paused for customers (no pay, no charge), the operators told once, and resumed after a top-up", async () => {
    h = await startAppHarness({}, { sandbox: { balanceRub: 10 }, engine: { balanceCheckIntervalMs: 300 } });
    const operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
    await operator.sendText("/start");
    await operator.waitForBotMessage(/What would you like to buy/, 10_000);
    // The first deposit check has run (it is looked at every 300 ms here).
    const depositKey = `${h.app.config.redisPrefix}deposit`;
    while ((await h.app.redis.hget(depositKey, "kopecks")) !== "1000") await sleep(50);

    const first = newAppCustomer(h.telegram);
    await askFor50Stars(first);
    await first.waitForBotMessage(/temporarily unavailable/, 10_000);
    expect(first.buttons()).toContain("🔄 Try again");
    await operator.waitForBotMessage(/Telegram Stars paused/, 10_000);

    // A second customer is refused before anything is asked of the reseller.
    const creates = h.sandbox.orders().length;
    const second = newAppCustomer(h.telegram);
    await askFor50Stars(second);
    await second.waitForBotMessage(/temporarily unavailable/, 10_000);
    expect(h.sandbox.orders().length).toBe(creates);
    expect(h.sandbox.orders().every((o) => h!.sandbox.stats(o.customId).pays === 0)).toBe(true);
    expect(h.telegram.calls("sendInvoice")).toHaveLength(0);

    h.sandbox.setBalanceRub(100_000);
    await operator.waitForBotMessage(/Telegram Stars is back on sale/, 10_000);
    const paused = operator.messages().filter((m) => m.text?.includes("paused:"));
    expect(paused).toHaveLength(1);

    await first.pressButton("🔄 Try again", T);
    await first.waitForBotMessage(/Order #/, 10_000);
    await first.pressButton(/^💳 Pay/, T);
    await first.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    expect((await first.payInvoice(T)).ok).toBe(true);
    await first.waitForBotMessage(DELIVERED, 20_000);
  }, 60_000);
});
