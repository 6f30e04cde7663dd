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
import { YooKassaApiError, type YooKassaErrorKind } from "./errors.js";
import { parseErrorBody, processingRetryAfterMs, YooKassaShapeError } from "./parse.js";

/**
 * The HTTP side of the YooKassa client: one keep-alive undici Pool for the API's origin, HTTP
 * Basic auth (shop id : secret key), JSON bodies, and retries. A retry sends the very same bytes
 * and the very same Idempotence-Key, so YooKassa treats it as a repeat of the first request and
 * never makes a second payment or refund. Retried: network errors, timeouts, 5xx, 429 (honouring
 * Retry-After) and 202 `processing` (honouring its retry_after). Never retried: any other 4xx.
 * The secret key goes into the Authorization header only and is scrubbed from errors and logs.
 */

export interface YooKassaClientOptions extends ApiTimeouts {
  /** The API root, `YOOKASSA_API_URL` (https://api.yookassa.ru/v3); paths like /payments are appended. */
  apiUrl: string;
  shopId: string;
  secretKey: string;
  logger?: Logger;
  /** Retries after the first attempt for transient failures. Default 3. */
  retries?: number;
  /** Base of the jittered exponential backoff (capped at 5 s). Default 300 ms. */
  retryBaseDelayMs?: number;
}

export interface CallSpec<T> {
  method: "GET" | "POST";
  /** Stable label, e.g. "GET /payments/{id}". */
  endpoint: string;
  path: string;
  body?: unknown;
  idempotenceKey?: string;
  signal?: AbortSignal;
  parse: (body: unknown) => T;
}

export interface YooKassaTransport {
  call<T>(spec: CallSpec<T>): Promise<T>;
  close(): Promise<void>;
}

type Failure = AttemptFailure<YooKassaApiError>;

