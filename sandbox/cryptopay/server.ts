/**
 * Crypto Pay sandbox: a runnable emulator of @CryptoBot's Crypto Pay API
 * (https://help.crypt.bot/crypto-pay-api), built on node:http, for tests and for `npm run demo`.
 * Tests steer it in-process (pay, expire, webhook modes, injected faults) and read what it saw.
 *
 * What it serves:
 * - `GET|POST {url}/api/{method}` with header `Crypto-Pay-API-Token`; parameters from the query
 *   string, a JSON body or a form body. Methods: `getMe`, `createInvoice`, `getInvoices`.
 *   Answers `{ ok: true, result }` or `{ ok: false, error: { code, name } }` with the HTTP status
 *   equal to `code`.
 * - `GET {url}/invoice/{hash}`: a simple payment page with Pay (choose USDT or TON) and Cancel;
 *   every invoice URL (`bot_invoice_url`, `mini_app_invoice_url`, `web_app_invoice_url`) points here.
 *   `POST {url}/invoice/{hash}/pay` (form field `asset`) pays it; `POST …/cancel` leaves it unpaid.
 *
 * Shapes and error names this sandbox picks where the documentation is not exact:
 * - 401 `UNAUTHORIZED` (missing or wrong token), 405 `METHOD_NOT_FOUND`, 400 `PARAMS_INVALID`
 *   (body not JSON), `CURRENCY_TYPE_INVALID`, `ASSET_INVALID`, `FIAT_INVALID`, `AMOUNT_INVALID` (also for a JSON number: amount is a string),
 *   `ACCEPTED_ASSETS_INVALID`, `DESCRIPTION_TOO_LONG`, `PAYLOAD_TOO_LONG`, `EXPIRES_IN_INVALID`,
 *   `INVOICE_IDS_INVALID`, `STATUS_INVALID`, `COUNT_INVALID`, `OFFSET_INVALID`; 500 `INTERNAL_ERROR`;
 *   429 `TOO_MANY_REQUESTS` (Retry-After: 1).
 * - getInvoices answers `{ items: [...] }`, newest first; `status` filters by active/paid/expired.
 * - An invoice expires lazily: any read at or after `expiration_date` (by the sandbox clock,
 *   `now`) sees it `expired`; an expired invoice cannot be paid.
 * - paid_amount is the RUB amount at fixed rates (USDT 95 ₽, TON 300 ₽, BTC 9 000 000 ₽), rounded
 *   down to 8 decimals, computed in integers.
 * - On payment, the update `{ update_id, update_type: "invoice_paid", request_date, payload }` is
 *   POSTed to `webhookUrl` with `crypto-pay-api-signature`; up to 3 attempts on non-2xx or no answer.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import type http from "node:http";
import { actOutSilentFault, FaultList, replyUnlessLost } from "../kit/faults.js";
import { deadline, pushBounded, type Reply, readBody, sendJson } from "../kit/http.js";
import { createSandboxServer } from "../kit/server.js";

export interface CryptoPaySandboxOptions {
  /** 0 = a free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The app token clients must send. */
  token: string;
  /** Where `invoice_paid` updates are POSTed; unset = no updates. Can be changed with setWebhookUrl. */
  webhookUrl?: string;
  /** Base of the invoice URLs shown to customers; default the sandbox's own URL. */
  publicUrl?: string;
  /** Delay between update attempts. Default 200 ms. */
  webhookRetryDelayMs?: number;
  /** The sandbox clock (ms since epoch) used for created_at, expiry and paid_at. Default Date.now. */
  now?: () => number;
}

export type CryptoPayAsset = "USDT" | "TON" | "BTC";

export interface SandboxInvoice {
  invoice_id: number;
  hash: string;
  currency_type: "crypto" | "fiat";
  asset?: string;
  fiat?: string;
  amount: string;
  accepted_assets?: string[];
  status: "active" | "paid" | "expired";
  created_at: string;
  expiration_date?: string;
  bot_invoice_url: string;
  mini_app_invoice_url: string;
  web_app_invoice_url: string;
  description?: string;
  payload?: string;
  allow_comments: boolean;
  allow_anonymous: boolean;
  paid_asset?: string;
  paid_amount?: string;
  paid_fiat_rate?: string;
  paid_at?: string;
  paid_anonymously?: boolean;
}

