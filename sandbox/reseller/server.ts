/**
 * Reseller API sandbox: a runnable emulator of the API in shared/reseller-api.md, built on
 * node:http, for tests and for trying the bot without a deposit. Tests steer it in-process
 * (outcomes, balance, injected faults) and read what it saw (requests, charges, webhooks).
 *
 * Shapes the spec leaves open ("not shown") and that this sandbox picks:
 * - Errors: `{ success: false, error: <code>, message, ...}` with codes
 *   401 `unauthorized`; 400 `invalid_json`, `validation_error` (+ `missing_fields`),
 *   `invalid_value` (+ `invalid_fields`); 402 `insufficient_funds` (+ `balance_rub`);
 *   404 `order_not_found`, `game_not_found`, `region_not_found`, `not_found`;
 *   405 `method_not_allowed`; 413 `payload_too_large`; 429 `rate_limited` (Retry-After: 1);
 *   500 `internal_error`.
 *   Missing keys of a top-up's `fields` are listed as `fields.<key>`, also when `fields` itself is
 *   absent (every key the package names is then missing).
 * - GET /products: `{ success, products: [{ product, title, ...price fields }] }` where stars carry
 *   `unit_price_rub`, `min`, `max`; premium `wholesale_price_rub`, `months`; steam `fee_percent`,
 *   `min`, `max`; gift/neural/game point at their catalogs.
 * - GET /games: `{ games: [{ key, title }] }`; `?game=` → `{ game, regions: [{ code, title }] }`;
 *   `&region=` → `{ game, region, delivery, fields, packages: [{ product_ref, title, wholesale_price_rub }] }`.
 * - balance_nano = round(balance_rub × 10⁹).
 * - A repeated create answers exactly like the first create (status `created`), a repeated pay
 *   exactly like the first pay (status `pending`), whatever the order's status is now.
 * - GET /order/{id}: `{ success, custom_id, status, product, recipient, quantity, total_to_pay_rub,
 *   price_charged_rub, delivered_payload, error_message, created_at, completed_at }` plus `gift_id`,
 *   `code`, `product_ref`, `fields` when the order had them. `recipient` is null for neural and
 *   game; `quantity` is 1 for products that take none. Timestamps are UTC ISO 8601 without a zone.
 * - Webhooks carry the same `recipient`/`quantity`, `delivered_payload: null` when failed; up to
 *   5 attempts, `webhookRetryDelayMs` apart, each attempt given 10 s to answer.
 * - Sample usernames are checked loosely: messenger `@?[A-Za-z0-9_]{4,32}`, Steam login any 1–64
 *   non-space characters.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { RESELLER_PRODUCTS } from "../../src/reseller/types.js";
import { actOutSilentFault, FaultList, replyUnlessLost } from "../kit/faults.js";
import { deadline, parseJsonBody, pushBounded, readBody, requestTarget } from "../kit/http.js";
import { createSandboxServer } from "../kit/server.js";
import {
  findPackage,
  GAMES,
  GIFTS,
  giftPriceRub,
  LIMITS,
  NEURAL_ITEMS,
  PREMIUM_PRICES_RUB,
  round2,
  STAR_UNIT_PRICE_RUB,
  STEAM_FEE_PERCENT,
} from "./catalog.js";

export interface SandboxOptions {
  /** 0 = a free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  apiKey: string;
  /** When set, webhooks are signed with it; when unset, no webhooks are sent. */
  webhookSecret?: string;
  /** Default 100000. */
  balanceRub?: number;
  /** Delay between pay and the final status. Default 50. */
  deliveryDelayMs?: number;
  /** Prefix rewrite of callback_url before POSTing (the spec allows only https callbacks). */
  webhookRewrite?: { from: string; to: string }[];
  /** Delay between webhook attempts. Default 200; up to 5 attempts on non-2xx / network error. */
  webhookRetryDelayMs?: number;
}

export interface SandboxOrder {
  customId: string;
  product: string;
  /** The create request body as received. */
  request: Record<string, unknown>;
  status: "created" | "pending" | "delivered" | "failed";
  totalToPayRub: number;
  deliveredPayload: Record<string, unknown> | null;
  errorMessage: string | null;
  createdAt: string;
  completedAt: string | null;
  callbackUrl: string | null;
}

