/** Request bodies and JSON replies of the sandboxes' node:http servers. */
import { setMaxListeners } from "node:events";
import type http from "node:http";

/** One JSON answer: status, body, and extra headers (e.g. Retry-After). */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Writes `reply` as JSON with its length. */
export function sendJson(res: http.ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/**
 * The whole request body, or null when it is larger than `maxBytes`. With `stopEarly` the answer
 * comes as soon as the limit is passed (the rest is drained unread); otherwise after the last byte.
 */
export function readBody(
  req: http.IncomingMessage,
  maxBytes: number,
  { stopEarly = false } = {},
): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
      else if (stopEarly) {
        resolve(null);
        req.resume();
      }
    });
    req.on("end", () => resolve(size > maxBytes ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** A body read as JSON: null when empty, the text itself (with `badJson`) when it is not JSON. */
export function parseJsonBody(raw: Buffer | null): { body: unknown; badJson: boolean } {
  if (!raw || raw.length === 0) return { body: null, badJson: false };
  const text = raw.toString("utf8");
  try {
    return { body: JSON.parse(text), badJson: false };
  } catch {
    return { body: text, badJson: true };
  }
}

/** The request's method, URL and path without trailing slashes ("/" stays "/"). */
export function requestTarget(req: http.IncomingMessage): { method: string; url: URL; path: string } {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://sandbox");
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
  return { method, url, path };
}

/** Keeps at most `max` newest items in a request or delivery log. */
export function pushBounded<T>(log: T[], item: T, max = 10_000): void {
  log.push(item);
  if (log.length > max) log.splice(0, log.length - max);
}

/**
 * A signal that aborts with `parent` or after `ms`, whichever comes first; `clear` stops its
 * timer once the request is over. Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on
 * Node 20 the combined signal holds the timeout's signal only weakly, and a garbage collection
 * before it fires leaves the request waiting for ever (a webhook to a bot that never answers).
 */
export function deadline(parent: AbortSignal, ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")),
    ms,
  );
  const onParent = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else {
    // One listener per request in flight, each removed when it ends: a release sends a thousand
    // webhooks at once, which is no leak (Node warns from the 11th on).
    setMaxListeners(0, parent);
    parent.addEventListener("abort", onParent, { once: true });
  }
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener("abort", onParent);
    },
  };
}
