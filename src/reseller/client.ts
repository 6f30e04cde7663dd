import type { Logger } from "pino";
import { Pool } from "undici";
import { ResellerApiError, type ResellerErrorKind, ResellerValidationError } from "./errors.js";
import {
  parseGames,
  parseGifts,
  parseNeural,
  parsePackages,
  parseProducts,
  parseRegions,
} from "./parse-catalog.js";
import { ResponseShapeError } from "./parse-common.js";
import { mentionsInsufficientFunds, parseErrorBody } from "./parse-errors.js";
import { parseBalance, parseCreateOrder, parseOrder, parsePayOrder } from "./parse-orders.js";
import { validateCreateOrderRequest } from "./requests.js";
import type { RequestOptions, ResellerClient } from "./types.js";

export interface ResellerClientOptions {
  /** The API's {base_url}; may carry a path prefix, to which the spec's `/api/reseller/...` paths are appended. */
  baseUrl: string;
  apiKey: string;
  logger?: Logger;
  /** Defaults 5000 / 10000 / 10000 ms. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Retries after the first attempt on network errors, timeouts, 5xx and 429. Default 3. */
  retries?: number;
  /** Base of the jittered exponential backoff (capped at 5 s). Default 300 ms. Retry-After wins, capped at 30 s. */
  retryBaseDelayMs?: number;
  /** Metrics hook, called once per attempt. `error` is the error kind when the attempt failed. */
  onRequest?: (info: { endpoint: string; status: number | null; durationMs: number; error?: string }) => void;
}

const BACKOFF_CAP_MS = 5_000;
const RETRY_AFTER_CAP_MS = 30_000;
const MAX_ERROR_TEXT = 300;

interface CallSpec<T> {
  method: "GET" | "POST";
  /** Stable label for metrics and `ResellerApiError.endpoint`, e.g. "GET /api/reseller/order/{custom_id}". */
  endpoint: string;
  /** The spec path actually requested (with query), e.g. "/api/reseller/games?game=pubg". */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  parse: (body: unknown) => T;
}

/** Outcome of one attempt that did not produce a result. */
interface AttemptFailure {
  error: ResellerApiError;
  retry: boolean;
  retryAfterMs: number | null;
}

const TIMEOUT_CODES: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
  UND_ERR_HEADERS_TIMEOUT: "headers timeout",
  UND_ERR_BODY_TIMEOUT: "body timeout",
  ETIMEDOUT: "socket timeout",
};

/** Retry-After as seconds or an HTTP date, in ms, capped; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const trimmed = v.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), RETRY_AFTER_CAP_MS);
}

function truncate(s: string, max = MAX_ERROR_TEXT): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function requireId(field: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ResellerValidationError([{ field, message: "is required: a non-empty string" }]);
  }
  return value;
}

/**
 * The reseller API client: one method per endpoint, one keep-alive connection pool for the
 * API's origin. Every call is retried with jittered exponential backoff on network errors,
 * timeouts, 5xx and 429 (honouring Retry-After); a 4xx is never retried. Retrying create and
 * pay is safe because the retry sends the same body, so the same custom_id: the API treats a
 * repeat as the same order and charges once. The API key goes into the Authorization header
 * only and is scrubbed from anything the client logs or puts into an error.
 */