/** send: signed updates; drop: none (a lost update); forge: sent with a wrong signature. */
export type WebhookMode = "send" | "drop" | "forge";
export type FaultMode = "500" | "429" | "hang" | "reset" | "lose_response";

export interface CryptoPaySandbox {
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The API root to use as CRYPTOPAY_API_URL: `${url}/api`. */
  apiUrl: string;
  close(): Promise<void>;
  setWebhookUrl(url: string | undefined): void;
  setWebhookMode(mode: WebhookMode): void;
  /**
   * Pays an active invoice as a customer would (asset default USDT) and sends the update per the
   * webhook mode; resolves once the update's attempts are done. Throws when the invoice is unknown,
   * already paid or expired, or the asset is not accepted.
   */
  pay(invoiceId: number, opts?: { asset?: CryptoPayAsset }): Promise<SandboxInvoice>;
  /** Makes an active invoice expire now. */
  expire(invoiceId: number): SandboxInvoice;
  /** Sends the `invoice_paid` update of a paid invoice once more, now, whatever the mode; the HTTP status or null. */
  sendUpdate(invoiceId: number, opts?: { forge?: boolean }): Promise<number | null>;
  /**
   * The next `times` (default 1; Infinity allowed) API requests for `method` ("createInvoice",
   * "getInvoices", "getMe" or "*") fail in `mode`: "500"/"429" answer without processing, "reset"
   * drops the socket without processing, "hang" never answers (until close()), "lose_response"
   * processes the request and then drops the socket.
   */
  fail(method: string, mode: FaultMode, times?: number): void;
  clearFaults(): void;
  invoice(invoiceId: number): SandboxInvoice | undefined;
  /** Oldest first. */
  invoices(): SandboxInvoice[];
  /** API requests seen, oldest first: API method, parameters (token never kept), answered status (0 = none). */
  requests(): { method: string; params: Record<string, unknown>; status: number }[];
  /** Update attempts, oldest first; `status` null = no answer. `body` is the exact bytes sent. */
  updatesSent(): {
    invoiceId: number;
    attempt: number;
    status: number | null;
    signature: string;
    body: string;
  }[];
}

const FIATS = new Set(["USD", "EUR", "RUB", "BYN", "UAH", "GBP", "CNY", "KZT", "UZS", "GEL", "TRY", "AMD"]);
const ASSETS = ["USDT", "TON", "BTC", "ETH", "LTC", "BNB", "TRX", "USDC"];
/** Kopecks per one coin, for paid_amount. */
const RATES_KOPECKS: Record<string, bigint> = { USDT: 9_500n, TON: 30_000n, BTC: 900_000_000n };
const MAX_EXPIRES_IN = 2_678_400;
const MAX_BODY_BYTES = 64 * 1024;
const UPDATE_ATTEMPTS = 3;
const UPDATE_TIMEOUT_MS = 10_000;

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly errorName: string,
  ) {
    super(errorName);
  }
}

const fail = (code: number, name: string): Reply => ({
  status: code,
  body: { ok: false, error: { code, name } },
});

/** The signature Crypto Pay sends: hex HMAC-SHA256 of the body keyed with SHA-256(token). */
export function signUpdate(token: string, rawBody: string | Buffer): string {
  const key = createHash("sha256").update(token).digest();
  return createHmac("sha256", key).update(rawBody).digest("hex");
}

/** "123.45" → 12345 kopecks (exact); null when it is not a positive decimal with at most 2 places. */
function decimalToMinor(text: string): bigint | null {
  const m = /^(\d{1,12})(?:\.(\d{1,2})0*)?$/.exec(text.trim());
  if (!m) return null;
  const v = BigInt(m[1]!) * 100n + BigInt((m[2] ?? "").padEnd(2, "0") || "0");
  return v > 0n ? v : null;
}