export type Outcome =
  | { status: "delivered"; payload?: Record<string, unknown> }
  | { status: "failed"; errorMessage: string };

export type FaultMode = "500" | "hang" | "reset" | "lose_response" | "429";

export interface ResellerSandbox {
  /** Base URL, e.g. http://127.0.0.1:41234 (the spec's paths are appended). */
  url: string;
  /** Stops the server, delivery timers and webhook retries; destroys hanging sockets. */
  close(): Promise<void>;
  setBalanceRub(rub: number): void;
  balanceRub(): number;
  /** Decides how paid orders end. Default: delivered with a payload fitting the product. */
  setOutcome(fn: (order: SandboxOrder) => Outcome): void;
  setDeliveryDelayMs(ms: number): void;
  /** While paused, paid orders stay pending; unpausing schedules them. */
  pauseDelivery(paused: boolean): void;
  /** Completes every pending order now; returns how many. */
  deliverAllNow(): number;
  /** drop = never POST webhooks (orders still complete). */
  setWebhooks(mode: "send" | "drop"): void;
  /**
   * The next `times` (default 1; Infinity allowed) requests matching `endpoint` fail in `mode`.
   * `endpoint` is "*", "METHOD /path", or "/path" (any method); a path ending in "*" matches by
   * prefix, e.g. "GET /api/reseller/order/*". "500"/"429" answer without processing; "reset"
   * destroys the socket without processing; "hang" never answers (socket kept open until close());
   * "lose_response" processes the request fully, then destroys the socket without answering.
   */
  fail(endpoint: string, mode: FaultMode, times?: number): void;
  clearFaults(): void;
  /** Every request answers 401 while on. */
  setAuthFailure(on: boolean): void;
  order(customId: string): SandboxOrder | undefined;
  orders(): SandboxOrder[];
  /** creates/pays count every processed create/pay request naming this custom_id (valid or not). */
  stats(customId: string): { creates: number; pays: number; charges: number; chargedRub: number };
  /** Number of deposit charges across all orders. */
  totalCharges(): number;
  /**
   * Requests seen, oldest first (last 10 000; no headers). `path` includes the query string;
   * `body` is the parsed JSON body (the raw text when malformed, null when empty); `status` is
   * what was answered, or what processing produced for "lose_response", or 0 for "hang"/"reset".
   */
  requests(): { method: string; path: string; status: number; body: unknown }[];
  /** Webhook attempts; `url` is the address actually POSTed (after rewrite); status null = no answer. */
  webhooksSent(): { customId: string; attempt: number; status: number | null; url: string }[];
  /**
   * (Re)sends the final webhook of an order once, now, even in "drop" mode; returns the HTTP status
   * (null = no answer). Throws when the order is unknown or not final, had no callback_url, or no
   * webhook secret is configured.
   */
  sendWebhook(customId: string): Promise<number | null>;
}

/** `sha256=<hex>` HMAC-SHA256 of the raw body, as in the X-Signature header. */
export function signWebhook(secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}

const API = "/api/reseller";
const MAX_BODY_BYTES = 1024 * 1024;
const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;

interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface Entry {
  order: SandboxOrder;
  recipient: string | null;
  quantity: number;
  createAnswer: Record<string, unknown>;
  payAnswer: Record<string, unknown> | null;
  timer: NodeJS.Timeout | undefined;
  webhookAttempts: number;
}

interface Stats {
  creates: number;
  pays: number;
  charges: number;
  chargedRub: number;
}