export function createResellerClient(opts: ResellerClientOptions): ResellerClient {
  let base: URL;
  try {
    base = new URL(opts.baseUrl);
  } catch {
    throw new Error("Reseller API base URL is not a valid URL — check RESELLER_API_URL");
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new Error("Reseller API base URL must be http(s) — check RESELLER_API_URL");
  }
  if (!opts.apiKey) throw new Error("Reseller API key is empty — check RESELLER_API_KEY");

  const apiKey = opts.apiKey;
  const prefix = base.pathname.replace(/\/+$/, "");
  const origin = base.origin;
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = Math.max(0, opts.retryBaseDelayMs ?? 300);
  const headersTimeoutMs = opts.headersTimeoutMs ?? 10_000;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 10_000;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
  const log = opts.logger?.child({ component: "reseller" });

  const pool = new Pool(origin, {
    connections: 16,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: headersTimeoutMs,
    bodyTimeout: bodyTimeoutMs,
    connect: { timeout: connectTimeoutMs },
  });

  /** Removes the API key from any text, so an echoing server or proxy cannot leak it into logs or errors. */
  const scrub = (s: string): string => (apiKey.length >= 4 ? s.split(apiKey).join("[redacted]") : s);
  const scrubValue = (v: unknown): unknown => {
    if (v === undefined || apiKey.length < 4) return v;
    const json = JSON.stringify(v);
    const escaped = JSON.stringify(apiKey).slice(1, -1);
    return json.includes(escaped) ? JSON.parse(json.split(escaped).join("[redacted]")) : v;
  };

  const backoff = (attempt: number) => {
    const exp = Math.min(BACKOFF_CAP_MS, baseDelay * 2 ** attempt);
    return Math.round(exp / 2 + (Math.random() * exp) / 2);
  };

  function apiError(
    kind: ResellerErrorKind,
    where: string,
    endpoint: string,
    init: {
      status?: number | null;
      code?: string | null;
      missingFields?: string[];
      body?: unknown;
      detail?: string;
      cause?: unknown;
    },
  ): ResellerApiError {
    const status = init.status ?? null;
    const statusText = status === null ? "" : ` (${status}${init.code ? ` ${init.code}` : ""})`;
    const detail = init.detail ? `: ${truncate(init.detail)}` : "";
    const fields = init.missingFields?.length
      ? `; missing or invalid fields: ${init.missingFields.join(", ")}`
      : "";
    const at = `at ${where}`;
    const text: Record<ResellerErrorKind, string> = {
      auth: `Reseller API rejected the API key${statusText} ${at}${detail} — check RESELLER_API_KEY`,
      insufficient_funds: `Reseller deposit does not cover the order${statusText} ${at}${detail} — top up the deposit through the reseller's bot`,
      not_found: `Reseller API found nothing${statusText} ${at}${detail} — check the custom_id or catalog key`,
      bad_request: `Reseller API refused the request${statusText} ${at}${detail}${fields} — fix the request; repeating it unchanged will not help`,
      rate_limited: `Reseller API kept rate-limiting us${statusText} ${at}${detail} — slow down and retry later with the same custom_id`,
      server: `Reseller API failed${statusText} ${at}${detail} — the service is having trouble; retry later with the same custom_id`,
      network: `Could not talk to the reseller API at ${origin} for ${where}${detail} — check RESELLER_API_URL and the network; the request may or may not have been processed, so retry with the same custom_id`,
      timeout: `Reseller API did not answer in time ${at}${detail} — the request may or may not have been processed; retry with the same custom_id`,
      bad_response: `Reseller API sent a response we could not understand${statusText} ${at}${detail} — the API may have changed; check RESELLER_API_URL and the client`,
    };
    return new ResellerApiError({
      kind,
      endpoint,
      status,
      code: init.code ?? null,
      missingFields: init.missingFields ?? [],
      body: scrubValue(init.body),
      message: scrub(text[kind]),
      cause: init.cause,
    });
  }

  /** Maps a non-2xx answer, or a 2xx with `success: false`, to an error. */
  function statusFailure(
    status: number,
    body: unknown,
    where: string,
    endpoint: string,
    retryAfter: string | string[] | undefined,
  ): AttemptFailure {
    const info = parseErrorBody(body);
    const detail = info.message ?? (typeof body === "string" ? body : undefined);
    const common = { status, code: info.code, body, detail };
    if (status >= 200 && status < 300) {
      const kind = mentionsInsufficientFunds(info) ? "insufficient_funds" : "bad_request";
      return {
        error: apiError(kind, where, endpoint, {
          ...common,
          missingFields: info.fields,
          detail: detail ?? "success: false",
        }),
        retry: false,
        retryAfterMs: null,
      };
    }
    if (status === 429) {
      return {
        error: apiError("rate_limited", where, endpoint, common),
        retry: true,
        retryAfterMs: parseRetryAfter(retryAfter),
      };
    }
    if (status >= 500) {
      return {
        error: apiError("server", where, endpoint, common),
        retry: true,
        retryAfterMs: parseRetryAfter(retryAfter),
      };
    }
    if (status >= 300 && status < 400) {
      return {
        error: apiError("bad_response", where, endpoint, {
          ...common,
          detail: "a redirect, which the client does not follow",
        }),
        retry: false,
        retryAfterMs: null,
      };
    }
    let kind: ResellerErrorKind;
    if (status === 401 || status === 403) kind = "auth";
    else if (status === 402 || mentionsInsufficientFunds(info)) kind = "insufficient_funds";
    else if (status === 404) kind = "not_found";
    else if (status >= 400 && status < 500) kind = "bad_request";
    else kind = "bad_response";
    const missingFields = kind === "bad_request" ? info.fields : [];
    return {
      error: apiError(kind, where, endpoint, { ...common, missingFields }),
      retry: false,
      retryAfterMs: null,
    };
  }

  function transportFailure(
    err: unknown,
    where: string,
    endpoint: string,
    signal?: AbortSignal,
  ): AttemptFailure {
    const code = (err as { code?: unknown } | null)?.code;
    const codeText = typeof code === "string" ? code : undefined;
    if (signal?.aborted) {
      return {
        error: apiError("timeout", where, endpoint, { detail: "cancelled by the caller", cause: err }),
        retry: false,
        retryAfterMs: null,
      };
    }
    const timeout = codeText ? TIMEOUT_CODES[codeText] : undefined;
    if (timeout) {
      const ms =
        codeText === "UND_ERR_CONNECT_TIMEOUT"
          ? connectTimeoutMs
          : codeText === "UND_ERR_HEADERS_TIMEOUT"
            ? headersTimeoutMs
            : codeText === "UND_ERR_BODY_TIMEOUT"
              ? bodyTimeoutMs
              : undefined;
      return {
        error: apiError("timeout", where, endpoint, {
          detail: ms ? `${timeout} after ${ms} ms` : timeout,
          cause: err,
        }),
        retry: true,
        retryAfterMs: null,
      };
    }
    const message = err instanceof Error ? err.message : String(err);
    return {
      error: apiError("network", where, endpoint, {
        detail: codeText ? `${codeText} ${message}` : message,
        cause: err,
      }),
      retry: true,
      retryAfterMs: null,
    };
  }

  async function call<T>(spec: CallSpec<T>): Promise<T> {
    const where = `${spec.method} ${spec.path}`;
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      accept: "application/json",
    };
    if (payload !== undefined) headers["content-type"] = "application/json";

    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      let failure: AttemptFailure;
      let status: number | null = null;
      try {
        const res = await pool.request({
          origin,
          method: spec.method,
          path: prefix + spec.path,
          headers,
          body: payload,
          signal: spec.signal,
        });
        status = res.statusCode;
        const text = await res.body.text();
        let body: unknown = text;
        let parsed = false;
        if (text.trim() !== "") {
          try {
            body = JSON.parse(text);
            parsed = true;
          } catch {
            body = truncate(text, 2_000);
          }
        }
        const isSuccess = status >= 200 && status < 300;
        const saysFailure =
          parsed &&
          typeof body === "object" &&
          body !== null &&
          (body as { success?: unknown }).success === false;
        if (isSuccess && !saysFailure) {
          try {
            if (!parsed)
              throw new ResponseShapeError(text.trim() === "" ? "empty body" : "the body is not JSON");
            const result = spec.parse(body);
            opts.onRequest?.({ endpoint: spec.endpoint, status, durationMs: performance.now() - started });
            log?.debug({ endpoint: spec.endpoint, status, attempt }, "reseller request done");
            return result;
          } catch (err) {
            const detail =
              err instanceof ResponseShapeError ? err.message : `unexpected shape (${String(err)})`;
            failure = {
              error: apiError("bad_response", where, spec.endpoint, { status, body, detail, cause: err }),
              retry: false,
              retryAfterMs: null,
            };
          }
        } else {
          failure = statusFailure(status, body, where, spec.endpoint, res.headers["retry-after"]);
        }
      } catch (err) {
        failure = transportFailure(err, where, spec.endpoint, spec.signal);
      }

      opts.onRequest?.({
        endpoint: spec.endpoint,
        status,
        durationMs: performance.now() - started,
        error: failure.error.kind,
      });
      const canRetry = failure.retry && attempt < retries && !spec.signal?.aborted;
      if (!canRetry) {
        const error = failure.retry && attempt > 0 ? withAttempts(failure.error, attempt + 1) : failure.error;
        log?.warn(
          {
            endpoint: spec.endpoint,
            status,
            kind: error.kind,
            code: error.code,
            attempts: attempt + 1,
            err: error.message,
          },
          "reseller request failed",
        );
        throw error;
      }
      const delay = failure.retryAfterMs ?? backoff(attempt);
      log?.warn(
        { endpoint: spec.endpoint, status, kind: failure.error.kind, attempt: attempt + 1, delayMs: delay },
        "reseller request failed; retrying",
      );
      await sleep(delay, spec.signal);
    }
  }

  /** Re-issues a transient error with the number of attempts in its message. */
  function withAttempts(err: ResellerApiError, attempts: number): ResellerApiError {
    return new ResellerApiError({
      kind: err.kind,
      endpoint: err.endpoint,
      status: err.status,
      code: err.code,
      missingFields: err.missingFields,
      body: err.body,
      message: err.message.replace(/ — /, ` after ${attempts} attempts — `),
      cause: err.cause,
    });
  }

  const get = <T>(endpoint: string, path: string, parse: (b: unknown) => T, o?: RequestOptions) =>
    call({ method: "GET", endpoint, path, parse, signal: o?.signal });

  return {
    products: (o) => get("GET /api/reseller/products", "/api/reseller/products", parseProducts, o),
    gifts: (o) => get("GET /api/reseller/gifts", "/api/reseller/gifts", parseGifts, o),
    neural: (o) => get("GET /api/reseller/neural", "/api/reseller/neural", parseNeural, o),
    games: (o) => get("GET /api/reseller/games", "/api/reseller/games", parseGames, o),
    async gameRegions(game, o) {
      const q = new URLSearchParams({ game: requireId("game", game) });
      return get("GET /api/reseller/games?game={game}", `/api/reseller/games?${q}`, parseRegions, o);
    },
    async gamePackages(game, region, o) {
      const q = new URLSearchParams({ game: requireId("game", game), region: requireId("region", region) });
      return get(
        "GET /api/reseller/games?game={game}&region={region}",
        `/api/reseller/games?${q}`,
        parsePackages,
        o,
      );
    },
    balance: (o) => get("GET /api/reseller/balance", "/api/reseller/balance", parseBalance, o),
    async createOrder(req, o) {
      const body = validateCreateOrderRequest(req);
      return call({
        method: "POST",
        endpoint: "POST /api/reseller/order/create",
        path: "/api/reseller/order/create",
        body,
        signal: o?.signal,
        parse: (b) => parseCreateOrder(b, body.custom_id),
      });
    },
    async payOrder(customId, o) {
      const id = requireId("custom_id", customId);
      return call({
        method: "POST",
        endpoint: "POST /api/reseller/order/pay",
        path: "/api/reseller/order/pay",
        body: { custom_id: id },
        signal: o?.signal,
        parse: (b) => parsePayOrder(b, id),
      });
    },
    async getOrder(customId, o) {
      const id = requireId("custom_id", customId);
      return get(
        "GET /api/reseller/order/{custom_id}",
        `/api/reseller/order/${encodeURIComponent(id)}`,
        (b) => parseOrder(b, id),
        o,
      );
    },
    async close() {
      await pool.close();
    },
  };
}
