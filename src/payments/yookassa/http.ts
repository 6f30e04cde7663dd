import type { Logger } from "pino";
import { createApiPool, parseApiBase, requestJson } from "../../http-client/pool.js";
import { createRedactor, truncate } from "../../http-client/redact.js";
import { type AttemptFailure, backoffDelay, parseRetryAfter, retryLoop } from "../../http-client/retry.js";
import { describeTransportError } from "../../http-client/transport-errors.js";
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

export interface YooKassaClientOptions {
  /** The API root, `YOOKASSA_API_URL` (https://api.yookassa.ru/v3); paths like /payments are appended. */
  apiUrl: string;
  shopId: string;
  secretKey: string;
  logger?: Logger;
  /** Defaults 5000 / 10000 / 10000 ms. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
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
  const pool = createApiPool(origin, {
    connections: 8,
    connectTimeoutMs: opts.connectTimeoutMs,
    headersTimeoutMs: opts.headersTimeoutMs,
    bodyTimeoutMs: opts.bodyTimeoutMs,
  });
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

  /** One request and the verdict on its answer. */
  async function attempt<T>(spec: CallSpec<T>, headers: Record<string, string>, payload?: string) {
    let failure: Failure;
    let status: number | null = null;
    try {
      const res = await requestJson(pool, base, {
        method: spec.method,
        path: spec.path,
        headers,
        body: payload,
        signal: spec.signal,
        onStatus: (s) => {
          status = s;
        },
      });
      const { body, parsed } = res;
      const processingMs = res.status === 202 && parsed ? processingRetryAfterMs(body) : null;
      if (processingMs !== null) {
        failure = {
          error: makeError("processing", spec, { status: res.status, body }),
          retry: true,
          retryAfterMs: Math.min(processingMs, 30_000),
        };
      } else if (res.status >= 200 && res.status < 300) {
        try {
          if (!parsed)
            throw new YooKassaShapeError(res.text.trim() === "" ? "empty body" : "the body is not JSON");
          return { ok: true as const, value: spec.parse(body), status: res.status };
        } catch (err) {
          const detail =
            err instanceof YooKassaShapeError ? err.message : `unexpected shape (${String(err)})`;
          failure = {
            error: makeError("bad_response", spec, { status: res.status, body, detail, cause: err }),
            retry: false,
            retryAfterMs: null,
          };
        }
      } else {
        failure = statusFailure(spec, res.status, body, res.headers["retry-after"]);
      }
    } catch (err) {
      failure = transportFailure(spec, err);
    }
    return { ok: false as const, status, ...failure };
  }

  function call<T>(spec: CallSpec<T>): Promise<T> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = { authorization, accept: "application/json" };
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotenceKey !== undefined) headers["idempotence-key"] = spec.idempotenceKey;

    return retryLoop<T, YooKassaApiError>({
      retries,
      backoff: (n) => backoffDelay(baseDelay, n),
      signal: spec.signal,
      attempt: () => attempt(spec, headers, payload),
      onAttempt(outcome, _durationMs, n) {
        if (outcome.ok)
          log?.debug(
            { endpoint: spec.endpoint, status: outcome.status, attempt: n },
            "yookassa request done",
          );
      },
      giveUp(failure, attempts) {
        log?.warn(
          {
            endpoint: spec.endpoint,
            status: failure.status,
            kind: failure.error.kind,
            code: failure.error.code,
            attempts,
            err: failure.error.message,
          },
          "yookassa request failed",
        );
        return failure.error;
      },
      onRetry(failure, n, delayMs) {
        log?.warn(
          {
            endpoint: spec.endpoint,
            status: failure.status,
            kind: failure.error.kind,
            attempt: n + 1,
            delayMs,
          },
          "yookassa request failed; retrying with the same Idempotence-Key",
        );
      },
    });
  }

  return {
    call,
    async close() {
      await pool.close();
    },
  };
}
