import { ApiClientError } from "../../http-client/errors.js";

/**
 * What went wrong talking to Crypto Pay, in terms the checkout can act on.
 *
 * - `auth`: 401/403 or error name `UNAUTHORIZED` — CRYPTOPAY_TOKEN is wrong or revoked.
 * - `bad_request`: any other 4xx or `ok: false` answer; `code` carries Crypto Pay's error name
 *   (e.g. `EXPIRES_IN_INVALID`, `AMOUNT_TOO_SMALL`). Repeating the request unchanged will not help.
 * - `rate_limited`: 429 after the client's own retries ran out.
 * - `server`: 5xx after retries.
 * - `network` / `timeout`: no usable answer after retries; the request may or may not have been processed.
 * - `bad_response`: a 2xx body we could not understand.
 */
export type CryptoPayErrorKind =
  | "auth"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "network"
  | "timeout"
  | "bad_response";

const TRANSIENT: ReadonlySet<CryptoPayErrorKind> = new Set(["rate_limited", "server", "network", "timeout"]);

/**
 * `status`, `code` (Crypto Pay's error name, `error.name`, e.g. "UNAUTHORIZED") and `body` (never
 * the token) come from `ApiClientError`.
 */
export class CryptoPayError extends ApiClientError<CryptoPayErrorKind> {
  override readonly name = "CryptoPayError";
  /** The API method, e.g. "createInvoice". */
  readonly method: string;
  /** Attempts made, including retries. */
  readonly attempts: number;
  /** What Retry-After asked for (ms, capped at 30 s), when the answer carried one. */
  readonly retryAfterMs: number | null;

  constructor(init: {
    kind: CryptoPayErrorKind;
    method: string;
    status?: number | null;
    code?: string | null;
    body?: unknown;
    attempts?: number;
    retryAfterMs?: number | null;
    message: string;
    cause?: unknown;
  }) {
    super(init);
    this.method = init.method;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }

  /** True when the same request may succeed later; false for auth and refused requests. */
  get transient(): boolean {
    return TRANSIENT.has(this.kind);
  }

  /** True when the request may have been processed although no answer arrived (network, timeout, 5xx). */
  get outcomeUnknown(): boolean {
    return this.kind === "network" || this.kind === "timeout" || this.kind === "server";
  }
}

/** The same error with the number of attempts made, in its field and its message. */
export function withAttempts(e: CryptoPayError, attempts: number): CryptoPayError {
  if (attempts <= 1) return e;
  return new CryptoPayError({
    kind: e.kind,
    method: e.method,
    status: e.status,
    code: e.code,
    body: e.body,
    attempts,
    retryAfterMs: e.retryAfterMs,
    message: e.message.replace(/ — /, ` after ${attempts} attempts — `),
    cause: e.cause,
  });
}

/** A request that breaks our own rules before anything is sent (bad amount, empty order id…). */
export class CryptoPayValidationError extends Error {
  override readonly name = "CryptoPayValidationError";
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`Invalid Crypto Pay request: ${field} ${detail}`);
  }
}