/** UTC ISO 8601 without a zone designator, as the spec's webhook shows. */
function timestamp(): string {
  return new Date().toISOString().replace("Z", "");
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

const err = (status: number, error: string, message: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { success: false, error, message, ...extra },
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const codeGroups = (groups: number) =>
  Array.from({ length: groups }, () => randomBytes(3).toString("hex").slice(0, 4).toUpperCase()).join("-");

/** A delivery result that fits the product, like the real service returns. */
export function defaultPayload(order: SandboxOrder): Record<string, unknown> {
  const req = order.request;
  switch (order.product) {
    case "stars":
    case "premium_3m":
    case "premium_6m":
    case "premium_12m":
    case "gift":
      return { tx_hash: `0x${hex(32)}` };
    case "steam":
      return { transaction_id: `STM-${hex(6).toUpperCase()}`, amount_rub: req.quantity };
    case "neural": {
      const code = String(req.code);
      return { code: codeGroups(4), activation_url: `https://sandbox.invalid/activate/${code}` };
    }
    case "game": {
      const found = findPackage(String(req.product_ref));
      const quantity = typeof req.quantity === "number" ? req.quantity : 1;
      if (found?.region.delivery === "topup") {
        const fields = (req.fields ?? {}) as Record<string, unknown>;
        return {
          transaction_id: `GT-${hex(6).toUpperCase()}`,
          ...fields,
          package: found.pkg.title,
          quantity,
        };
      }
      return { codes: Array.from({ length: quantity }, () => codeGroups(4)) };
    }
    default:
      return {};
  }
}

const TG_USERNAME = /^@?[A-Za-z0-9_]{4,32}$/;
const STEAM_LOGIN = /^\S{1,64}$/;

type Validated =
  | { ok: true; totalRub: number; recipient: string | null; quantity: number }
  | { ok: false; reply: Reply };

/** Per-product rules of §2.1 and §8. */
function validateCreate(b: Record<string, unknown>): Validated {
  const missing: string[] = [];
  const invalid: { field: string; message: string }[] = [];
  const present = (k: string) => b[k] !== undefined && b[k] !== null && b[k] !== "";
  const need = (...keys: string[]) => {
    for (const k of keys) if (!present(k)) missing.push(k);
  };
  const product = b.product as string;
  const qty = b.quantity;
  const checkQty = (min: number, max: number) => {
    if (!present("quantity")) return;
    if (typeof qty !== "number" || !Number.isInteger(qty))
      invalid.push({ field: "quantity", message: "must be an integer" });
    else if (qty < min || qty > max) invalid.push({ field: "quantity", message: `must be ${min} to ${max}` });
  };
  const checkRecipient = (re: RegExp) => {
    const r = b.recipient_username;
    if (present("recipient_username") && (typeof r !== "string" || !re.test(r)))
      invalid.push({ field: "recipient_username", message: "is not a valid username" });
  };
  let price = 0;
  let quantity = 1;
  const isPremium = product in PREMIUM_PRICES_RUB;
  if (product === "stars") {
    need("recipient_username", "quantity");
    checkQty(LIMITS.stars.min, LIMITS.stars.max);
    checkRecipient(TG_USERNAME);
    price = Number(qty) * STAR_UNIT_PRICE_RUB;
  } else if (isPremium) {
    need("recipient_username");
    checkRecipient(TG_USERNAME);
    if (b.quantity !== undefined)
      invalid.push({ field: "quantity", message: "must not be sent for premium" });
    price = PREMIUM_PRICES_RUB[product]!.priceRub;
  } else if (product === "gift") {
    need("gift_id", "recipient_username");
    checkRecipient(TG_USERNAME);
    if (present("gift_id")) {
      const gift = GIFTS.find((g) => g.gift_id === String(b.gift_id));
      if (!gift) invalid.push({ field: "gift_id", message: "unknown gift" });
      else if (gift.remaining_count === 0) invalid.push({ field: "gift_id", message: "gift is sold out" });
      else price = giftPriceRub(gift);
    }
  } else if (product === "steam") {
    need("recipient_username", "quantity");
    checkQty(LIMITS.steam.min, LIMITS.steam.max);
    checkRecipient(STEAM_LOGIN);
    price = (Number(qty) * (100 + STEAM_FEE_PERCENT)) / 100;
  } else if (product === "neural") {
    need("code");
    if (present("code")) {
      const item = NEURAL_ITEMS.find((i) => i.code === b.code && i.delivery === "auto");
      if (!item) invalid.push({ field: "code", message: "unknown code" });
      else price = item.wholesale_price_rub;
    }
  } else if (product === "game") {
    need("product_ref", "quantity");
    checkQty(LIMITS.game.min, LIMITS.game.max);
    if (present("product_ref")) {
      const found = findPackage(String(b.product_ref));
      if (!found) invalid.push({ field: "product_ref", message: "unknown package" });
      else {
        price = found.pkg.wholesale_price_rub * Number(qty);
        if (found.region.delivery === "topup") {
          const f = b.fields ?? {};
          if (typeof f !== "object" || Array.isArray(f))
            invalid.push({ field: "fields", message: "must be an object" });
          else {
            const fields = f as Record<string, unknown>;
            for (const key of found.region.fields) {
              const v = fields[key];
              if (v === undefined || v === null || v === "") missing.push(`fields.${key}`);
              else if (typeof v !== "string")
                invalid.push({ field: `fields.${key}`, message: "must be a string" });
            }
          }
        }
      }
    }
  }
  if (["stars", "steam", "game"].includes(product) && typeof qty === "number") quantity = qty;
  if (present("callback_url")) {
    let ok = false;
    try {
      ok = typeof b.callback_url === "string" && new URL(b.callback_url).protocol === "https:";
    } catch {}
    if (!ok) invalid.push({ field: "callback_url", message: "must be an https URL" });
  }
  if (missing.length > 0)
    return {
      ok: false,
      reply: err(400, "validation_error", "Missing required fields", { missing_fields: missing }),
    };
  if (invalid.length > 0)
    return {
      ok: false,
      reply: err(400, "invalid_value", invalid.map((i) => `${i.field} ${i.message}`).join("; "), {
        invalid_fields: invalid.map((i) => i.field),
      }),
    };
  const recipient =
    product === "neural" || product === "game"
      ? null
      : typeof b.recipient_username === "string"
        ? b.recipient_username
        : null;
  return { ok: true, totalRub: round2(price), recipient, quantity };
}

export async function startResellerSandbox(opts: SandboxOptions): Promise<ResellerSandbox> {
  const expectedAuth = createHash("sha256").update(`Bearer ${opts.apiKey}`).digest();
  const rewrites = opts.webhookRewrite ?? [];
  const retryDelayMs = opts.webhookRetryDelayMs ?? 200;
  let balance = opts.balanceRub ?? 100_000;
  let deliveryDelayMs = opts.deliveryDelayMs ?? 50;
  let outcomeFn: (order: SandboxOrder) => Outcome = (o) => ({
    status: "delivered",
    payload: defaultPayload(o),
  });
  let paused = false;
  let webhookMode: "send" | "drop" = "send";
  let authFailure = false;
  let closed = false;
  const faults = new FaultList<FaultMode>();
  const entries = new Map<string, Entry>();
  const stats = new Map<string, Stats>();
  const log: { method: string; path: string; status: number; body: unknown }[] = [];
  const webhookLog: { customId: string; attempt: number; status: number | null; url: string }[] = [];
  const server = createSandboxServer(
    (req, res) => handle(req, res),
    (error) => err(500, "internal_error", `Sandbox error: ${(error as Error).message}`),
  );

  const statsFor = (id: string): Stats => {
    let s = stats.get(id);
    if (!s) {
      s = { creates: 0, pays: 0, charges: 0, chargedRub: 0 };
      stats.set(id, s);
    }
    return s;
  };
  // ---- delivery and webhooks ----

  const schedule = (e: Entry) => {
    if (paused || closed || e.timer || e.order.status !== "pending") return;
    e.timer = setTimeout(() => {
      e.timer = undefined;
      complete(e);
    }, deliveryDelayMs);
  };

  const complete = (e: Entry) => {
    if (e.order.status !== "pending") return;
    clearTimeout(e.timer);
    e.timer = undefined;
    let outcome: Outcome;
    try {
      outcome = outcomeFn(clone(e.order));
    } catch (error) {
      outcome = {
        status: "failed",
        errorMessage: `sandbox outcome function threw: ${(error as Error).message}`,
      };
    }
    const o = e.order;
    o.completedAt = timestamp();
    if (outcome.status === "delivered") {
      o.status = "delivered";
      o.deliveredPayload = outcome.payload ?? defaultPayload(o);
    } else {
      o.status = "failed";
      o.errorMessage = outcome.errorMessage;
    }
    if (webhookMode === "send" && opts.webhookSecret && o.callbackUrl) server.track(sendWithRetries(e));
  };

  const webhookBody = (e: Entry) =>
    JSON.stringify({
      event: e.order.status,
      custom_id: e.order.customId,
      status: e.order.status,
      product: e.order.product,
      recipient: e.recipient,
      quantity: e.quantity,
      delivered_payload: e.order.deliveredPayload,
      error_message: e.order.errorMessage,
      completed_at: e.order.completedAt,
    });

  const rewrite = (url: string) => {
    const r = rewrites.find((rw) => url.startsWith(rw.from));
    return r ? r.to + url.slice(r.from.length) : url;
  };

  const postWebhook = async (e: Entry): Promise<number | null> => {
    const url = rewrite(e.order.callbackUrl!);
    const raw = webhookBody(e);
    const attempt = ++e.webhookAttempts;
    let status: number | null = null;
    const limit = deadline(server.signal, WEBHOOK_ATTEMPT_TIMEOUT_MS);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": signWebhook(opts.webhookSecret!, raw) },
        body: raw,
        redirect: "manual",
        signal: limit.signal,
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
    } catch {
      status = null;
    } finally {
      limit.clear();
    }
    pushBounded(webhookLog, { customId: e.order.customId, attempt, status, url });
    return status;
  };

  const sendWithRetries = async (e: Entry) => {
    for (let i = 1; i <= WEBHOOK_ATTEMPTS && !closed; i++) {
      const status = await postWebhook(e);
      if (status !== null && status >= 200 && status < 300) return;
      if (i < WEBHOOK_ATTEMPTS) {
        try {
          await sleep(retryDelayMs, undefined, { signal: server.signal });
        } catch {
          return;
        }
      }
    }
  };

  // ---- routes ----

  const createOrder = (b: Record<string, unknown>): Reply => {
    const id = b.custom_id;
    if (typeof id === "string" && id !== "") statsFor(id).creates++;
    const missing = ["custom_id", "product"].filter(
      (k) => b[k] === undefined || b[k] === null || b[k] === "",
    );
    if (missing.length > 0)
      return err(400, "validation_error", "Missing required fields", { missing_fields: missing });
    if (typeof id !== "string" || id.length > 200)
      return err(400, "invalid_value", "custom_id must be a string of at most 200 characters", {
        invalid_fields: ["custom_id"],
      });
    const existing = entries.get(id);
    if (existing) return { status: 200, body: clone(existing.createAnswer) };
    if (typeof b.product !== "string" || !(RESELLER_PRODUCTS as readonly string[]).includes(b.product))
      return err(400, "invalid_value", "Unknown product", { invalid_fields: ["product"] });
    const v = validateCreate(b);
    if (!v.ok) return v.reply;
    const createAnswer = { success: true, custom_id: id, status: "created", total_to_pay_rub: v.totalRub };
    entries.set(id, {
      order: {
        customId: id,
        product: b.product,
        request: clone(b),
        status: "created",
        totalToPayRub: v.totalRub,
        deliveredPayload: null,
        errorMessage: null,
        createdAt: timestamp(),
        completedAt: null,
        callbackUrl: typeof b.callback_url === "string" ? b.callback_url : null,
      },
      recipient: v.recipient,
      quantity: v.quantity,
      createAnswer,
      payAnswer: null,
      timer: undefined,
      webhookAttempts: 0,
    });
    return { status: 200, body: clone(createAnswer) };
  };

  const payOrder = (b: Record<string, unknown>): Reply => {
    const id = b.custom_id;
    if (id === undefined || id === null || id === "")
      return err(400, "validation_error", "Missing required fields", { missing_fields: ["custom_id"] });
    if (typeof id !== "string")
      return err(400, "invalid_value", "custom_id must be a string", { invalid_fields: ["custom_id"] });
    const s = statsFor(id);
    s.pays++;
    const e = entries.get(id);
    if (!e) return err(404, "order_not_found", "Order not found");
    if (e.payAnswer) return { status: 200, body: clone(e.payAnswer) };
    const price = e.order.totalToPayRub;
    if (balance < price)
      return err(402, "insufficient_funds", "Insufficient deposit", { balance_rub: round2(balance) });
    balance = round2(balance - price);
    s.charges++;
    s.chargedRub = round2(s.chargedRub + price);
    e.order.status = "pending";
    e.payAnswer = { success: true, custom_id: id, status: "pending", price_charged_rub: price };
    schedule(e);
    return { status: 200, body: clone(e.payAnswer) };
  };

  const readOrder = (id: string): Reply => {
    const e = entries.get(id);
    if (!e) return err(404, "order_not_found", "Order not found");
    const o = e.order;
    const extra: Record<string, unknown> = {};
    for (const k of ["gift_id", "code", "product_ref", "fields"])
      if (o.request[k] !== undefined) extra[k] = o.request[k];
    return {
      status: 200,
      body: clone({
        success: true,
        custom_id: o.customId,
        status: o.status,
        product: o.product,
        recipient: e.recipient,
        quantity: e.quantity,
        ...extra,
        total_to_pay_rub: o.totalToPayRub,
        price_charged_rub: e.payAnswer ? o.totalToPayRub : null,
        delivered_payload: o.deliveredPayload,
        error_message: o.errorMessage,
        created_at: o.createdAt,
        completed_at: o.completedAt,
      }),
    };
  };

  const games = (q: URLSearchParams): Reply => {
    const gameKey = q.get("game");
    const regionCode = q.get("region");
    if (!gameKey) {
      if (regionCode)
        return err(400, "validation_error", "Missing required fields", { missing_fields: ["game"] });
      return {
        status: 200,
        body: { success: true, games: GAMES.map((g) => ({ key: g.key, title: g.title })) },
      };
    }
    const game = GAMES.find((g) => g.key === gameKey);
    if (!game) return err(404, "game_not_found", "Unknown game");
    if (!regionCode)
      return {
        status: 200,
        body: {
          success: true,
          game: game.key,
          regions: game.regions.map((r) => ({ code: r.code, title: r.title })),
        },
      };
    const region = game.regions.find((r) => r.code === regionCode);
    if (!region) return err(404, "region_not_found", "Unknown region");
    return {
      status: 200,
      body: clone({
        success: true,
        game: game.key,
        region: region.code,
        delivery: region.delivery,
        fields: region.fields,
        packages: region.packages,
      }),
    };
  };

  const products = (): Reply => ({
    status: 200,
    body: {
      success: true,
      products: [
        { product: "stars", title: "Telegram Stars", unit_price_rub: STAR_UNIT_PRICE_RUB, ...LIMITS.stars },
        ...Object.entries(PREMIUM_PRICES_RUB).map(([product, p]) => ({
          product,
          title: p.title,
          months: p.months,
          wholesale_price_rub: p.priceRub,
        })),
        { product: "gift", title: "Telegram Gifts", catalog: `${API}/gifts` },
        { product: "steam", title: "Steam top-up", fee_percent: STEAM_FEE_PERCENT, ...LIMITS.steam },
        { product: "neural", title: "AI services", catalog: `${API}/neural` },
        { product: "game", title: "Game codes and top-ups", catalog: `${API}/games`, ...LIMITS.game },
      ],
    },
  });

  const route = (method: string, path: string, q: URLSearchParams, body: unknown): Reply => {
    const GET: Record<string, () => Reply> = {
      [`${API}/products`]: products,
      [`${API}/gifts`]: () => ({
        status: 200,
        body: { success: true, gifts: GIFTS.map((g) => ({ ...g, wholesale_price_rub: giftPriceRub(g) })) },
      }),
      [`${API}/neural`]: () => ({
        status: 200,
        body: { success: true, items: clone(NEURAL_ITEMS.filter((i) => i.delivery === "auto")) },
      }),
      [`${API}/games`]: () => games(q),
      [`${API}/balance`]: () => ({
        status: 200,
        body: { success: true, balance_nano: Math.round(balance * 1e9), balance_rub: round2(balance) },
      }),
    };
    const POST: Record<string, (b: Record<string, unknown>) => Reply> = {
      [`${API}/order/create`]: createOrder,
      [`${API}/order/pay`]: payOrder,
    };
    const post = POST[path];
    if (post) {
      if (method !== "POST") return err(405, "method_not_allowed", `Use POST for ${path}`);
      if (body === undefined) body = {};
      if (typeof body !== "object" || body === null || Array.isArray(body))
        return err(400, "invalid_json", "Request body must be a JSON object");
      return post(body as Record<string, unknown>);
    }
    const get = GET[path];
    const orderMatch = /^\/api\/reseller\/order\/([^/]+)$/.exec(path);
    if (get || orderMatch) {
      if (method !== "GET") return err(405, "method_not_allowed", `Use GET for ${path}`);
      if (get) return get();
      let id: string;
      try {
        id = decodeURIComponent(orderMatch![1]!);
      } catch {
        return err(404, "order_not_found", "Order not found");
      }
      return readOrder(id);
    }
    return err(404, "not_found", `No route for ${method} ${path}`);
  };

  // ---- HTTP plumbing ----

  const authorized = (header: string | undefined) => {
    if (authFailure) return false;
    if (!header) return false;
    return timingSafeEqual(createHash("sha256").update(header).digest(), expectedAuth);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const { method, url, path } = requestTarget(req);
    const raw = await readBody(req, MAX_BODY_BYTES);
    const { body, badJson } = parseJsonBody(raw);
    const record = (status: number) =>
      pushBounded(log, { method, path: url.pathname + url.search, status, body: clone(body) });

    const fault = faults.take(method, path);
    if (actOutSilentFault(fault, req, server, record)) return;
    let reply: Reply;
    if (fault === "500") reply = err(500, "internal_error", "Sandbox: injected server error");
    else if (fault === "429")
      reply = { ...err(429, "rate_limited", "Too many requests"), headers: { "retry-after": "1" } };
    else if (raw === null) reply = err(413, "payload_too_large", "Request body too large");
    else if (!authorized(req.headers.authorization))
      reply = err(401, "unauthorized", "Missing or invalid API key (Authorization: Bearer <key>)");
    else if (badJson) reply = err(400, "invalid_json", "Request body is not valid JSON");
    else reply = route(method, path, url.searchParams, body === null ? undefined : body);
    record(reply.status);
    replyUnlessLost(fault, req, res, reply);
  };

  await server.listen(opts.port, opts.host);

  return {
    url: server.url,
    async close() {
      if (closed) return;
      closed = true;
      for (const e of entries.values()) {
        clearTimeout(e.timer);
        e.timer = undefined;
      }
      await server.close();
    },
    setBalanceRub(rub) {
      balance = rub;
    },
    balanceRub: () => balance,
    setOutcome(fn) {
      outcomeFn = fn;
    },
    setDeliveryDelayMs(ms) {
      deliveryDelayMs = ms;
    },
    pauseDelivery(p) {
      paused = p;
      for (const e of entries.values()) {
        if (p) {
          clearTimeout(e.timer);
          e.timer = undefined;
        } else schedule(e);
      }
    },
    deliverAllNow() {
      let n = 0;
      for (const e of entries.values()) {
        if (e.order.status === "pending") {
          complete(e);
          n++;
        }
      }
      return n;
    },
    setWebhooks(mode) {
      webhookMode = mode;
    },
    fail(endpoint, mode, times = 1) {
      faults.add(endpoint, mode, times);
    },
    clearFaults() {
      faults.clear();
    },
    setAuthFailure(on) {
      authFailure = on;
    },
    order: (id) => {
      const e = entries.get(id);
      return e ? clone(e.order) : undefined;
    },
    orders: () => [...entries.values()].map((e) => clone(e.order)),
    stats: (id) => ({ ...(stats.get(id) ?? { creates: 0, pays: 0, charges: 0, chargedRub: 0 }) }),
    totalCharges: () => [...stats.values()].reduce((n, s) => n + s.charges, 0),
    requests: () => clone(log),
    webhooksSent: () => clone(webhookLog),
    async sendWebhook(id) {
      const e = entries.get(id);
      if (!e) throw new Error(`Sandbox: no order ${id}`);
      if (e.order.status !== "delivered" && e.order.status !== "failed")
        throw new Error(`Sandbox: order ${id} is ${e.order.status}, not final`);
      if (!e.order.callbackUrl) throw new Error(`Sandbox: order ${id} has no callback_url`);
      if (!opts.webhookSecret) throw new Error("Sandbox: no webhook secret configured");
      if (closed) throw new Error("Sandbox: closed");
      return server.track(postWebhook(e));
    },
  };
}
