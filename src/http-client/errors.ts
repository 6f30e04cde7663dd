/**
 * What every API client's error carries: the kind of failure (the client's own list), the HTTP
 * status, the API's error code and the (redacted) body; each client adds whether a repeat may succeed
 * (`transient`). `ResellerApiError`, `YooKassaApiError` and `CryptoPayError` extend it with their own fields.
 */
export abstract class ApiClientError<K extends string> extends Error {
  readonly kind: K;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** The API's error code from the body, when it carried one. */
  readonly code: string | null;
  /** The parsed (or raw text) error body; never request headers or secrets. */
  readonly body: unknown;
  constructor(init: {
    kind: K;
    message: string;
    status?: number | null;
    code?: string | null;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.body = init.body;
  }
}
