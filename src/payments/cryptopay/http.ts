import type { Logger } from "pino";
import {
  type AnswerVerdict,
  type ApiTimeouts,
  type AttemptFailure,
  attemptJson,
  backoffDelay,
  callReport,
  createApiPool,
  createRedactor,
  describeTransportError,
  type JsonResponse,
  parseApiBase,
  parseRetryAfter,
  retryLoop,
  truncate,
} from "../../http-client/index.js";
import { CryptoPayError, type CryptoPayErrorKind, withAttempts } from "./errors.js";
import { envelopeSchema, ResponseShapeError } from "./schemas.js";

export interface CryptoPayClientOptions extends ApiTimeouts {
  /** CRYPTOPAY_API_URL, e.g. https://pay.crypt.bot/api; the method name is appended as `/{method}`. */
  apiUrl: string;
  /** CRYPTOPAY_TOKEN; sent in the Crypto-Pay-API-Token header only, scrubbed from errors and logs. */
  token: string;
  logger?: Logger;
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

/**
 * One keep-alive connection pool for Crypto Pay's origin. Each call is `POST {apiUrl}/{method}` with a
 * JSON body and the token header, retried with jittered exponential backoff on network errors,
 * timeouts, 5xx and 429 (honouring Retry-After); a 4xx or `ok: false` is never retried.
 */
export function createCryptoPayTransport(opts: CryptoPayClientOptions): CryptoPayTransport {
  const base = parseApiBase(opts.apiUrl, "Crypto Pay API URL", "CRYPTOPAY_API_URL");
  if (!opts.token) throw new Error("Crypto Pay token is empty — check CRYPTOPAY_TOKEN");

  const token = opts.token;
  const origin = base.origin;
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = Math.max(0, opts.retryBaseDelayMs ?? 300);
  const log = opts.logger?.child({ component: "cryptopay" });
  const pool = createApiPool(origin, 8, opts);
  const redact = createRedactor(token);

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
      body: redact.value(init.body),
      retryAfterMs: init.retryAfterMs ?? null,
      message: redact.text(text[kind]),
      cause: init.cause,
    });
  }

  type Failure = AttemptFailure<CryptoPayError>;

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
    const problem = describeTransportError(err, signal);
    const kind = problem.kind === "cancelled" ? "timeout" : problem.kind;
    return {
      error: error(kind, method, { detail: problem.detail, cause: err }),
      retry: problem.kind !== "cancelled",
      retryAfterMs: null,
    };
  }

  const backoff = (attempt: number) => backoffDelay(baseDelay, attempt);

  /** A 2xx `{ ok: true, result }` goes to `spec.parse`; anything else is classified as a failure. */
  function judge<T>(spec: CallSpec<T>, res: JsonResponse): AnswerVerdict<T, CryptoPayError> {
    const { status, body, parsed } = res;
    const ok = status >= 200 && status < 300;
    const env = parsed ? envelopeSchema.safeParse(body) : undefined;
    if (ok && env?.success && env.data.ok === true) {
      try {
        return { ok: true, value: spec.parse(env.data.result) };
      } catch (err) {
        const detail = err instanceof ResponseShapeError ? err.message : String(err);
        const e = error("bad_response", spec.method, { status, body, detail, cause: err });
        return { ok: false, error: e, retry: false, retryAfterMs: null };
      }
    }
    if (ok && !(env?.success && env.data.ok === false)) {
      const detail = parsed ? "not a { ok, result } envelope" : "the body is not JSON";
      const e = error("bad_response", spec.method, { status, body, detail });
      return { ok: false, error: e, retry: false, retryAfterMs: null };
    }
    return { ok: false, ...statusFailure(spec.method, status, body, res.headers["retry-after"]) };
  }

  function call<T>(spec: CallSpec<T>): Promise<T> {
    const payload = JSON.stringify(spec.params);
    const method = spec.method;
    const headers = {
      "crypto-pay-api-token": token,
      "content-type": "application/json",
      accept: "application/json",
    };
    return retryLoop<T, CryptoPayError>({
      retries: Math.max(0, spec.retries ?? retries),
      backoff,
      signal: spec.signal,
      attempt: () =>
        attemptJson(
          pool,
          base,
          { method: "POST", path: `/${method}`, headers, body: payload, signal: spec.signal },
          (res) => judge(spec, res),
          (err) => transportFailure(method, err, spec.signal),
        ),
      report: callReport(log, "crypto pay request", { method }, { onRequest: opts.onRequest }),
      finalError: (failure, attempts) => withAttempts(failure.error, attempts),
    });
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
