import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestWhole } from "../../src/http-client/read-whole.js";

let server: Server;
let origin: string;
const bodies: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      bodies.push(body);
      if (req.url === "/big") {
        // Many chunks, and a character cut across two of them.
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-kind": "big" });
        const part = "ё".repeat(10_000);
        res.write(Buffer.from(part).subarray(0, 9_999));
        setTimeout(() => res.end(Buffer.concat([Buffer.from(part).subarray(9_999), Buffer.from(part)])), 20);
      } else if (req.url === "/slow") {
        setTimeout(() => res.end("late"), 2_000);
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, echo: body }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("requestWhole", () => {
  it("returns the status, the headers and the whole body, however it was cut into chunks", async () => {
    const pool = new Pool(origin);
    try {
      const statuses: number[] = [];
      const big = await requestWhole(pool, origin, {
        method: "GET",
        path: "/big",
        onStatus: (s) => statuses.push(s),
      });
      expect(big.status).toBe(200);
      expect(big.headers["x-kind"]).toBe("big");
      expect(big.text).toBe("ё".repeat(20_000));
      expect(statuses).toEqual([200]);

      const other = await requestWhole(pool, origin, {
        method: "POST",
        path: "/other",
        headers: { "content-type": "application/json" },
        body: '{"a":1}',
      });
      expect(other.status).toBe(404);
      expect(JSON.parse(other.text)).toEqual({ ok: false, echo: '{"a":1}' });
    } finally {
      await pool.close();
    }
  });

  it("stops at the caller's signal, and at the pool's timeouts, with undici's errors", async () => {
    const pool = new Pool(origin, { headersTimeout: 300 });
    try {
      const controller = new AbortController();
      const reason = new Error("the caller gave up");
      const aborted = requestWhole(pool, origin, { method: "GET", path: "/slow", signal: controller.signal });
      setTimeout(() => controller.abort(reason), 50);
      await expect(aborted).rejects.toBe(reason);

      const already = new AbortController();
      already.abort();
      await expect(
        requestWhole(pool, origin, { method: "GET", path: "/slow", signal: already.signal }),
      ).rejects.toMatchObject({ name: "AbortError" });

      await expect(requestWhole(pool, origin, { method: "GET", path: "/slow" })).rejects.toMatchObject({
        code: "UND_ERR_HEADERS_TIMEOUT",
      });
    } finally {
      await pool.close().catch(() => undefined);
    }
  });

  it("reports a refused connection as the network error it is", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const nowhere = `http://127.0.0.1:${port}`;
    const pool = new Pool(nowhere);
    try {
      await expect(requestWhole(pool, nowhere, { method: "GET", path: "/" })).rejects.toMatchObject({
        code: "ECONNREFUSED",
      });
    } finally {
      await pool.close();
    }
  });
});
