import type { Logger } from "pino";
import {
  type AnswerVerdict,
  type ApiTimeouts,
  attemptJson,
  backoffDelay,
  callReport,
  createApiPool,
  type JsonResponse,
  parseApiBase,
  retryLoop,
} from "../http-client/index.js";
import type { ResellerApiError } from "./errors.js";
import { asRepeat, createFailures, withAttempts } from "./failures.js";
import { ResponseShapeError } from "./parse-common.js";

export interface ResellerClientOptions extends ApiTimeouts {
  /** The API's {base_url}; may carry a path prefix, to which the spec's `/api/reseller/...` paths are appended. */
  baseUrl: string;
  apiKey: string;
  logger?: Logger;
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
  /**
   * A 2xx with `success: false` whose parsed body this accepts is an answer, not a failure: an
   * order read that says the order failed may mark the whole body `success: false`.
   */
  answerDespiteFailure?: (value: T) => boolean;
  /** Retries after the first attempt, instead of the client's own (`ResellerClientOptions.retries`). */
  retries?: number;
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
  const base = parseApiBase(opts.baseUrl, "Reseller API base URL", "RESELLER_API_URL");
  if (!opts.apiKey) throw new Error("Reseller API key is empty — check RESELLER_API_KEY");

  const apiKey = opts.apiKey;
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = Math.max(0, opts.retryBaseDelayMs ?? 300);
  const headersTimeoutMs = opts.headersTimeoutMs ?? 10_000;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 10_000;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
  const log = opts.logger?.child({ component: "reseller" });
  const pool = createApiPool(base.origin, 16, opts);

  const { apiError, statusFailure, transportFailure } = createFailures({
    apiKey,
    origin: base.origin,
    connectTimeoutMs,
    headersTimeoutMs,
    bodyTimeoutMs,
  });

  const backoff = (attempt: number) => backoffDelay(baseDelay, attempt);

  /** A 2xx without `success: false` goes to `spec.parse`; anything else is classified as a failure. */
  function judge<T>(spec: CallSpec<T>, where: string, res: JsonResponse): AnswerVerdict<T, ResellerApiError> {
    const { status, body, parsed } = res;
    const saysFailure =
      parsed &&
      typeof body === "object" &&
      body !== null &&
      (body as { success?: unknown }).success === false;
    if (status >= 200 && status < 300 && saysFailure && spec.answerDespiteFailure) {
      try {
        const value = spec.parse(body);
        if (spec.answerDespiteFailure(value)) return { ok: true, value };
      } catch {
        // Not an answer after all: a failure, as below.
      }
    }
    if (status < 200 || status >= 300 || saysFailure) {
      return { ok: false, ...statusFailure(status, body, where, spec.endpoint, res.headers["retry-after"]) };
    }
    try {
      if (!parsed)
        throw new ResponseShapeError(res.text.trim() === "" ? "empty body" : "the body is not JSON");
      return { ok: true, value: spec.parse(body) };
    } catch (err) {
      const detail = err instanceof ResponseShapeError ? err.message : `unexpected shape (${String(err)})`;
      const error = apiError("bad_response", where, spec.endpoint, { status, body, detail, cause: err });
      return { ok: false, error, retry: false, retryAfterMs: null };
    }
  }

  function call<T>(spec: CallSpec<T>): Promise<T> {
    const where = `${spec.method} ${spec.path}`;
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      accept: "application/json",
    };
    if (payload !== undefined) headers["content-type"] = "application/json";
    const { endpoint } = spec;

    return retryLoop<T, ResellerApiError>({
      retries: spec.retries ?? retries,
      backoff,
      signal: spec.signal,
      attempt: () =>
        attemptJson(
          pool,
          base,
          { method: spec.method, path: spec.path, headers, body: payload, signal: spec.signal },
          (res) => judge(spec, where, res),
          (err) => transportFailure(err, where, endpoint, spec.signal),
        ),
      report: callReport(log, "reseller request", { endpoint }, { onRequest: opts.onRequest }),
      finalError: (failure, attempts) =>
        attempts <= 1
          ? failure.error
          : failure.retry
            ? withAttempts(failure.error, attempts)
            : asRepeat(failure.error),
    });
  }

  return {
    call,
    async close() {
      await pool.close();
    },
  };
}
