import { createRedactor, describeTransportError, parseRetryAfter, truncate } from "../http-client/index.js";
import { ResellerApiError, type ResellerErrorKind } from "./errors.js";
import { mentionsInsufficientFunds, parseErrorBody } from "./parse-errors.js";

/**
 * Classification of the reseller API's failures: an HTTP status or `success: false`, a network
 * error or a timeout becomes a `ResellerApiError` of one kind, with a message that says what to
 * do, and a verdict on whether the attempt may be retried. The API key is scrubbed from every
 * message and body the errors carry.
 */

/** Outcome of one attempt that did not produce a result. */
export interface AttemptFailure {
  error: ResellerApiError;
  retry: boolean;
  retryAfterMs: number | null;
}

/** What the messages need to know about the client: the key to scrub, the origin and the timeouts to name. */
export interface FailureContext {
  apiKey: string;
  origin: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

export function createFailures(ctx: FailureContext) {
  const { apiKey, origin, connectTimeoutMs, headersTimeoutMs, bodyTimeoutMs } = ctx;

  /** Removes the API key from any text or body, so an echoing server or proxy cannot leak it into logs or errors. */
  const redact = createRedactor(apiKey);

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
      body: redact.value(init.body),
      message: redact.text(text[kind]),
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
    // A body that says the deposit ran short wins over the status: a 403 "insufficient balance" is
    // a refusal for the deposit (the order is rejected and the product paused), not a bad key
    // (which `pay` waits out, and the operators are told to check RESELLER_API_KEY).
    if (status === 402 || mentionsInsufficientFunds(info)) kind = "insufficient_funds";
    else if (status === 401 || status === 403) kind = "auth";
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
    const problem = describeTransportError(err, signal);
    if (problem.kind === "cancelled") {
      return {
        error: apiError("timeout", where, endpoint, { detail: problem.detail, cause: err }),
        retry: false,
        retryAfterMs: null,
      };
    }
    if (problem.kind === "timeout") {
      const ms = {
        connect: connectTimeoutMs,
        headers: headersTimeoutMs,
        body: bodyTimeoutMs,
        socket: undefined,
      }[problem.phase];
      const timeout = `${problem.phase} timeout`;
      return {
        error: apiError("timeout", where, endpoint, {
          detail: ms ? `${timeout} after ${ms} ms` : timeout,
          cause: err,
        }),
        retry: true,
        retryAfterMs: null,
      };
    }
    return {
      error: apiError("network", where, endpoint, { detail: problem.detail, cause: err }),
      retry: true,
      retryAfterMs: null,
    };
  }

  return { apiError, statusFailure, transportFailure };
}

/** The same error with another message, marked as the answer to a request sent more than once. */
function reissued(err: ResellerApiError, message: string): ResellerApiError {
  return new ResellerApiError({
    kind: err.kind,
    endpoint: err.endpoint,
    status: err.status,
    code: err.code,
    missingFields: err.missingFields,
    body: err.body,
    message,
    cause: err.cause,
    repeated: true,
  });
}

/** Re-issues a transient error with the number of attempts in its message. */
export function withAttempts(err: ResellerApiError, attempts: number): ResellerApiError {
  return reissued(err, err.message.replace(/ — /, ` after ${attempts} attempts — `));
}

/** Re-issues the final error of a request that was sent more than once as the answer to a repeat. */
export function asRepeat(err: ResellerApiError): ResellerApiError {
  return reissued(err, `${err.message} (answering a repeat of the request)`);
}