export function createYooKassaTransport(opts: YooKassaClientOptions): YooKassaTransport {
  const base = parseApiBase(opts.apiUrl, "YooKassa API URL", "YOOKASSA_API_URL");
  if (!opts.shopId) throw new Error("YooKassa shop id is empty — check YOOKASSA_SHOP_ID");
  if (!opts.secretKey) throw new Error("YooKassa secret key is empty — check YOOKASSA_SECRET_KEY");

  const secret = opts.secretKey;
  const authorization = `Basic ${Buffer.from(`${opts.shopId}:${secret}`).toString("base64")}`;
  const origin = base.origin;
  const retries = Math.max(0, opts.retries ?? 3);
  const baseDelay = Math.max(0, opts.retryBaseDelayMs ?? 300);
  const log = opts.logger?.child({ component: "yookassa" });
  const pool = createApiPool(origin, 8, opts);
  const redact = createRedactor(secret, authorization);

  const HINTS: Record<YooKassaErrorKind, string> = {
    invalid_request: "fix the request; repeating it unchanged will not help",
    auth: "check YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY",
    forbidden: "the shop may not do this; check the shop's settings in the YooKassa dashboard",
    not_found: "check the payment or refund id",
    bad_response: "the API may have changed; check YOOKASSA_API_URL and the client",
    rate_limited: "slow down and retry later with the same Idempotence-Key",
    server: "YooKassa may or may not have processed it; retry later with the same Idempotence-Key",
    processing: "YooKassa is still processing it; retry later with the same Idempotence-Key",
    network: `check YOOKASSA_API_URL (${origin}) and the network; the request may or may not have been processed, so retry with the same Idempotence-Key`,
    timeout: "the request may or may not have been processed; retry with the same Idempotence-Key",
  };

  function makeError(
    kind: YooKassaErrorKind,
    spec: CallSpec<unknown>,
    init: { status?: number | null; body?: unknown; detail?: string | null; cause?: unknown },
  ): YooKassaApiError {
    const info = init.body === undefined ? null : parseErrorBody(init.body);
    const status = init.status ?? null;
    const statusText = status === null ? "" : ` (${status}${info?.code ? ` ${info.code}` : ""})`;
    const detail = init.detail ?? info?.description ?? null;
    const param = info?.parameter ? ` [parameter: ${info.parameter}]` : "";
    const what: Record<YooKassaErrorKind, string> = {
      invalid_request: "YooKassa refused the request",
      auth: "YooKassa rejected the shop id or secret key",
      forbidden: "YooKassa forbade the request",
      not_found: "YooKassa found nothing",
      bad_response: "YooKassa sent a response we could not understand",
      rate_limited: "YooKassa kept rate-limiting us",
      server: "YooKassa failed",
      processing: "YooKassa has not finished processing",
      network: "Could not talk to YooKassa",
      timeout: "YooKassa did not answer in time",
    };
    const message = `${what[kind]}${statusText} at ${spec.method} ${spec.path}${detail ? `: ${truncate(detail)}` : ""}${param} — ${HINTS[kind]}`;
    return new YooKassaApiError({
      kind,
      endpoint: spec.endpoint,
      status,
      code: info?.code ?? null,
      parameter: info?.parameter ?? null,
      errorId: info?.id ?? null,
      body: redact.value(init.body),
      message: redact.text(message),
      cause: init.cause,
    });
  }

  function statusFailure(
    spec: CallSpec<unknown>,
    status: number,
    body: unknown,
    retryAfter: string | string[] | undefined,
  ): Failure {
    if (status === 429)
      return {
        error: makeError("rate_limited", spec, { status, body }),
        retry: true,
        retryAfterMs: parseRetryAfter(retryAfter),
      };
    if (status >= 500)
      return {
        error: makeError("server", spec, { status, body }),
        retry: true,
        retryAfterMs: parseRetryAfter(retryAfter),
      };
    let kind: YooKassaErrorKind;
    if (status === 401) kind = "auth";
    else if (status === 403) kind = "forbidden";
    else if (status === 404) kind = "not_found";
    else if (status >= 400 && status < 500) kind = "invalid_request";
    else kind = "bad_response";
    const detail = status >= 300 && status < 400 ? "a redirect, which the client does not follow" : null;
    return { error: makeError(kind, spec, { status, body, detail }), retry: false, retryAfterMs: null };
  }

  function transportFailure(spec: CallSpec<unknown>, err: unknown): Failure {
    const problem = describeTransportError(err, spec.signal);
    const kind = problem.kind === "cancelled" ? "timeout" : problem.kind;
    return {
      error: makeError(kind, spec, { detail: problem.detail, cause: err }),
      retry: problem.kind !== "cancelled",
      retryAfterMs: null,
    };
  }

  /** A 202 `processing` is retried; any other 2xx goes to `spec.parse`; the rest is classified. */
  function judge<T>(spec: CallSpec<T>, res: JsonResponse): AnswerVerdict<T, YooKassaApiError> {
    const { status, body, parsed } = res;
    const processingMs = status === 202 && parsed ? processingRetryAfterMs(body) : null;
    if (processingMs !== null) {
      const error = makeError("processing", spec, { status, body });
      return { ok: false, error, retry: true, retryAfterMs: Math.min(processingMs, 30_000) };
    }
    if (status < 200 || status >= 300) {
      return { ok: false, ...statusFailure(spec, status, body, res.headers["retry-after"]) };
    }
    try {
      if (!parsed)
        throw new YooKassaShapeError(res.text.trim() === "" ? "empty body" : "the body is not JSON");
      return { ok: true, value: spec.parse(body) };
    } catch (err) {
      const detail = err instanceof YooKassaShapeError ? err.message : `unexpected shape (${String(err)})`;
      const error = makeError("bad_response", spec, { status, body, detail, cause: err });
      return { ok: false, error, retry: false, retryAfterMs: null };
    }
  }

  function call<T>(spec: CallSpec<T>): Promise<T> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = { authorization, accept: "application/json" };
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotenceKey !== undefined) headers["idempotence-key"] = spec.idempotenceKey;
    const report = callReport(
      log,
      "yookassa request",
      { endpoint: spec.endpoint },
      { retryNote: "retrying with the same Idempotence-Key" },
    );

    return retryLoop<T, YooKassaApiError>({
      retries,
      backoff: (n) => backoffDelay(baseDelay, n),
      signal: spec.signal,
      attempt: () =>
        attemptJson(
          pool,
          base,
          { method: spec.method, path: spec.path, headers, body: payload, signal: spec.signal },
          (res) => judge(spec, res),
          (err) => transportFailure(spec, err),
        ),
      report,
    });
  }

  return {
    call,
    async close() {
      await pool.close();
    },
  };
}