/** `minor` (hundredths) ÷ `rate` (hundredths per coin), rounded down to 8 decimals, as text. */
function coinAmount(minor: bigint, rate: bigint): string {
  const scaled = (minor * 100_000_000n) / rate;
  const whole = scaled / 100_000_000n;
  const frac = (scaled % 100_000_000n).toString().padStart(8, "0");
  return `${whole}.${frac}`;
}

function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

export async function startCryptoPaySandbox(opts: CryptoPaySandboxOptions): Promise<CryptoPaySandbox> {
  const now = opts.now ?? Date.now;
  const retryDelayMs = opts.webhookRetryDelayMs ?? 200;
  const invoices = new Map<number, SandboxInvoice>();
  const byHash = new Map<string, number>();
  const log: { method: string; params: Record<string, unknown>; status: number }[] = [];
  const updates: {
    invoiceId: number;
    attempt: number;
    status: number | null;
    signature: string;
    body: string;
  }[] = [];
  /** Armed per API method ("createInvoice"), or "*" for all. */
  const faults = new FaultList<FaultMode>();
  let webhookUrl = opts.webhookUrl;
  let webhookMode: WebhookMode = "send";
  let nextInvoiceId = 1;
  let nextUpdateId = 1;
  let publicUrl = opts.publicUrl ?? "";
  let closed = false;
  const server = createSandboxServer(
    (req, res) => handle(req, res),
    (error) => ({ status: 500, body: { ok: false, error: { code: 500, name: `INTERNAL_ERROR ${error}` } } }),
  );

  const iso = (ms: number) => new Date(ms).toISOString();

  /** Applies lazy expiry and returns the invoice. */
  function refresh(inv: SandboxInvoice): SandboxInvoice {
    if (inv.status === "active" && inv.expiration_date && now() >= Date.parse(inv.expiration_date)) {
      inv.status = "expired";
    }
    return inv;
  }

  function find(invoiceId: number): SandboxInvoice {
    const inv = invoices.get(invoiceId);
    if (!inv) throw new Error(`Crypto Pay sandbox: no invoice ${invoiceId}`);
    return refresh(inv);
  }

  function createInvoice(p: Record<string, unknown>): SandboxInvoice {
    const currencyType = str(p.currency_type) ?? "crypto";
    if (currencyType !== "crypto" && currencyType !== "fiat")
      throw new ApiError(400, "CURRENCY_TYPE_INVALID");
    let asset: string | undefined;
    let fiat: string | undefined;
    let acceptedAssets: string[] | undefined;
    if (currencyType === "crypto") {
      asset = str(p.asset);
      if (!asset || !ASSETS.includes(asset)) throw new ApiError(400, "ASSET_INVALID");
    } else {
      fiat = str(p.fiat);
      if (!fiat || !FIATS.has(fiat)) throw new ApiError(400, "FIAT_INVALID");
      const accepted = str(p.accepted_assets);
      if (accepted !== undefined) {
        acceptedAssets = accepted.split(",").map((a) => a.trim());
        if (!acceptedAssets.every((a) => ASSETS.includes(a)))
          throw new ApiError(400, "ACCEPTED_ASSETS_INVALID");
      }
    }
    // The documentation types amount as a string; a JSON number is refused so a float never slips through.
    const amount = typeof p.amount === "string" ? p.amount : undefined;
    if (amount === undefined || decimalToMinor(amount) === null) throw new ApiError(400, "AMOUNT_INVALID");
    const description = p.description === undefined ? undefined : str(p.description);
    if (description !== undefined && [...description].length > 1024) {
      throw new ApiError(400, "DESCRIPTION_TOO_LONG");
    }
    const payload = p.payload === undefined ? undefined : str(p.payload);
    if (payload !== undefined && Buffer.byteLength(payload) > 4096)
      throw new ApiError(400, "PAYLOAD_TOO_LONG");
    let expiresAt: number | undefined;
    if (p.expires_in !== undefined) {
      const s = Number(p.expires_in);
      if (!Number.isInteger(s) || s < 1 || s > MAX_EXPIRES_IN) throw new ApiError(400, "EXPIRES_IN_INVALID");
      expiresAt = now() + s * 1000;
    }
    const id = nextInvoiceId++;
    const hash = `IV${randomBytes(6).toString("hex").toUpperCase()}`;
    const page = `${publicUrl}/invoice/${hash}`;
    const full: SandboxInvoice = {
      invoice_id: id,
      hash,
      currency_type: currencyType,
      ...(asset === undefined ? {} : { asset }),
      ...(fiat === undefined ? {} : { fiat }),
      amount: amount.trim(),
      ...(acceptedAssets === undefined ? {} : { accepted_assets: acceptedAssets }),
      status: "active",
      created_at: iso(now()),
      ...(expiresAt === undefined ? {} : { expiration_date: iso(expiresAt) }),
      bot_invoice_url: page,
      mini_app_invoice_url: `${page}?via=mini_app`,
      web_app_invoice_url: `${page}?via=web_app`,
      ...(description === undefined ? {} : { description }),
      ...(payload === undefined ? {} : { payload }),
      allow_comments: p.allow_comments !== false,
      allow_anonymous: p.allow_anonymous !== false,
    };
    invoices.set(id, full);
    byHash.set(hash, id);
    return full;
  }

  function getInvoices(p: Record<string, unknown>): { items: SandboxInvoice[] } {
    let list = [...invoices.values()].map(refresh).reverse();
    const ids = p.invoice_ids === undefined ? undefined : str(p.invoice_ids);
    if (p.invoice_ids !== undefined) {
      const parts = (ids ?? "").split(",").map((s) => s.trim());
      if (!parts.every((s) => /^\d+$/.test(s))) throw new ApiError(400, "INVOICE_IDS_INVALID");
      const wanted = new Set(parts.map(Number));
      list = list.filter((i) => wanted.has(i.invoice_id));
    }
    if (p.status !== undefined) {
      const status = str(p.status);
      if (status !== "active" && status !== "paid" && status !== "expired") {
        throw new ApiError(400, "STATUS_INVALID");
      }
      list = list.filter((i) => i.status === status);
    }
    for (const key of ["asset", "fiat"] as const) {
      const v = p[key] === undefined ? undefined : str(p[key]);
      if (v !== undefined) list = list.filter((i) => i[key] === v);
    }
    const count = p.count === undefined ? 100 : Number(p.count);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new ApiError(400, "COUNT_INVALID");
    const offset = p.offset === undefined ? 0 : Number(p.offset);
    if (!Number.isInteger(offset) || offset < 0) throw new ApiError(400, "OFFSET_INVALID");
    return { items: structuredClone(list.slice(offset, offset + count)) };
  }

  function route(method: string, params: Record<string, unknown>): Reply {
    try {
      switch (method) {
        case "getMe":
          return {
            status: 200,
            body: {
              ok: true,
              result: { app_id: 1, name: "Sandbox shop", payment_processing_bot_username: "CryptoBot" },
            },
          };
        case "createInvoice":
          return { status: 200, body: { ok: true, result: structuredClone(createInvoice(params)) } };
        case "getInvoices":
          return { status: 200, body: { ok: true, result: getInvoices(params) } };
        default:
          return fail(405, "METHOD_NOT_FOUND");
      }
    } catch (e) {
      if (e instanceof ApiError) return fail(e.code, e.errorName);
      throw e;
    }
  }

  async function postUpdate(inv: SandboxInvoice, forge: boolean, attempts: number): Promise<number | null> {
    const url = webhookUrl;
    if (!url) throw new Error("Crypto Pay sandbox: no webhook URL configured");
    const body = JSON.stringify({
      update_id: nextUpdateId++,
      update_type: "invoice_paid",
      request_date: iso(now()),
      payload: inv,
    });
    const signature = forge ? signUpdate(`forged-${opts.token}`, body) : signUpdate(opts.token, body);
    let status: number | null = null;
    for (let attempt = 1; attempt <= attempts && !closed; attempt++) {
      status = null;
      const limit = deadline(server.signal, UPDATE_TIMEOUT_MS);
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "crypto-pay-api-signature": signature },
          body,
          signal: limit.signal,
        });
        await res.arrayBuffer().catch(() => undefined);
        status = res.status;
      } catch {
        status = null;
      } finally {
        limit.clear();
      }
      pushBounded(updates, { invoiceId: inv.invoice_id, attempt, status, signature, body });
      if (status !== null && status >= 200 && status < 300) break;
      if (attempt < attempts) await new Promise((r) => setTimeout(r, retryDelayMs));
    }
    return status;
  }

  function markPaid(inv: SandboxInvoice, asset: string): void {
    refresh(inv);
    if (inv.status === "paid")
      throw new Error(`Crypto Pay sandbox: invoice ${inv.invoice_id} is already paid`);
    if (inv.status === "expired")
      throw new Error(`Crypto Pay sandbox: invoice ${inv.invoice_id} has expired`);
    const accepted = inv.accepted_assets ?? (inv.asset ? [inv.asset] : ASSETS);
    if (!accepted.includes(asset)) {
      throw new Error(`Crypto Pay sandbox: invoice ${inv.invoice_id} does not accept ${asset}`);
    }
    const minor = decimalToMinor(inv.amount)!;
    if (inv.currency_type === "fiat") {
      const rate = RATES_KOPECKS[asset] ?? 10_000n;
      inv.paid_amount = coinAmount(minor, rate);
      inv.paid_fiat_rate = coinAmount(rate, 100n);
    } else {
      inv.paid_amount = inv.amount;
    }
    inv.paid_asset = asset;
    inv.status = "paid";
    inv.paid_at = iso(now());
    inv.paid_anonymously = false;
  }

  async function payAndNotify(inv: SandboxInvoice, asset: string): Promise<SandboxInvoice> {
    markPaid(inv, asset);
    const snapshot = structuredClone(inv);
    if (webhookUrl && webhookMode !== "drop") {
      await server.track(postUpdate(snapshot, webhookMode === "forge", UPDATE_ATTEMPTS));
    }
    return structuredClone(inv);
  }

  function html(res: http.ServerResponse, status: number, body: string): void {
    res.writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  function invoicePage(inv: SandboxInvoice, note?: string): string {
    const price = inv.currency_type === "fiat" ? `${inv.amount} ${inv.fiat}` : `${inv.amount} ${inv.asset}`;
    const accepted = (inv.accepted_assets ?? (inv.asset ? [inv.asset] : ["USDT", "TON"])).filter(
      (a) => a === "USDT" || a === "TON" || inv.asset === a,
    );
    const form =
      inv.status === "active"
        ? `<form method="post" action="/invoice/${inv.hash}/pay">
  <label>Coin <select name="asset">${accepted.map((a) => `<option>${escapeHtml(a)}</option>`).join("")}</select></label>
  <button type="submit" id="pay">Pay</button>
</form>
<form method="post" action="/invoice/${inv.hash}/cancel"><button type="submit" id="cancel">Cancel</button></form>`
        : "";
    const paid =
      inv.status === "paid"
        ? `<p id="paid">Paid ${escapeHtml(`${inv.paid_amount} ${inv.paid_asset}`)}</p>`
        : "";
    return `<!doctype html>
<html><head><meta charset="utf-8"><title>Crypto Pay sandbox — invoice ${inv.invoice_id}</title></head>
<body>
<h1>Crypto Pay sandbox</h1>
<p>Invoice #${inv.invoice_id}: ${escapeHtml(inv.description ?? "")}</p>
<p>Amount: <b id="amount">${escapeHtml(price)}</b></p>
<p>Status: <b id="status">${inv.status}</b></p>
${note ? `<p id="note">${escapeHtml(note)}</p>` : ""}${paid}${form}
</body></html>`;
  }

  async function handlePage(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const m = /^\/invoice\/([A-Za-z0-9]+)(?:\/(pay|cancel))?$/.exec(url.pathname);
    const id = m ? byHash.get(m[1]!) : undefined;
    const inv = id === undefined ? undefined : invoices.get(id);
    if (!m || !inv) return html(res, 404, "<!doctype html><p>No such invoice</p>");
    refresh(inv);
    const action = m[2];
    if (!action) {
      if (req.method !== "GET") return html(res, 405, "<!doctype html><p>Method not allowed</p>");
      return html(res, 200, invoicePage(inv));
    }
    if (req.method !== "POST") return html(res, 405, "<!doctype html><p>Method not allowed</p>");
    const raw = await readBody(req, MAX_BODY_BYTES, { stopEarly: true });
    const form = new URLSearchParams(raw?.toString("utf8") ?? "");
    if (action === "cancel") {
      return html(
        res,
        200,
        invoicePage(inv, "You left without paying; the invoice stays open until it expires."),
      );
    }
    try {
      await payAndNotify(inv, form.get("asset") ?? "USDT");
      return html(res, 200, invoicePage(inv, "Thank you, the invoice is paid."));
    } catch (e) {
      return html(res, 409, invoicePage(inv, (e as Error).message.replace(/^Crypto Pay sandbox: /, "")));
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox");
    if (url.pathname.startsWith("/invoice/")) return handlePage(req, res, url);
    const m = /^\/api\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m) return sendJson(res, fail(404, "NOT_FOUND"));
    const method = m[1]!;
    const raw = await readBody(req, MAX_BODY_BYTES, { stopEarly: true });
    let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    let badBody = false;
    if (raw && raw.length > 0) {
      const type = String(req.headers["content-type"] ?? "");
      if (type.includes("application/x-www-form-urlencoded")) {
        params = { ...params, ...Object.fromEntries(new URLSearchParams(raw.toString("utf8"))) };
      } else {
        try {
          const body = JSON.parse(raw.toString("utf8")) as unknown;
          if (typeof body === "object" && body !== null && !Array.isArray(body))
            params = { ...params, ...body };
          else badBody = true;
        } catch {
          badBody = true;
        }
      }
    }
    const record = (status: number) => pushBounded(log, { method, params: structuredClone(params), status });
    const fault = faults.take(req.method ?? "GET", method);
    if (actOutSilentFault(fault, req, server, record)) return;
    let reply: Reply;
    if (fault === "500") reply = fail(500, "INTERNAL_ERROR");
    else if (fault === "429") reply = { ...fail(429, "TOO_MANY_REQUESTS"), headers: { "retry-after": "1" } };
    else if (req.headers["crypto-pay-api-token"] !== opts.token) reply = fail(401, "UNAUTHORIZED");
    else if (raw === null) reply = fail(413, "REQUEST_TOO_LARGE");
    else if (badBody) reply = fail(400, "PARAMS_INVALID");
    else reply = route(method, params);
    record(reply.status);
    replyUnlessLost(fault, req, res, reply);
  }

  const url = await server.listen(opts.port, opts.host);
  if (!publicUrl) publicUrl = url;
  publicUrl = publicUrl.replace(/\/+$/, "");

  return {
    url,
    apiUrl: `${url}/api`,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
    },
    setWebhookUrl(u) {
      webhookUrl = u;
    },
    setWebhookMode(mode) {
      webhookMode = mode;
    },
    pay: (invoiceId, o) => payAndNotify(find(invoiceId), o?.asset ?? "USDT"),
    expire(invoiceId) {
      const inv = find(invoiceId);
      if (inv.status === "active") inv.status = "expired";
      return structuredClone(inv);
    },
    async sendUpdate(invoiceId, o) {
      const inv = find(invoiceId);
      if (inv.status !== "paid") throw new Error(`Crypto Pay sandbox: invoice ${invoiceId} is not paid`);
      return server.track(postUpdate(structuredClone(inv), o?.forge ?? false, 1));
    },
    fail(method, mode, times = 1) {
      faults.add(method, mode, times);
    },
    clearFaults() {
      faults.clear();
    },
    invoice(invoiceId) {
      const inv = invoices.get(invoiceId);
      return inv ? structuredClone(refresh(inv)) : undefined;
    },
    invoices: () => [...invoices.values()].map((i) => structuredClone(refresh(i))),
    requests: () => structuredClone(log),
    updatesSent: () => structuredClone(updates),
  };
}
