import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import {
  type ResellerSandbox,
  type SandboxOptions,
  startResellerSandbox,
} from "../../../sandbox/reseller/server.js";

export const API_KEY = "test-key";
export const SECRET = "test-webhook-secret";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A sandbox closed after the test. */
export async function sandbox(opts: Partial<SandboxOptions> = {}): Promise<ResellerSandbox> {
  const sb = await startResellerSandbox({
    apiKey: API_KEY,
    deliveryDelayMs: 20,
    webhookRetryDelayMs: 20,
    ...opts,
  });
  open.push(sb);
  return sb;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** Calls the sandbox over HTTP with the test key (or `key`). */
export async function call(
  sb: ResellerSandbox,
  method: string,
  path: string,
  body?: unknown,
  init: { key?: string | null; raw?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const key = init.key === undefined ? API_KEY : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(sb.url + path, {
    method,
    headers,
    body: init.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    signal: init.signal,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

export const create = (sb: ResellerSandbox, body: Record<string, unknown>) =>
  call(sb, "POST", "/api/reseller/order/create", body);
export const pay = (sb: ResellerSandbox, customId: string) =>
  call(sb, "POST", "/api/reseller/order/pay", { custom_id: customId });
export const getOrder = (sb: ResellerSandbox, customId: string) =>
  call(sb, "GET", `/api/reseller/order/${encodeURIComponent(customId)}`);

/** Waits until `fn` returns a truthy value (gives up after `ms` with an error). */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  ms = 5000,
): Promise<Exclude<T, null | undefined | false | 0 | "">> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as Exclude<T, null | undefined | false | 0 | "">;
    if (Date.now() > until) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Received {
  path: string;
  signature: string | undefined;
  raw: string;
}

/** A tiny webhook receiver; answers with the queued statuses first, then 200. */
export async function receiver(statuses: number[] = []) {
  const got: Received[] = [];
  const queue = [...statuses];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({
        path: req.url ?? "",
        signature: req.headers["x-signature"] as string | undefined,
        raw: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(queue.shift() ?? 200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const rec = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  open.push(rec);
  return rec;
}
