import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALLOWED_UPDATES } from "../../src/bot/lifecycle.js";
import { intakeKeys } from "../../src/bot/webhook-intake.js";
import { APP_BOT_TOKEN, type AppBackends, newAppCustomer, startAppBackends } from "../helpers/app-harness.js";
import { type AppProcess, spawnApp } from "../helpers/app-process.js";

const SECRET = "telegram-webhook-secret_crash_77";
const CREATE = "POST /api/reseller/order/create";

let backends: AppBackends;
let redis: Redis;
const processes: AppProcess[] = [];

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `src/main.ts` in webhook mode and points the emulator's webhook at its listener. */
async function startProcess(): Promise<AppProcess> {
  const app = spawnApp({ ...backends.env, LOG_LEVEL: "info" });
  processes.push(app);
  await app.waitForOutput("shop bot started");
  // Play the reverse proxy: the bot registered its public https address; Telegram's requests to it
  // reach the local listener.
  const res = await fetch(`${backends.telegram.apiRoot}/bot${APP_BOT_TOKEN}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      url: `${backends.listenerUrl}/webhooks/telegram`,
      secret_token: SECRET,
      allowed_updates: ALLOWED_UPDATES,
    }),
  });
  expect(res.ok).toBe(true);
  return app;
}

/** Updates Telegram still holds for the webhook (not answered 200 yet). */
async function pendingUpdates(): Promise<number> {
  const res = await fetch(`${backends.telegram.apiRoot}/bot${APP_BOT_TOKEN}/getWebhookInfo`);
  const body = (await res.json()) as { result: { pending_update_count: number } };
  return body.result.pending_update_count;
}

beforeEach(async () => {
  backends = await startAppBackends({
    BOT_MODE: "webhook",
    BOT_WEBHOOK_URL: "https://shop.example.test/webhooks/telegram",
    BOT_WEBHOOK_SECRET: SECRET,
  });
  redis = new Redis(backends.env.REDIS_URL!);
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
  await backends.close();
  await redis.quit();
});

describe("webhook mode across a kill -9", () => {
  it("handles an update confirmed to Telegram whose process died mid-way in the restarted process", async () => {
    const first = await startProcess();
    const customer = newAppCustomer(backends.telegram);
    await customer.sendText("/start");
    await customer.pressButton("⭐ Telegram Stars", { timeoutMs: 10_000 });
    await customer.pressButton("50 ⭐", { timeoutMs: 10_000 });

    // The reseller swallows the quote: the customer's tap is still being handled when Telegram gets
    // its answer, and the process dies before it is done.
    backends.sandbox.fail(CREATE, "hang", 1);
    void customer.pressButton(/^🙋 To myself/, { timeoutMs: 10_000 }).catch(() => undefined);
    await until("the quote request", () =>
      backends.sandbox.requests().some((r) => `${r.method} ${r.path}` === CREATE),
    );
    await until("Telegram to get its 200", async () => (await pendingUpdates()) === 0);
    expect(customer.messages().some((m) => /Order #/.test(m.text ?? ""))).toBe(false);
    await first.kill();

    backends.sandbox.clearFaults();
    const second = await startProcess();
    // Nothing is sent again by Telegram: the restarted process finds the tap and handles it.
    const card = await customer.waitForBotMessage(/Order #/, 25_000);
    expect(customer.buttons(card.messageId).some((b) => /Pay/.test(b))).toBe(true);
    expect(second.stdout()).toContain("taking over recorded updates");
    const [updates] = intakeKeys(backends.env.REDIS_PREFIX!);
    await until("the recorded update to be forgotten", async () => (await redis.hlen(updates)) === 0);
  }, 60_000);
});
