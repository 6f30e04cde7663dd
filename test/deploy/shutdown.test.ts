import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OrderStore } from "../../src/orders/store.js";
import {
  type AppBackends,
  DELIVERED,
  newAppCustomer,
  orderIdOf,
  quoteStars,
  startAppBackends,
} from "../helpers/app-harness.js";
import { type AppProcess, spawnApp } from "../helpers/app-process.js";

const PAY = "POST /api/reseller/order/pay";

let backends: AppBackends;
let redis: Redis;
let store: OrderStore;
const processes: AppProcess[] = [];

/** Starts `src/main.ts` as its own process against the backends; resolves once it is serving. */
async function startProcess(): Promise<AppProcess> {
  const app = spawnApp({ ...backends.env, LOG_LEVEL: "info" });
  processes.push(app);
  await app.waitForOutput("shop bot started");
  return app;
}

async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeEach(async () => {
  backends = await startAppBackends();
  redis = new Redis(backends.env.REDIS_URL!);
  store = new OrderStore(redis, backends.env.REDIS_PREFIX!);
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
  await backends.close();
  await redis.quit();
});

describe("stopping the bot process with a signal", () => {
  it("exits 0 on SIGTERM while a paid order's pay call is in flight, and the next start completes the order", async () => {
    const first = await startProcess();
    const customer = newAppCustomer(backends.telegram);
    const orderId = orderIdOf(await quoteStars(customer));

    // The reseller swallows every pay call: the customer has paid and the bot is stuck in the call,
    // retrying after each 10 s timeout, so a retry is still hanging when the 10 s grace ends.
    backends.sandbox.fail(PAY, "hang", Number.POSITIVE_INFINITY);
    const paid = await customer.payInvoice({ timeoutMs: 10_000 });
    expect(paid.ok).toBe(true);
    await until("the pay call", () =>
      backends.sandbox.requests().some((r) => `${r.method} ${r.path}` === PAY),
    );
    expect((await store.get(orderId))?.state).toBe("paid");
    await new Promise((r) => setTimeout(r, 1_000));

    first.child.kill("SIGTERM");
    const exit = await first.waitForExit(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(first.stdout()).toContain('"msg":"stopped"');
    expect((await store.get(orderId))?.state).toBe("paid");
    expect(backends.sandbox.stats(orderId).charges).toBe(0);

    backends.sandbox.clearFaults();
    await startProcess();
    await customer.waitForBotMessage(DELIVERED, 20_000);
    const order = await until("the final message to be recorded", async () => {
      const o = await store.get(orderId);
      return o?.finalNotifiedAt !== undefined && o;
    });
    expect(order.state).toBe("delivered");
    expect(backends.sandbox.stats(orderId).charges).toBe(1);
    expect(customer.botMessages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);
    for (const p of processes) {
      for (const secret of backends.secrets) expect(p.stdout() + p.stderr()).not.toContain(secret);
    }
  });

  it("exits at once with code 1 on a second signal during a slow shutdown", async () => {
    const app = await startProcess();
    const customer = newAppCustomer(backends.telegram);
    await quoteStars(customer);
    backends.sandbox.fail(PAY, "hang", Number.POSITIVE_INFINITY);
    expect((await customer.payInvoice({ timeoutMs: 10_000 })).ok).toBe(true);
    await until("the pay call", () =>
      backends.sandbox.requests().some((r) => `${r.method} ${r.path}` === PAY),
    );

    app.child.kill("SIGTERM");
    await app.waitForOutput('"msg":"shutting down"');
    app.child.kill("SIGTERM");
    const exit = await app.waitForExit(15_000);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(app.stdout()).toContain("second signal: exiting at once");
    expect(app.stdout()).not.toContain('"msg":"stopped"');
  });
});
