import { ApiClientError } from "../http-client/errors.js";

/**
 * What went wrong talking to the reseller API, in terms the orders engine and an operator can act on.
 *
 * - `auth`: 401/403, the API key is wrong or revoked.
 * - `insufficient_funds`: the deposit does not cover the order (402, or a body that says so).
 * - `not_found`: 404, e.g. an unknown custom_id.
 * - `bad_request`: any other 4xx; `missingFields` lists what a 400 named.
 * - `rate_limited`: 429 after the client's own retries ran out.
 * - `server`: 5xx after retries.
 * - `network` / `timeout`: no usable answer after retries; the request may or may not have been processed.
 * - `bad_response`: a 2xx body we could not understand.
 */
export type ResellerErrorKind =
  | "auth"
  | "insufficient_funds"
  | "not_found"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "network"
  | "timeout"
  | "bad_response";

/** `status`, `code` (an error code from the body) and `body` (never request headers) come from `ApiClientError`. */
export class ResellerApiError extends ApiClientError<ResellerErrorKind> {
  override readonly name = "ResellerApiError";
  /** e.g. "POST /api/reseller/order/pay" */
  readonly endpoint: string;
  /** Fields a 400 named as missing or invalid. */
  readonly missingFields: string[];
  /**
   * The answer was to a repeat of a request whose earlier attempt got no usable answer (and may
   * have been processed): a refusal may then be of the repeat ("already exists"), not of the request.
   */
  readonly repeated: boolean;

  constructor(init: {
    kind: ResellerErrorKind;
    endpoint: string;
    status?: number | null;
    code?: string | null;
    missingFields?: string[];
    body?: unknown;
    message: string;
    cause?: unknown;
    repeated?: boolean;
  }) {
    super(init);
    this.endpoint = init.endpoint;
    this.missingFields = init.missingFields ?? [];
    this.repeated = init.repeated ?? false;
  }

  /** True when the same request may succeed later (the engine retries these with the same custom_id). */
  get transient(): boolean {
    return ["rate_limited", "server", "network", "timeout"].includes(this.kind);
  }
}

/** A create request that breaks the spec's rules (§2.1, §8); nothing was sent. */
export class ResellerValidationError extends Error {
  override readonly name = "ResellerValidationError";
  constructor(readonly issues: { field: string; message: string }[]) {
    super(`Invalid order request: ${issues.map((i) => `${i.field}: ${i.message}`).join("; ")}`);
  }
  get fields(): string[] {
    return [...new Set(this.issues.map((i) => i.field))];
  }
}
