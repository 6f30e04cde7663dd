import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  orderIdOf,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";

/** What the bot does with a customer who blocked it while an order was under way. */

const HOLD_MS = 4_000;
const T = { timeoutMs: 10_000 };

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness({}, { engine: { unreachableHoldMs: HOLD_MS } });
});
afterAll(async () => {
  await h.close();
});

describe("a customer who blocked the bot before the delivery", () => {
  it("is tried again after a pause, not every few seconds, and gets the final message once back", async () => {
    const c = newAppCustomer(h.telegram);
    await starsCard(c);
    h.sandbox.pauseDelivery(true);
    await c.pressButton(/^💳 Pay/, T);
    await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
    const id = orderIdOf(c.messages().find((m) => m.invoice)!);
    expect((await c.payInvoice(T)).ok).toBe(true);
    await c.waitForBotMessage(/Being delivered…/, 10_000);
    c.block();
    h.sandbox.pauseDelivery(false);
    const triesOf = () =>
      h.telegram
        .calls("sendMessage")
        .filter(
          (call) => !call.ok && call.payload.chat_id === c.id && /delivered/.test(String(call.payload.text)),
        ).length;
    await new Promise((r) => setTimeout(r, HOLD_MS - 1_000));
    expect(triesOf()).toBe(1);
    c.unblock();
    const final = await c.waitForBotMessage(DELIVERED, 15_000);
    expect(final.text).toContain(id.slice(0, 8));
    expect(triesOf()).toBe(1);
  });
});
