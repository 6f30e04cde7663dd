import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface HttpServerDeps {
  host: string;
  port: number;
  logger: Logger;
  /** POST /webhooks/reseller */
  resellerWebhook: Handler;
  /** POST /webhooks/telegram (webhook mode only) */
  telegramWebhook?: Handler;
  /** POST /webhooks/yookassa and /webhooks/cryptopay (when CHECKOUT offers them) */
  yookassaWebhook?: Handler;
  cryptopayWebhook?: Handler;
  /** GET /readyz: true when Redis answers (bounded by READY_TIMEOUT_MS). */
  ready(): Promise<boolean>;
  /** GET /metrics: Prometheus text and its content type. */
  metrics?(): Promise<{ contentType: string; body: string }>;
  /** How long a client may take to send a request's headers, and the whole request (default 10 s, 15 s). */
  timeouts?: { headersMs: number; requestMs: number };
}

/** /readyz answers within this even when `ready()` hangs (a Redis that stopped answering). */
export const READY_TIMEOUT_MS = 50;

/** `ready()`, false when it fails or has not answered within {@link READY_TIMEOUT_MS}. */
async function readyWithin(ready: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([ready().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface HttpServer {
  server: Server;
  /** http://host:port actually bound (port 0 picks a free one). */
  url: string;
  /** Stops accepting connections and closes idle ones; waits for in-flight requests. */
  close(): Promise<void>;
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(body);
}

/** The one HTTP listener: reseller webhooks, Telegram webhook mode, health and metrics. */
export async function startHttpServer(deps: HttpServerDeps): Promise<HttpServer> {
  const log = deps.logger.child({ component: "http" });
  const routes: Record<string, Handler | undefined> = {
    "POST /webhooks/reseller": deps.resellerWebhook,
    "POST /webhooks/telegram": deps.telegramWebhook,
    "POST /webhooks/yookassa": deps.yookassaWebhook,
    "POST /webhooks/cryptopay": deps.cryptopayWebhook,
    "GET /healthz": (_req, res) => text(res, 200, "ok\n"),
    "GET /readyz": async (_req, res) => {
      const ready = await readyWithin(deps.ready);
      text(res, ready ? 200 : 503, ready ? "ready\n" : "redis unavailable\n");
    },
    "GET /metrics": deps.metrics
      ? async (_req, res) => {
          const m = await deps.metrics!();
          res.writeHead(200, { "content-type": m.contentType });
          res.end(m.body);
        }
      : undefined,
  };
  const { headersMs, requestMs } = deps.timeouts ?? { headersMs: 10_000, requestMs: 15_000 };
  // Node checks those limits every `connectionsCheckingInterval` (30 s by default): a client that
  // trickles its request would otherwise hold a connection for 30 s whatever the limits.
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, headersMs / 4) }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    // HEAD is GET without the body (load balancers probe with it); Node leaves the body out.
    const handler = routes[`${req.method === "HEAD" ? "GET" : req.method} ${path}`];
    if (!handler) {
      // A 405 names the methods the path takes (RFC 9110 asks for Allow); HEAD goes with GET.
      const methods = Object.keys(routes)
        .filter((r) => routes[r] && r.endsWith(` ${path}`))
        .flatMap((r) => (r.startsWith("GET ") ? ["GET", "HEAD"] : [r.split(" ")[0]!]));
      req.resume();
      if (methods.length === 0) return text(res, 404, "not found\n");
      return text(res, 405, "method not allowed\n", { allow: methods.join(", ") });
    }
    Promise.resolve(handler(req, res)).catch((err) => {
      log.error({ err, path }, "request failed");
      if (!res.headersSent) text(res, 500, "internal error\n");
      else res.destroy();
    });
  });
  server.headersTimeout = headersMs;
  server.requestTimeout = requestMs;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(deps.port, deps.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
