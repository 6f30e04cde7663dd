/**
 * The shared core of the project's HTTP API clients (reseller, YooKassa, Crypto Pay): a keep-alive
 * pool per origin, one JSON request with the pool's timeouts and the caller's abort signal, a retry
 * loop that takes the client's own classification of failures and its rule of how often a call may
 * be repeated, Retry-After parsing, and redaction of secrets. Each client keeps its own error type,
 * messages and request rules.
 */

export { ApiClientError } from "./errors.js";
export {
  type AnswerVerdict,
  type ApiBase,
  type ApiTimeouts,
  attemptJson,
  createApiPool,
  type JsonRequest,
  type JsonResponse,
  parseApiBase,
  requestJson,
} from "./pool.js";
export { createRedactor, type Redactor, truncate } from "./redact.js";
export {
  type AttemptFailure,
  type AttemptOutcome,
  backoffDelay,
  type CallReport,
  callReport,
  parseRetryAfter,
  type RetryLoop,
  retryLoop,
  sleep,
} from "./retry.js";
export { describeTransportError, type TransportProblem } from "./transport-errors.js";
