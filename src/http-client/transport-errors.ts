/** Classification of a request that got no usable answer: cancelled by the caller, timed out, or a network error. */

const TIMEOUTS: Record<string, "connect" | "headers" | "body" | "socket"> = {
  UND_ERR_CONNECT_TIMEOUT: "connect",
  UND_ERR_HEADERS_TIMEOUT: "headers",
  UND_ERR_BODY_TIMEOUT: "body",
  ETIMEDOUT: "socket",
};

export type TransportProblem =
  /** The caller's signal aborted; never retried. */
  | { kind: "cancelled"; detail: string }
  /** undici's connect, headers or body timeout, or a socket timeout. */
  | { kind: "timeout"; phase: "connect" | "headers" | "body" | "socket"; code: string; detail: string }
  | { kind: "network"; code: string | undefined; detail: string };

/** What went wrong with a request that threw; `detail` is "<code> <message>" for the error's message. */
export function describeTransportError(err: unknown, signal?: AbortSignal): TransportProblem {
  if (signal?.aborted) return { kind: "cancelled", detail: "cancelled by the caller" };
  const raw = (err as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" && raw !== "" ? raw : undefined;
  const message = err instanceof Error ? err.message : String(err);
  const detail = code ? `${code} ${message}` : message;
  const phase = code ? TIMEOUTS[code] : undefined;
  if (code && phase) return { kind: "timeout", phase, code, detail };
  return { kind: "network", code, detail };
}
