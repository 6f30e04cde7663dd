/**
 * YooKassa sandbox: a runnable emulator of the parts of YooKassa API v3 the shop uses, built from
 * the public API reference on node:http, for tests and for `npm run demo`. Tests steer it
 * in-process (pay or cancel a payment, injected faults, lost notifications) and read what it saw
 * (requests, payments and refunds per Idempotence-Key, notifications sent).
 *
 * What it does, as YooKassa documents it:
 * - API under `/v3` (so `YOOKASSA_API_URL` = `<url>/v3`), HTTP Basic auth `shopId:secretKey`
 *   (401 `invalid_credentials` otherwise). Errors: `{ type: "error", id, code, description,
 *   parameter? }` with 400 `invalid_request`, 401 `invalid_credentials`, 404 `not_found`,
 *   405 `method_not_allowed`, 429 `too_many_requests`, 500 `internal_server_error`.
 * - POST needs `Idempotence-Key` (1–64 characters; 400 without). The same key with the same
 *   method, path and body answers exactly what the first request answered, without doing anything
 *   again; the same key with anything different → 400 `invalid_request`. A request that failed
 *   validation does not take its key, so a fixed request may reuse it.
 * - POST /v3/payments (amount in RUB, `capture`, redirect confirmation with `return_url`,
 *   `description` ≤ 128, `metadata` ≤ 16 string values): the payment starts `pending` with
 *   `confirmation.confirmation_url` = `<publicUrl>/pay/<id>`. GET /v3/payments/{id} reads it.
 * - `GET /pay/{id}` is a simple payment page with Pay and Cancel buttons (POST /pay/{id},
 *   `action=pay|cancel`), which then redirects (303) to the payment's `return_url`. Paying makes
 *   the payment `succeeded` (`waiting_for_capture` when created with `capture: false`); cancelling
 *   makes it `canceled` with `cancellation_details { party: "yoo_money", reason:
 *   "expired_on_confirmation" }`.
 * - POST /v3/refunds (full or partial, only of a `succeeded` payment, never more than is paid and
 *   not yet refunded; 400 otherwise) succeeds at once and raises the payment's `refunded_amount`
 *   (or, while `holdRefunds(true)`, stays `pending` until `settleRefund`).
 *   GET /v3/refunds/{id} reads a refund.
 * - Every status change is POSTed as `{ type: "notification", event, object }` to the notification
 *   URL (`payment.succeeded`, `payment.waiting_for_capture`, `payment.canceled`, `refund.succeeded`),
 *   up to 5 attempts until a 2xx, `notificationRetryDelayMs` apart; `setNotifications("drop")`
 *   loses them, as a lost notification would be.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { actOutSilentFault, FaultList, replyUnlessLost } from "../kit/faults.js";
import { deadline, parseJsonBody, pushBounded, type Reply, readBody, requestTarget } from "../kit/http.js";
import { createSandboxServer } from "../kit/server.js";

export interface YooKassaSandboxOptions {
  /** 0 = a free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  shopId: string;
  secretKey: string;
  /** Where notifications are POSTed; unset = none are sent. */
  notificationUrl?: string;
  /** Default 200 ms between notification attempts; up to 5 attempts. */
  notificationRetryDelayMs?: number;
  /** Base of `confirmation_url` as the customer's browser sees it. Default: the sandbox's own URL. */
  publicUrl?: string;
}

export interface SandboxPayment {
  id: string;
  status: "pending" | "waiting_for_capture" | "succeeded" | "canceled";
  amountKopecks: number;
  refundedKopecks: number;
  capture: boolean;
  description: string | null;
  metadata: Record<string, string>;
  returnUrl: string | null;
  createdAt: string;
  capturedAt: string | null;
  cancellation: { party: string; reason: string } | null;
  idempotenceKey: string;
}

export interface SandboxRefund {
  id: string;
  paymentId: string;
  status: "pending" | "succeeded";
  amountKopecks: number;
  description: string | null;
  createdAt: string;
  idempotenceKey: string;
}

