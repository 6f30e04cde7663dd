import type { Logger } from "pino";
import { Pool } from "undici";
import { backoffDelay, parseRetryAfter, sleep } from "../../reseller/retry.js";
import { CryptoPayError, type CryptoPayErrorKind, withAttempts } from "./errors.js";
import { envelopeSchema, ResponseShapeError } from "./schemas.js";

export interface CryptoPayClientOptions {
  /** CRYPTOPAY_API_URL, e.g. https://pay.crypt.bot/api; the method name is appended as `/{method}`. */
  apiUrl: string;
  /** CRYPTOPAY_TOKEN; sent in the Crypto-Pay-API-Token header only, scrubbed from errors and logs. */
  token: string;
  logger?: Logger;
  /** Defaults 5000 / 10000 / 10000 ms. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Retries after the first attempt on network errors, timeouts, 5xx and 429. Default 3. */
  retries?: number;
  /** Base of the jittered exponential backoff (capped at 5 s). Default 300 ms. Retry-After wins. */
  retryBaseDelayMs?: number;
  /** Metrics hook, called once per attempt; `error` is the error kind when the attempt failed. */
  onRequest?: (info: { method: string; status: number | null; durationMs: number; error?: string }) => void;
}

export interface CallSpec<T> {
  /** The API method, e.g. "createInvoice". */
  method: string;
  params: Record<string, unknown>;
  parse: (result: unknown) => T;
  /** Override of the client's retries (createInvoice passes 0 and retries itself). */
  retries?: number;
  signal?: AbortSignal;
}

export interface CryptoPayTransport {
  call<T>(spec: CallSpec<T>): Promise<T>;
  readonly retries: number;
  backoff(attempt: number): number;
  close(): Promise<void>;
}

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

const truncate = (s: string, max = 300) => (s.length > max ? `${s.slice(0, max)}…` : s);

/**
 * One keep-alive connection pool for Crypto Pay's origin. Each call is `POST {apiUrl}/{method}` with a
 * JSON body and the token header, retried with jittered exponential backoff on network errors,
 * timeouts, 5xx and 429 (honouring Retry-After); a 4xx or `ok: false` is never retried.
 */
