import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startHttpServer } from "../../src/http/server.js";
import { createLogger } from "../../src/logger.js";

let http: HttpServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function start(): Promise<HttpServer> {
  http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger: createLogger({ level: "silent" }),
    // Answers once the whole body is in, as the webhook routes do.
    resellerWebhook: (req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200).end());
    },
    ready: async () => true,
    timeouts: { headersMs: 400, requestMs: 800 },
  });
  return http;
}

/** Sends `head` then one more byte of `drip` every 100 ms; resolves with what the server answered when it closed. */
function trickle(url: string, head: string, drip: string): Promise<{ answer: string; afterMs: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    let i = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && i < drip.length) socket.write(drip[i++] ?? "");
    }, 100);
    socket.on("connect", () => socket.write(head));
    socket.on("data", (d) => {
      answer += d.toString();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    });
  });
}

describe("the HTTP listener", () => {
  it("cuts off a client that trickles its headers once the headers' time is up", async () => {
    const { url } = await start();
    const r = await trickle(url, "POST /webhooks/reseller HTTP/1.1\r\nHost: x\r\n", "X-Slow: ".repeat(200));
    expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
    // Within a few of its checks, not Node's default 30 s between them.
    expect(r.afterMs).toBeLessThan(5_000);
  });

  it("cuts off a client that trickles its body once the request's time is up", async () => {
    const { url } = await start();
    const r = await trickle(
      url,
      "POST /webhooks/reseller HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
      "x".repeat(1000),
    );
    expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(r.afterMs).toBeLessThan(5_000);
  });

  it("answers HEAD as GET without a body, and a method it does not take with 405 and the methods it takes", async () => {
    const { url } = await start();
    const head = await fetch(`${url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect((await fetch(`${url}/readyz`, { method: "HEAD" })).status).toBe(200);
    const del = await fetch(`${url}/healthz`, { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD");
    const headWebhook = await fetch(`${url}/webhooks/reseller`, { method: "HEAD" });
    expect(headWebhook.status).toBe(405);
    expect(headWebhook.headers.get("allow")).toBe("POST");
    const missing = await fetch(`${url}/nowhere`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("allow")).toBeNull();
  });
});
