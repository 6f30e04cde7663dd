import { afterEach, describe, expect, it } from "vitest";
import {
  type AppHarness,
  buyStars,
  DELIVERED,
  newAppCustomer,
  startAppHarness,
} from "../helpers/app-harness.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/private-redis.js";

/** Polls `fn` until it returns something truthy (or throws after `timeoutMs`). */
async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function get(url: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type") };
}

/** The value of one sample line of a Prometheus text body, or undefined when absent. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const ok = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (ok) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

let h: AppHarness | undefined;
let redis: PrivateRedis | undefined;

afterEach(async () => {
  await h?.close();
  await redis?.stop();
  h = undefined;
  redis = undefined;
});

describe("health, readiness and metrics of the running app", () => {
  it("answers /healthz while alive and /readyz only while its Redis answers", async () => {
    redis = await startPrivateRedis();
    h = await startAppHarness({ REDIS_URL: redis.url });
    const base = h.app.http.url;

    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: "ok\n" });
    expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: "ready\n" });

    await redis.kill();
    const down = await eventually(async () => {
      const r = await get(`${base}/readyz`);
      return r.status !== 200 && r;
    });
    expect(down).toMatchObject({ status: 503, body: "redis unavailable\n" });
    expect((await get(`${base}/healthz`)).status).toBe(200);

    await redis.restart();
    const up = await eventually(async () => {
      const r = await get(`${base}/readyz`);
      return r.status === 200 && r;
    });
    expect(up.body).toBe("ready\n");
  });

  it("answers /readyz 503 at once, not after the client's reconnect backoff, while Redis is down or hung", async () => {
    redis = await startPrivateRedis();
    h = await startAppHarness({ REDIS_URL: redis.url });
    const readyz = `${h.app.http.url}/readyz`;
    // Generous: the client's reconnect backoff (0.4, 2.4, 4.2 s… between answers) goes far past it.
    const bound = { signal: AbortSignal.timeout(1_500) };
    const probe = async () => {
      const res = await fetch(readyz, { signal: AbortSignal.timeout(1_500) });
      return { status: res.status, body: await res.text() };
    };
    expect((await fetch(readyz, bound)).status).toBe(200);

    await redis.kill();
    await eventually(async () => (await probe()).status === 503);
    // Every probe while Redis stays down answers, each well before the bound.
    for (let i = 0; i < 6; i += 1) {
      expect(await probe()).toEqual({ status: 503, body: "redis unavailable\n" });
      await new Promise((r) => setTimeout(r, 300));
    }
    await redis.restart();
    await eventually(async () => (await probe()).status === 200);

    // A Redis that keeps the connection open but answers nothing.
    redis.pause();
    try {
      for (let i = 0; i < 3; i += 1)
        expect(await probe()).toEqual({ status: 503, body: "redis unavailable\n" });
      // A scrape answers too, its depths read from Redis as unknown (-1).
      const scrape = await fetch(`${h.app.http.url}/metrics`, { signal: AbortSignal.timeout(1_500) });
      const body = await scrape.text();
      expect(scrape.status).toBe(200);
      expect(body).toMatch(/^shopbot_queue_depth -1$/m);
      expect(body).toMatch(/^shopbot_outgoing_depth -1$/m);
    } finally {
      redis.resume();
    }
    await eventually(async () => (await probe()).status === 200);
  });

  it("exposes every shopbot_* metric and counts the orders it completed", async () => {
    h = await startAppHarness();
    const customers = [newAppCustomer(h.telegram), newAppCustomer(h.telegram)];
    await Promise.all(customers.map((c) => buyStars(c)));
    for (const c of customers)
      expect(c.botMessages().filter((m) => DELIVERED.test(m.text ?? ""))).toHaveLength(1);

    // The final-message job is counted just after the message is sent: wait for both.
    const url = `${h.app.http.url}/metrics`;
    const res = await eventually(async () => {
      const r = await get(url);
      return sample(r.body, "shopbot_jobs_total", { type: "final", outcome: "done" }) === 2 && r;
    });
    expect(res.status).toBe(200);
    expect(res.type).toContain("text/plain");
    const names = [
      "shopbot_order_transitions_total counter",
      "shopbot_reseller_webhooks_total counter",
      "shopbot_reseller_request_duration_seconds histogram",
      "shopbot_reseller_request_errors_total counter",
      "shopbot_telegram_429_total counter",
      "shopbot_jobs_total counter",
      "shopbot_queue_depth gauge",
      "shopbot_outgoing_depth gauge",
    ];
    for (const n of names) expect(res.body).toContain(`# TYPE ${n}`);

    for (const state of ["quoted", "paid", "pending", "delivered"]) {
      expect(sample(res.body, "shopbot_order_transitions_total", { state, product: "stars" })).toBe(2);
    }
    expect(
      sample(res.body, "shopbot_reseller_request_duration_seconds_count", {
        endpoint: "POST /api/reseller/order/pay",
        status: "200",
      }),
    ).toBe(2);
    // Each delivery webhook the sandbox got a 200 for was counted, whether it or a poll came first.
    const answered = h.sandbox.webhooksSent().filter((w) => w.status === 200).length;
    const counted =
      (sample(res.body, "shopbot_reseller_webhooks_total", { outcome: "accepted" }) ?? 0) +
      (sample(res.body, "shopbot_reseller_webhooks_total", { outcome: "unknown_order" }) ?? 0);
    expect(counted).toBe(answered);
    // Readable (not -1): at least the periodic balance check is scheduled.
    expect(Number(/^shopbot_queue_depth (\S+)$/m.exec(res.body)?.[1])).toBeGreaterThanOrEqual(1);
  });
});