export type FaultMode = "500" | "429" | "202" | "hang" | "reset" | "lose_response";

export interface SandboxRequest {
  method: string;
  /** Path with query string. */
  path: string;
  /** Status answered; what processing produced for "lose_response"; 0 for "hang"/"reset". */
  status: number;
  idempotenceKey: string | null;
  /** Parsed JSON body (raw text when malformed, null when empty). */
  body: unknown;
}

export interface SentNotification {
  event: string;
  /** The payment concerned (for refund events, the refund's payment). */
  paymentId: string;
  objectId: string;
  attempt: number;
  /** HTTP status, or null when no answer. */
  status: number | null;
  url: string;
}

export interface YooKassaSandbox {
  /** Origin, e.g. http://127.0.0.1:41234; the payment page is `<url>/pay/<id>`. */
  url: string;
  /** `<url>/v3`, the value for YOOKASSA_API_URL. */
  apiUrl: string;
  /** Stops the server and notification retries; destroys hanging sockets. */
  close(): Promise<void>;
  /** What pressing Pay does: pending → succeeded (or waiting_for_capture), notification sent. */
  succeedPayment(id: string): SandboxPayment;
  /** What pressing Cancel does (or the payment expiring): pending → canceled, notification sent. */
  cancelPayment(id: string, reason?: string, party?: string): SandboxPayment;
  setNotificationUrl(url: string | null): void;
  /** "drop": status changes happen but no notification is POSTed (a lost notification). */
  setNotifications(mode: "send" | "drop"): void;
  notificationsSent(): SentNotification[];
  /**
   * The next `times` (default 1; Infinity allowed) requests matching `endpoint` fail in `mode`.
   * `endpoint` is "*", "METHOD /path" or "/path", a trailing "*" matching by prefix (e.g.
   * "GET /v3/payments/*"). "500"/"429" answer without processing, and so does "202" (YooKassa's
   * `{ type: "processing", retry_after }`: not finished, ask again with the same key); "reset" destroys the socket
   * without processing; "hang" never answers (until close()); "lose_response" processes the
   * request fully, then destroys the socket without answering.
   */
  fail(endpoint: string, mode: FaultMode, times?: number): void;
  clearFaults(): void;
  /** Every API request answers 401 while on. */
  setAuthFailure(on: boolean): void;
  payment(id: string): SandboxPayment | undefined;
  payments(): SandboxPayment[];
  refunds(): SandboxRefund[];
  /** While on, new refunds stay `pending` (as SBP refunds may) until {@link settleRefund}. */
  holdRefunds(on: boolean): void;
  /** A pending refund goes through: `succeeded`, the payment's refunded amount raised, notification sent. */
  settleRefund(id: string): SandboxRefund;
  /** Requests seen, oldest first (last 10 000; no headers but the Idempotence-Key). */
  requests(): SandboxRequest[];
  /** How many requests carried this key, and how many payments or refunds it created (0 or 1). */
  keyStats(key: string): { requests: number; created: number };
}

const MAX_BODY_BYTES = 64 * 1024;
const NOTIFY_ATTEMPTS = 5;

const clone = <T>(v: T): T => structuredClone(v);
const now = () => new Date().toISOString();

function fmt(kopecks: number): string {
  const d = String(kopecks).padStart(3, "0");
  return `${d.slice(0, -2)}.${d.slice(-2)}`;
}

