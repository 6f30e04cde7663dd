import type { Logger } from "pino";
import { Pool } from "undici";
import { type AttemptFailure, createFailures, truncate, withAttempts } from "./failures.js";
import { ResponseShapeError } from "./parse-common.js";
import { backoffDelay, sleep } from "./retry.js";

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

export interface CallSpec<T> {
  method: "GET" | "POST";
  /** Stable label for metrics and `ResellerApiError.endpoint`, e.g. "GET /api/reseller/order/{custom_id}". */
  endpoint: string;
  /** The spec path actually requested (with query), e.g. "/api/reseller/games?game=pubg". */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  parse: (body: unknown) => T;
}

/** The HTTP side of the reseller client: `call` sends one request and retries it; `close` ends the pool. */
export interface ResellerTransport {
  call<T>(spec: CallSpec<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * One keep-alive connection pool for the API's origin. Every call is retried with jittered
 * exponential backoff on network errors, timeouts, 5xx and 429 (honouring Retry-After); a 4xx
 * is never retried. The API key goes into the Authorization header only.
 */
export function createTransport(opts: ResellerClientOptions): ResellerTransport {
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

  const { apiError, statusFailure, transportFailure } = createFailures({
    apiKey,
    origin,
    connectTimeoutMs,
    headersTimeoutMs,
    bodyTimeoutMs,
  });

  const backoff = (attempt: number) => backoffDelay(baseDelay, attempt);

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

  return {
    call,
    async close() {
      await pool.close();
    },
  };
}