export function createCryptoPayTransport(opts: CryptoPayClientOptions): CryptoPayTransport {
  let base: URL;
  try {
    base = new URL(opts.apiUrl);
  } catch {
    throw new Error("Crypto Pay API URL is not a valid URL — check CRYPTOPAY_API_URL");
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new Error("Crypto Pay API URL must be http(s) — check CRYPTOPAY_API_URL");
  }
  if (!opts.token) throw new Error("Crypto Pay token is empty — check CRYPTOPAY_TOKEN");

  const token = opts.token;
  const prefix = base.pathname.replace(/\/+$/, "");
  const origin = base.origin;
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = Math.max(0, opts.retryBaseDelayMs ?? 300);
  const log = opts.logger?.child({ component: "cryptopay" });
  const pool = new Pool(origin, {
    connections: 8,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
    connect: { timeout: opts.connectTimeoutMs ?? 5_000 },
  });

  const scrub = (s: string): string => (token.length >= 4 ? s.split(token).join("[redacted]") : s);
  const scrubValue = (v: unknown): unknown => {
    if (v === undefined || token.length < 4) return v;
    const json = JSON.stringify(v);
    const escaped = JSON.stringify(token).slice(1, -1);
    return json?.includes(escaped) ? JSON.parse(json.split(escaped).join("[redacted]")) : v;
  };

  function error(
    kind: CryptoPayErrorKind,
    method: string,
    init: {
      status?: number | null;
      code?: string | null;
      body?: unknown;
      detail?: string;
      cause?: unknown;
      retryAfterMs?: number | null;
    },
  ): CryptoPayError {
    const status = init.status ?? null;
    const what = status === null ? "" : ` (${status}${init.code ? ` ${init.code}` : ""})`;
    const detail = init.detail ? `: ${truncate(init.detail)}` : "";
    const text: Record<CryptoPayErrorKind, string> = {
      auth: `Crypto Pay rejected the token${what} at ${method}${detail} — check CRYPTOPAY_TOKEN`,
      bad_request: `Crypto Pay refused ${method}${what}${detail} — fix the request; repeating it unchanged will not help`,
      rate_limited: `Crypto Pay kept rate-limiting us${what} at ${method}${detail} — slow down and retry later`,
      server: `Crypto Pay failed${what} at ${method}${detail} — retry later; the request may have been processed`,
      network: `Could not talk to Crypto Pay at ${origin} for ${method}${detail} — check CRYPTOPAY_API_URL and the network; the request may or may not have been processed`,
      timeout: `Crypto Pay did not answer ${method} in time${detail} — the request may or may not have been processed`,
      bad_response: `Crypto Pay sent an answer to ${method} we could not understand${what}${detail} — check CRYPTOPAY_API_URL and the client`,
    };
    return new CryptoPayError({
      kind,
      method,
      status,
      code: init.code ?? null,
      body: scrubValue(init.body),
      retryAfterMs: init.retryAfterMs ?? null,
      message: scrub(text[kind]),
      cause: init.cause,
    });
  }

  interface Failure {
    error: CryptoPayError;
    retry: boolean;
    retryAfterMs: number | null;
  }

  function statusFailure(method: string, status: number, body: unknown, retryAfter: unknown): Failure {
    const env = envelopeSchema.safeParse(body);
    let code: string | null = null;
    if (env.success && env.data.ok === false) {
      const e = env.data.error;
      code = typeof e === "string" ? e : (e.name ?? null);
    }
    const after = parseRetryAfter(typeof retryAfter === "string" ? retryAfter : undefined);
    const common = {
      status,
      code,
      body,
      detail: typeof body === "string" ? body : undefined,
      retryAfterMs: after,
    };
    if (status === 429)
      return { error: error("rate_limited", method, common), retry: true, retryAfterMs: after };
    if (status >= 500) return { error: error("server", method, common), retry: true, retryAfterMs: after };
    const kind: CryptoPayErrorKind =
      status === 401 || status === 403 || code === "UNAUTHORIZED"
        ? "auth"
        : status >= 300 && status < 400
          ? "bad_response"
          : "bad_request";
    return { error: error(kind, method, common), retry: false, retryAfterMs: null };
  }

  function transportFailure(method: string, err: unknown, signal?: AbortSignal): Failure {
    if (signal?.aborted) {
      return {
        error: error("timeout", method, { detail: "cancelled by the caller", cause: err }),
        retry: false,
        retryAfterMs: null,
      };
    }
    const code = (err as { code?: unknown } | null)?.code;
    const codeText = typeof code === "string" ? code : "";
    const message = err instanceof Error ? err.message : String(err);
    const kind = TIMEOUT_CODES.has(codeText) ? "timeout" : "network";
    return {
      error: error(kind, method, { detail: codeText ? `${codeText} ${message}` : message, cause: err }),
      retry: true,
      retryAfterMs: null,
    };
  }

  const backoff = (attempt: number) => backoffDelay(baseDelay, attempt);

  async function call<T>(spec: CallSpec<T>): Promise<T> {
    const maxRetries = Math.max(0, spec.retries ?? retries);
    const payload = JSON.stringify(spec.params);
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      let status: number | null = null;
      let failure: Failure;
      try {
        const res = await pool.request({
          origin,
          method: "POST",
          path: `${prefix}/${spec.method}`,
          headers: {
            "crypto-pay-api-token": token,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: payload,
          signal: spec.signal,
        });
        status = res.statusCode;
        const text = await res.body.text();
        let body: unknown = truncate(text, 2_000);
        let parsed = false;
        try {
          body = JSON.parse(text);
          parsed = true;
        } catch {
          // left as text
        }
        const env = parsed ? envelopeSchema.safeParse(body) : undefined;
        if (status >= 200 && status < 300 && env?.success && env.data.ok === true) {
          try {
            const result = spec.parse(env.data.result);
            opts.onRequest?.({ method: spec.method, status, durationMs: performance.now() - started });
            log?.debug({ method: spec.method, status, attempt }, "crypto pay request done");
            return result;
          } catch (err) {
            const detail = err instanceof ResponseShapeError ? err.message : String(err);
            failure = {
              error: error("bad_response", spec.method, { status, body, detail, cause: err }),
              retry: false,
              retryAfterMs: null,
            };
          }
        } else if (status >= 200 && status < 300 && !(env?.success && env.data.ok === false)) {
          failure = {
            error: error("bad_response", spec.method, {
              status,
              body,
              detail: parsed ? "not a { ok, result } envelope" : "the body is not JSON",
            }),
            retry: false,
            retryAfterMs: null,
          };
        } else {
          failure = statusFailure(spec.method, status, body, res.headers["retry-after"]);
        }
      } catch (err) {
        failure = transportFailure(spec.method, err, spec.signal);
      }

      opts.onRequest?.({
        method: spec.method,
        status,
        durationMs: performance.now() - started,
        error: failure.error.kind,
      });
      if (!failure.retry || attempt >= maxRetries || spec.signal?.aborted) {
        const final = withAttempts(failure.error, attempt + 1);
        log?.warn(
          {
            method: spec.method,
            status,
            kind: final.kind,
            code: final.code,
            attempts: attempt + 1,
            err: final.message,
          },
          "crypto pay request failed",
        );
        throw final;
      }
      const delay = failure.retryAfterMs ?? backoff(attempt);
      log?.warn(
        { method: spec.method, status, kind: failure.error.kind, attempt: attempt + 1, delayMs: delay },
        "crypto pay request failed; retrying",
      );
      await sleep(delay, spec.signal);
    }
  }

  return {
    call,
    retries,
    backoff,
    async close() {
      await pool.close();
    },
  };
}
