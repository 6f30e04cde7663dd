import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhook } from "../../../sandbox/reseller/server.js";
import { create, pay, receiver, SECRET, sandbox, waitFor } from "./helpers.js";

const PUBLIC = "https://shop.example.com";

function verified(raw: string, signature: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`);
  const got = Buffer.from(signature ?? "");
  return got.length === expected.length && timingSafeEqual(got, expected);
}

async function setup(
  statuses: number[] = [],
  opts: { secret?: string; retryDelayMs?: number } = { secret: SECRET },
) {
  const rec = await receiver(statuses);
  const sb = await sandbox({
    webhookSecret: opts.secret,
    webhookRewrite: [{ from: PUBLIC, to: rec.url }],
    webhookRetryDelayMs: opts.retryDelayMs ?? 20,
  });
  const order = async (extra: Record<string, unknown> = {}) => {
    const cid = randomUUID();
    await create(sb, {
      custom_id: cid,
      product: "stars",
      recipient_username: "durov",
      quantity: 50,
      callback_url: `${PUBLIC}/webhooks/reseller`,
      ...extra,
    });
    await pay(sb, cid);
    return cid;
  };
  return { rec, sb, order };
}

describe("reseller sandbox webhooks", () => {
  it("posts a signed webhook with the spec's fields to the rewritten callback URL", async () => {
    const { rec, sb, order } = await setup();
    const cid = await order();
    await waitFor(() => rec.got.length === 1);
    const hook = rec.got[0]!;
    expect(hook.path).toBe("/webhooks/reseller");
    expect(verified(hook.raw, hook.signature)).toBe(true);
    expect(hook.signature).toBe(signWebhook(SECRET, hook.raw));
    const body = JSON.parse(hook.raw);
    expect(body).toMatchObject({
      event: "delivered",
      custom_id: cid,
      status: "delivered",
      product: "stars",
      recipient: "durov",
      quantity: 50,
      error_message: null,
      delivered_payload: sb.order(cid)!.deliveredPayload,
    });
    expect(body.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
    expect(sb.webhooksSent()).toEqual([
      { customId: cid, attempt: 1, status: 200, url: `${rec.url}/webhooks/reseller` },
    ]);
  });

  it("sends a failed event with the reason", async () => {
    const { rec, sb, order } = await setup();
    sb.setOutcome(() => ({ status: "failed", errorMessage: "Recipient not found" }));
    await order();
    await waitFor(() => rec.got.length === 1);
    expect(JSON.parse(rec.got[0]!.raw)).toMatchObject({
      event: "failed",
      status: "failed",
      error_message: "Recipient not found",
      delivered_payload: null,
    });
  });

  it("retries after a 500 from the receiver until it answers 2xx", async () => {
    const { rec, sb, order } = await setup([500, 503]);
    const cid = await order();
    await waitFor(() => sb.webhooksSent().length === 3);
    expect(sb.webhooksSent().map((w) => [w.attempt, w.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
    expect(new Set(rec.got.map((g) => g.raw)).size).toBe(1);
    expect(sb.order(cid)?.status).toBe("delivered");
  });

  it("gives up after five attempts, and a receiver that is down counts as a failed attempt", async () => {
    const rec = await receiver();
    const closedUrl = rec.url;
    await rec.close();
    const sb = await sandbox({ webhookSecret: SECRET, webhookRewrite: [{ from: PUBLIC, to: closedUrl }] });
    await create(sb, {
      custom_id: "down",
      product: "neural",
      code: "claude_pro_1m",
      callback_url: `${PUBLIC}/h`,
    });
    await pay(sb, "down");
    await waitFor(() => sb.webhooksSent().length === 5);
    await new Promise((r) => setTimeout(r, 60));
    expect(sb.webhooksSent().map((w) => w.status)).toEqual([null, null, null, null, null]);
  });

  it("sends no webhook without a callback URL, without a secret, or in drop mode, yet delivers", async () => {
    const noSecret = await setup([], {});
    const a = await noSecret.order();
    const dropped = await setup();
    dropped.sb.setWebhooks("drop");
    const b = await dropped.order();
    const c = await dropped.order({ callback_url: undefined });
    await waitFor(() => noSecret.sb.order(a)?.status === "delivered");
    await waitFor(
      () => dropped.sb.order(b)?.status === "delivered" && dropped.sb.order(c)?.status === "delivered",
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(noSecret.rec.got).toHaveLength(0);
    expect(dropped.rec.got).toHaveLength(0);

    expect(await dropped.sb.sendWebhook(b)).toBe(200);
    expect(dropped.rec.got).toHaveLength(1);
    await expect(dropped.sb.sendWebhook(c)).rejects.toThrow(/no callback_url/);
    await expect(noSecret.sb.sendWebhook(a)).rejects.toThrow(/secret/);
  });

  it("resends the final webhook on demand with the next attempt number", async () => {
    const { rec, sb, order } = await setup();
    const cid = await order();
    await waitFor(() => rec.got.length === 1);
    expect(await sb.sendWebhook(cid)).toBe(200);
    expect(rec.got[1]!.raw).toBe(rec.got[0]!.raw);
    expect(sb.webhooksSent().map((w) => w.attempt)).toEqual([1, 2]);
  });

  it("stops pending webhook retries when closed", async () => {
    const { rec, sb, order } = await setup([500, 500, 500, 500, 500], {
      secret: SECRET,
      retryDelayMs: 10_000,
    });
    await order();
    await waitFor(() => sb.webhooksSent().length === 1);
    await sb.close();
    expect(rec.got).toHaveLength(1);
    expect(sb.webhooksSent()).toHaveLength(1);
  });
});