function kopecksOf(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON with object keys sorted, so the same body always has the same fingerprint. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export async function startYooKassaSandbox(opts: YooKassaSandboxOptions): Promise<YooKassaSandbox> {
  const expectedAuth = createHash("sha256")
    .update(`Basic ${Buffer.from(`${opts.shopId}:${opts.secretKey}`).toString("base64")}`)
    .digest();
  const retryDelayMs = opts.notificationRetryDelayMs ?? 200;
  let notificationUrl = opts.notificationUrl ?? null;
  let notifyMode: "send" | "drop" = "send";
  let authFailure = false;
  let closed = false;
  const faults = new FaultList<FaultMode>();
  let publicUrl = "";
  const payments = new Map<string, SandboxPayment>();
  const refunds = new Map<string, SandboxRefund>();
  let refundsHeld = false;
  const keys = new Map<string, { fingerprint: string; reply: Reply; created: number }>();
  const keyRequests = new Map<string, number>();
  const log: SandboxRequest[] = [];
  const sent: SentNotification[] = [];
  const server = createSandboxServer(
    (req, res) => handle(req, res),
    (error) => err(500, "internal_server_error", `Sandbox error: ${(error as Error).message}`),
  );

  const err = (status: number, code: string, description: string, parameter?: string): Reply => ({
    status,
    body: { type: "error", id: randomUUID(), code, description, ...(parameter ? { parameter } : {}) },
  });
  const bad = (description: string, parameter?: string) =>
    err(400, "invalid_request", description, parameter);

  // ---- objects as YooKassa shows them ----

  const paymentJson = (p: SandboxPayment): Record<string, unknown> => {
    const paid = p.status === "succeeded" || p.status === "waiting_for_capture";
    const out: Record<string, unknown> = {
      id: p.id,
      status: p.status,
      paid,
      amount: { value: fmt(p.amountKopecks), currency: "RUB" },
      ...(p.status === "succeeded"
        ? {
            income_amount: {
              value: fmt(p.amountKopecks - Math.round(p.amountKopecks * 0.035)),
              currency: "RUB",
            },
          }
        : {}),
      ...(p.description !== null ? { description: p.description } : {}),
      recipient: { account_id: opts.shopId, gateway_id: "sandbox" },
      ...(paid
        ? { payment_method: { type: "bank_card", id: p.id, saved: false, title: "Bank card *4477" } }
        : {}),
      created_at: p.createdAt,
      ...(p.capturedAt ? { captured_at: p.capturedAt } : {}),
      ...(p.status === "pending" && p.returnUrl !== null
        ? {
            confirmation: {
              type: "redirect",
              return_url: p.returnUrl,
              confirmation_url: `${publicUrl}/pay/${p.id}`,
            },
          }
        : {}),
      test: true,
      ...(p.refundedKopecks > 0
        ? { refunded_amount: { value: fmt(p.refundedKopecks), currency: "RUB" } }
        : {}),
      refundable: p.status === "succeeded" && p.refundedKopecks < p.amountKopecks,
      metadata: { ...p.metadata },
      ...(p.cancellation ? { cancellation_details: { ...p.cancellation } } : {}),
    };
    return out;
  };

  const refundJson = (r: SandboxRefund): Record<string, unknown> => ({
    id: r.id,
    payment_id: r.paymentId,
    status: r.status,
    created_at: r.createdAt,
    amount: { value: fmt(r.amountKopecks), currency: "RUB" },
    ...(r.description !== null ? { description: r.description } : {}),
  });

  // ---- notifications ----

  const notify = (event: string, paymentId: string, object: Record<string, unknown>) => {
    if (closed || notifyMode === "drop" || notificationUrl === null) return;
    const url = notificationUrl;
    const text = JSON.stringify({ type: "notification", event, object });
    const objectId = String(object.id);
    const run = async () => {
      for (let attempt = 1; attempt <= NOTIFY_ATTEMPTS && !closed; attempt++) {
        let status: number | null = null;
        const limit = deadline(server.signal, 10_000);
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: text,
            signal: limit.signal,
          });
          status = res.status;
          await res.arrayBuffer().catch(() => undefined);
        } catch {
          status = null;
        } finally {
          limit.clear();
        }
        pushBounded(sent, { event, paymentId, objectId, attempt, status, url });
        if (status !== null && status >= 200 && status < 300) return;
        try {
          await sleep(retryDelayMs, undefined, { signal: server.signal });
        } catch {
          return;
        }
      }
    };
    server.track(run());
  };

  // ---- state changes ----

  const mustPending = (id: string): SandboxPayment => {
    const p = payments.get(id);
    if (!p) throw new Error(`YooKassa sandbox: no payment ${id}`);
    if (p.status !== "pending")
      throw new Error(`YooKassa sandbox: payment ${id} is ${p.status}, not pending`);
    return p;
  };

  const succeed = (id: string): SandboxPayment => {
    const p = mustPending(id);
    if (p.capture) {
      p.status = "succeeded";
      p.capturedAt = now();
    } else p.status = "waiting_for_capture";
    notify(p.capture ? "payment.succeeded" : "payment.waiting_for_capture", p.id, paymentJson(p));
    return p;
  };

  const cancel = (id: string, reason = "expired_on_confirmation", party = "yoo_money"): SandboxPayment => {
    const p = mustPending(id);
    p.status = "canceled";
    p.cancellation = { party, reason };
    notify("payment.canceled", p.id, paymentJson(p));
    return p;
  };

  // ---- API ----

  const createPayment = (body: unknown, key: string): Reply | { created: Reply } => {
    if (!isObj(body)) return bad("Request body must be a JSON object");
    const amount = body.amount;
    if (!isObj(amount)) return bad("Missing amount", "amount");
    const kopecks = kopecksOf(amount.value);
    if (kopecks === null || kopecks <= 0)
      return bad("Invalid amount value: a string with up to 2 decimals, greater than 0", "amount.value");
    if (amount.currency !== "RUB")
      return bad("Unsupported currency (the sandbox shop takes RUB)", "amount.currency");
    if (body.capture !== undefined && typeof body.capture !== "boolean")
      return bad("capture must be boolean", "capture");
    let returnUrl: string | null = null;
    if (body.confirmation !== undefined) {
      const c = body.confirmation;
      if (!isObj(c) || c.type !== "redirect")
        return bad("Unsupported confirmation type", "confirmation.type");
      if (typeof c.return_url !== "string" || !URL.canParse(c.return_url))
        return bad("Missing or invalid return_url", "confirmation.return_url");
      returnUrl = c.return_url;
    }
    if (
      body.description !== undefined &&
      (typeof body.description !== "string" || body.description.length > 128)
    )
      return bad("description must be a string of at most 128 characters", "description");
    const metadata: Record<string, string> = {};
    if (body.metadata !== undefined && body.metadata !== null) {
      if (!isObj(body.metadata)) return bad("metadata must be an object", "metadata");
      const entries = Object.entries(body.metadata);
      if (entries.length > 16) return bad("metadata may hold at most 16 keys", "metadata");
      for (const [k, v] of entries) {
        if (k.length > 32 || typeof v !== "string" || v.length > 512)
          return bad("metadata keys ≤ 32 characters, values strings ≤ 512 characters", `metadata.${k}`);
        metadata[k] = v;
      }
    }
    const p: SandboxPayment = {
      id: randomUUID(),
      status: "pending",
      amountKopecks: kopecks,
      refundedKopecks: 0,
      capture: body.capture !== false,
      description: typeof body.description === "string" ? body.description : null,
      metadata,
      returnUrl,
      createdAt: now(),
      capturedAt: null,
      cancellation: null,
      idempotenceKey: key,
    };
    payments.set(p.id, p);
    return { created: { status: 200, body: paymentJson(p) } };
  };

  const createRefund = (body: unknown, key: string): Reply | { created: Reply } => {
    if (!isObj(body)) return bad("Request body must be a JSON object");
    if (typeof body.payment_id !== "string") return bad("Missing payment_id", "payment_id");
    const p = payments.get(body.payment_id);
    if (!p) return bad("Payment doesn't exist or access denied", "payment_id");
    if (!isObj(body.amount)) return bad("Missing amount", "amount");
    const kopecks = kopecksOf(body.amount.value);
    if (kopecks === null || kopecks <= 0)
      return bad("Invalid amount value: a string with up to 2 decimals, greater than 0", "amount.value");
    if (body.amount.currency !== "RUB") return bad("Currency must match the payment's", "amount.currency");
    if (p.status !== "succeeded")
      return bad(`Payment is ${p.status}; only a succeeded payment can be refunded`, "payment_id");
    if (kopecks > p.amountKopecks - p.refundedKopecks)
      return bad(
        `Refund amount exceeds what is left to refund (${fmt(p.amountKopecks - p.refundedKopecks)} RUB)`,
        "amount.value",
      );
    if (
      body.description !== undefined &&
      (typeof body.description !== "string" || body.description.length > 250)
    )
      return bad("description must be a string of at most 250 characters", "description");
    const r: SandboxRefund = {
      id: randomUUID(),
      paymentId: p.id,
      status: "succeeded",
      amountKopecks: kopecks,
      description: typeof body.description === "string" ? body.description : null,
      createdAt: now(),
      idempotenceKey: key,
    };
    if (refundsHeld) r.status = "pending";
    refunds.set(r.id, r);
    if (r.status === "succeeded") {
      p.refundedKopecks += kopecks;
      notify("refund.succeeded", p.id, refundJson(r));
    }
    return { created: { status: 200, body: refundJson(r) } };
  };

  const route = (method: string, path: string, body: unknown, key: string | null): Reply => {
    const paymentMatch = /^\/v3\/payments\/([^/]+)$/.exec(path);
    const refundMatch = /^\/v3\/refunds\/([^/]+)$/.exec(path);
    if (path === "/v3/payments" || path === "/v3/refunds") {
      if (method !== "POST") return err(405, "method_not_allowed", `Use POST for ${path}`);
      if (key === null) return bad("Idempotence-Key header is required", "Idempotence-Key");
      if (key.length > 64) return bad("Idempotence-Key must be at most 64 characters", "Idempotence-Key");
      const fingerprint = `${method} ${path} ${canonical(body)}`;
      const seen = keys.get(key);
      if (seen) {
        if (seen.fingerprint !== fingerprint)
          return bad(
            "Idempotence key duplicated: the same key was used for a different request",
            "Idempotence-Key",
          );
        return clone(seen.reply);
      }
      const out = path === "/v3/payments" ? createPayment(body, key) : createRefund(body, key);
      if (!("created" in out)) return out;
      keys.set(key, { fingerprint, reply: clone(out.created), created: 1 });
      return out.created;
    }
    if (paymentMatch || refundMatch) {
      if (method !== "GET") return err(405, "method_not_allowed", `Use GET for ${path}`);
      const id = decodeURIComponent((paymentMatch ?? refundMatch)![1]!);
      if (paymentMatch) {
        const p = payments.get(id);
        return p ? { status: 200, body: paymentJson(p) } : err(404, "not_found", "Payment not found");
      }
      const r = refunds.get(id);
      return r ? { status: 200, body: refundJson(r) } : err(404, "not_found", "Refund not found");
    }
    return err(404, "not_found", `No route for ${method} ${path}`);
  };

  // ---- the payment page ----

  const page = (p: SandboxPayment): string => {
    const amount = `${fmt(p.amountKopecks)} ₽`;
    const title = escapeHtml(p.description ?? "Payment");
    const body =
      p.status === "pending"
        ? `<form method="post" action="/pay/${p.id}">
  <button type="submit" name="action" value="pay" id="pay">Pay ${amount}</button>
  <button type="submit" name="action" value="cancel" id="cancel">Cancel</button>
</form>`
        : `<p id="status">This payment is ${escapeHtml(p.status)}.</p>${
            p.returnUrl ? `<p><a href="${escapeHtml(p.returnUrl)}">Back to the shop</a></p>` : ""
          }`;
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>YooKassa sandbox — ${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
button{font-size:1.1rem;padding:.6rem 1.2rem;margin-right:.5rem}</style></head>
<body><h1>YooKassa sandbox</h1><p>${title}</p><p><strong>${amount}</strong> — shop ${escapeHtml(opts.shopId)}</p>
${body}
<p><small>Test payment: no real money moves.</small></p></body></html>`;
  };

  const handlePage = (method: string, id: string, raw: Buffer, res: http.ServerResponse) => {
    const p = payments.get(id);
    const html = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
      res.end(text);
    };
    if (!p) return html(404, "<!doctype html><p>No such payment.</p>");
    if (method === "GET") return html(200, page(p));
    if (method !== "POST") return html(405, "<!doctype html><p>Method not allowed.</p>");
    const action = new URLSearchParams(raw.toString("utf8")).get("action");
    if (p.status === "pending") {
      if (action === "pay") succeed(id);
      else if (action === "cancel") cancel(id);
      else return html(400, "<!doctype html><p>Unknown action.</p>");
    }
    if (p.returnUrl) return html(303, "", { location: p.returnUrl });
    return html(200, page(p));
  };

  // ---- HTTP plumbing ----

  const authorized = (header: string | undefined) =>
    !authFailure && !!header && timingSafeEqual(createHash("sha256").update(header).digest(), expectedAuth);

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const { method, url, path } = requestTarget(req);
    const raw = await readBody(req, MAX_BODY_BYTES);
    const pageMatch = /^\/pay\/([^/]+)$/.exec(path);
    if (pageMatch) return handlePage(method, decodeURIComponent(pageMatch[1]!), raw ?? Buffer.alloc(0), res);

    const keyHeader = req.headers["idempotence-key"];
    const key = typeof keyHeader === "string" && keyHeader !== "" ? keyHeader : null;
    if (key !== null) keyRequests.set(key, (keyRequests.get(key) ?? 0) + 1);
    const { body, badJson } = parseJsonBody(raw);
    const record = (status: number) =>
      pushBounded(log, {
        method,
        path: url.pathname + url.search,
        status,
        idempotenceKey: key,
        body: clone(body),
      });

    const fault = faults.take(method, path);
    if (actOutSilentFault(fault, req, server, record)) return;
    let reply: Reply;
    if (fault === "500") reply = err(500, "internal_server_error", "Sandbox: injected server error");
    else if (fault === "202")
      reply = {
        status: 202,
        body: { type: "processing", description: "Request accepted, repeat it later", retry_after: 50 },
      };
    else if (fault === "429")
      reply = { ...err(429, "too_many_requests", "Too many requests"), headers: { "retry-after": "1" } };
    else if (raw === null) reply = bad("Request body too large");
    else if (!authorized(req.headers.authorization))
      reply = err(
        401,
        "invalid_credentials",
        "Authentication by given credentials failed (Basic shopId:secretKey)",
      );
    else if (badJson) reply = bad("Request body is not valid JSON");
    else reply = route(method, path, body, key);
    record(reply.status);
    replyUnlessLost(fault, req, res, reply);
  };

  const url = await server.listen(opts.port, opts.host);
  publicUrl = (opts.publicUrl ?? url).replace(/\/+$/, "");

  return {
    url,
    apiUrl: `${url}/v3`,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
    },
    succeedPayment: (id) => clone(succeed(id)),
    cancelPayment: (id, reason, party) => clone(cancel(id, reason, party)),
    setNotificationUrl(u) {
      notificationUrl = u;
    },
    setNotifications(mode) {
      notifyMode = mode;
    },
    notificationsSent: () => clone(sent),
    fail(endpoint, mode, times = 1) {
      faults.add(endpoint, mode, times);
    },
    clearFaults() {
      faults.clear();
    },
    setAuthFailure(on) {
      authFailure = on;
    },
    payment: (id) => {
      const p = payments.get(id);
      return p ? clone(p) : undefined;
    },
    payments: () => [...payments.values()].map(clone),
    refunds: () => [...refunds.values()].map(clone),
    holdRefunds(on) {
      refundsHeld = on;
    },
    settleRefund(id) {
      const r = refunds.get(id);
      if (r?.status !== "pending") throw new Error(`refund ${id} is not pending`);
      r.status = "succeeded";
      const p = payments.get(r.paymentId);
      if (p) p.refundedKopecks += r.amountKopecks;
      notify("refund.succeeded", r.paymentId, refundJson(r));
      return clone(r);
    },
    requests: () => clone(log),
    keyStats: (key) => ({ requests: keyRequests.get(key) ?? 0, created: keys.get(key)?.created ?? 0 }),
  };
}
