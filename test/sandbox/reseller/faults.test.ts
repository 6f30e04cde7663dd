import { describe, expect, it } from "vitest";
import { call, create, getOrder, pay, sandbox, waitFor } from "./helpers.js";

const order = { custom_id: "f1", product: "neural", code: "claude_pro_1m" };

describe("reseller sandbox faults", () => {
  it("answers 500 to the next matching requests without processing them", async () => {
    const sb = await sandbox();
    sb.fail("POST /api/reseller/order/create", "500", 2);
    for (let i = 0; i < 2; i++) {
      const res = await create(sb, order);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ success: false, error: "internal_error" });
    }
    expect(sb.orders()).toHaveLength(0);
    expect((await create(sb, order)).status).toBe(200);
    expect(sb.stats("f1").creates).toBe(1);
  });

  it("answers 429 with Retry-After: 1 and leaves other endpoints alone", async () => {
    const sb = await sandbox();
    sb.fail("GET /api/reseller/balance", "429");
    expect((await call(sb, "GET", "/api/reseller/gifts")).status).toBe(200);
    const limited = await call(sb, "GET", "/api/reseller/balance");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await call(sb, "GET", "/api/reseller/balance")).status).toBe(200);
  });

  it("drops the connection on reset without processing the request", async () => {
    const sb = await sandbox();
    await create(sb, order);
    sb.fail("POST /api/reseller/order/pay", "reset");
    await expect(pay(sb, "f1")).rejects.toThrow();
    expect(sb.stats("f1")).toMatchObject({ pays: 0, charges: 0 });
    expect(sb.order("f1")?.status).toBe("created");
    expect(sb.requests().at(-1)).toMatchObject({ path: "/api/reseller/order/pay", status: 0 });
  });

  it("loses the response of a pay it processed, and the retry charges nothing more", async () => {
    const sb = await sandbox({ balanceRub: 5000 });
    await create(sb, order);
    sb.fail("POST /api/reseller/order/pay", "lose_response");
    await expect(pay(sb, "f1")).rejects.toThrow();
    expect(sb.stats("f1")).toEqual({ creates: 1, pays: 1, charges: 1, chargedRub: 2150 });
    expect(sb.requests().at(-1)).toMatchObject({ path: "/api/reseller/order/pay", status: 200 });
    const retry = await pay(sb, "f1");
    expect(retry.body).toMatchObject({ success: true, status: "pending", price_charged_rub: 2150 });
    expect(sb.stats("f1")).toEqual({ creates: 1, pays: 2, charges: 1, chargedRub: 2150 });
    expect(sb.balanceRub()).toBe(2850);
  });

  it("keeps a hanging request unanswered until the client gives up, then serves the next", async () => {
    const sb = await sandbox();
    sb.fail("*", "hang");
    const ctl = new AbortController();
    const hung = call(sb, "GET", "/api/reseller/products", undefined, { signal: ctl.signal });
    await waitFor(() => sb.requests().length === 1);
    ctl.abort();
    await expect(hung).rejects.toThrow();
    expect((await call(sb, "GET", "/api/reseller/products")).status).toBe(200);
  });

  it("closes while a request hangs and the client sees the connection end", async () => {
    const sb = await sandbox();
    sb.fail("GET /api/reseller/order/*", "hang", Number.POSITIVE_INFINITY);
    await create(sb, order);
    const hung = getOrder(sb, "f1");
    await waitFor(() => sb.requests().length === 2);
    await sb.close();
    await expect(hung).rejects.toThrow();
  });

  it("matches a path without a method and forgets faults when cleared", async () => {
    const sb = await sandbox();
    sb.fail("/api/reseller/gifts", "500", 5);
    expect((await call(sb, "GET", "/api/reseller/gifts")).status).toBe(500);
    sb.clearFaults();
    expect((await call(sb, "GET", "/api/reseller/gifts")).status).toBe(200);
  });
});
