/** The node:http server of a sandbox: listening, hanging sockets, background work, and closing. */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type Reply, sendJson } from "./http.js";

export interface SandboxServer {
  /** http://host:port, once `listen` resolved. */
  readonly url: string;
  /** Aborted by `close`: background work (webhook retries) stops waiting. */
  readonly signal: AbortSignal;
  listen(port?: number, host?: string): Promise<string>;
  /** Keeps the request's socket open without an answer until `close`. */
  hang(req: http.IncomingMessage): void;
  /** Keeps a background promise (a webhook delivery) so `close` waits for it; returns it. */
  track<T>(p: Promise<T>): Promise<T>;
  /** Aborts background work, destroys hanging sockets, closes every connection, waits for tracked work. */
  close(): Promise<void>;
}

/**
 * A server for `handle`; a request whose handler throws gets `onError(error)` as its answer unless
 * something was sent already.
 */
export function createSandboxServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  onError: (error: unknown) => Reply,
): SandboxServer {
  const hanging = new Set<Socket>();
  const inflight = new Set<Promise<unknown>>();
  const shutdown = new AbortController();
  let url = "";
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      sendJson(res, onError(error));
    });
  });

  return {
    get url() {
      return url;
    },
    signal: shutdown.signal,
    async listen(port = 0, host = "127.0.0.1") {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      const addr = server.address() as AddressInfo;
      const shown = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
      url = `http://${shown}:${addr.port}`;
      return url;
    },
    hang(req) {
      hanging.add(req.socket);
      req.socket.once("close", () => hanging.delete(req.socket));
    },
    track(p) {
      inflight.add(p);
      void p.finally(() => inflight.delete(p)).catch(() => undefined);
      return p;
    },
    async close() {
      shutdown.abort();
      for (const s of hanging) s.destroy();
      hanging.clear();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
      await Promise.allSettled([...inflight]);
    },
  };
}
