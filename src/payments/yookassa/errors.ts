import { ApiClientError } from "../../http-client/errors.js";

/**
 * What went wrong talking to YooKassa, in terms the checkout and an operator can act on.
 *
 * Permanent (repeating the same request will not help):
 * - `invalid_request`: 400, the request broke a rule; `parameter` names the field when YooKassa did.
 * - `auth`: 401 `invalid_credentials`, the shop id or secret key is wrong.
 * - `forbidden`: 403, the shop may not do this (e.g. refunds not enabled).
 * - `not_found`: 404, e.g. an unknown payment id.
 * - `bad_response`: a 2xx body we could not understand.
 *
 * Transient (`transient === true`; repeat later with the SAME Idempotence-Key):
 * - `rate_limited`: 429 after the client's own retries ran out.
 * - `server`: 5xx after retries; YooKassa may or may not have processed the request.
 * - `processing`: 202 `{ type: "processing" }`, YooKassa is still working on it.
 * - `network` / `timeout`: no usable answer after retries.
 */
export type YooKassaErrorKind =
  | "invalid_request"
  | "auth"
  | "forbidden"
  | "not_found"
  | "bad_response"
  | "rate_limited"
  | "server"
  | "processing"
  | "network"
  | "timeout";

const TRANSIENT: ReadonlySet<YooKassaErrorKind> = new Set([
  "rate_limited",
  "server",
  "processing",
  "network",
  "timeout",
]);

/**
 * `status`, `code` (YooKassa's error code: invalid_request, invalid_credentials, forbidden,
 * not_found, …) and `body` (never request headers) come from `ApiClientError`.
 */
export class YooKassaApiError extends ApiClientError<YooKassaErrorKind> {
  override readonly name = "YooKassaApiError";
  /** e.g. "POST /payments", "GET /payments/{id}" */
  readonly endpoint: string;
  /** The request field YooKassa named (`parameter`). */
  readonly parameter: string | null;
  /** YooKassa's error id, useful when writing to their support. */
  readonly errorId: string | null;

  constructor(init: {
    kind: YooKassaErrorKind;
    endpoint: string;
    message: string;
    status?: number | null;
    code?: string | null;
    parameter?: string | null;
    errorId?: string | null;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init);
    this.endpoint = init.endpoint;
    this.parameter = init.parameter ?? null;
    this.errorId = init.errorId ?? null;
  }

  /** True when the same request, with the same Idempotence-Key, may succeed later. */
  get transient(): boolean {
    return TRANSIENT.has(this.kind);
  }
}

/** A request that breaks YooKassa's documented limits; nothing was sent. */
export class YooKassaValidationError extends Error {
  override readonly name = "YooKassaValidationError";
  constructor(readonly issues: { field: string; message: string }[]) {
    super(`Invalid YooKassa request: ${issues.map((i) => `${i.field}: ${i.message}`).join("; ")}`);
  }
}
