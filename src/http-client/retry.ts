import type { Logger } from "pino";

/**
 * Timing of the API clients' retries: jittered exponential backoff, Retry-After, an abortable
 * sleep, and the loop that repeats one attempt until it succeeds, may not be retried, or the
 * retries run out.
 */

const BACKOFF_CAP_MS = 5_000;
const RETRY_AFTER_CAP_MS = 30_000;

/** Retry-After as seconds or an HTTP date, in ms, capped at 30 s; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const trimmed = v.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), RETRY_AFTER_CAP_MS);
}

/** Jittered exponential backoff before retry number `attempt + 1`: half fixed, half random, capped at 5 s. */
export function backoffDelay(baseDelayMs: number, attempt: number): number {
  const exp = Math.min(BACKOFF_CAP_MS, baseDelayMs * 2 ** attempt);
  return Math.round(exp / 2 + (Math.random() * exp) / 2);
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An attempt that produced no result: the client's own error, and whether (and when) to try again. */
export interface AttemptFailure<E> {
  error: E;
  retry: boolean;
  /** What the server asked for (Retry-After and the like); the backoff is used when null. */
  retryAfterMs: number | null;
}

/** What one attempt came to; `status` is the HTTP status when an answer arrived, for logs and metrics. */
export type AttemptOutcome<T, E> =
  | { ok: true; value: T; status: number | null }
  | ({ ok: false; status: number | null } & AttemptFailure<E>);

interface ClassifiedError {
  kind: string;
  code: string | null;
  message: string;
}

/** Logs and metrics of one call, made by `callReport`. */
export interface CallReport {
  attempt(outcome: AttemptOutcome<unknown, ClassifiedError>, durationMs: number, attempt: number): void;
  retrying(status: number | null, error: ClassifiedError, attempt: number, delayMs: number): void;
  gaveUp(status: number | null, error: ClassifiedError, attempts: number): void;
}

type AttemptInfo<C> = C & { status: number | null; durationMs: number; error?: string };

/**
 * The logs and metrics of one call: `what` names it in messages ("reseller request"), `context`
 * leads the logged fields and the metrics ({ endpoint } or { method }), `onRequest` is the
 * client's metrics hook (once per attempt), `retryNote` ends the retry warning.
 */
export function callReport<C extends Record<string, unknown>>(
  log: Logger | undefined,
  what: string,
  context: C,
  opts: { onRequest?: (info: AttemptInfo<C>) => void; retryNote?: string } = {},
): CallReport {
  const fields: Record<string, unknown> = context;
  return {
    attempt(outcome, durationMs, attempt) {
      const { status } = outcome;
      if (outcome.ok) {
        opts.onRequest?.({ ...context, status, durationMs });
        log?.debug({ ...fields, status, attempt }, `${what} done`);
      } else {
        opts.onRequest?.({ ...context, status, durationMs, error: outcome.error.kind });
      }
    },
    retrying(status, error, attempt, delayMs) {
      log?.warn(
        { ...fields, status, kind: error.kind, attempt: attempt + 1, delayMs },
        `${what} failed; ${opts.retryNote ?? "retrying"}`,
      );
    },
    gaveUp(status, error, attempts) {
      log?.warn(
        { ...fields, status, kind: error.kind, code: error.code, attempts, err: error.message },
        `${what} failed`,
      );
    },
  };
}

export interface RetryLoop<T, E extends ClassifiedError> {
  /** Retries after the first attempt; the caller's rule of what may be repeated safely. */
  retries: number;
  backoff(attempt: number): number;
  signal?: AbortSignal;
  /** One attempt; it never throws, it returns a failure the client has classified. */
  attempt(attempt: number): Promise<AttemptOutcome<T, E>>;
  report: CallReport;
  /** The error to throw when the loop gives up (e.g. with the attempt count in its message); default the failure's. */
  finalError?(failure: AttemptFailure<E>, attempts: number): E;
}

/**
 * Runs `attempt` until it succeeds, fails for good, the retries run out or the signal aborts. The
 * wait before a retry is the server's Retry-After when it gave one, else the backoff.
 */
export async function retryLoop<T, E extends ClassifiedError>(loop: RetryLoop<T, E>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    const outcome = await loop.attempt(attempt);
    loop.report.attempt(outcome, performance.now() - started, attempt);
    if (outcome.ok) return outcome.value;
    if (!outcome.retry || attempt >= loop.retries || loop.signal?.aborted) {
      const error = loop.finalError?.(outcome, attempt + 1) ?? outcome.error;
      loop.report.gaveUp(outcome.status, error, attempt + 1);
      throw error;
    }
    const delay = outcome.retryAfterMs ?? loop.backoff(attempt);
    loop.report.retrying(outcome.status, outcome.error, attempt, delay);
    await sleep(delay, loop.signal);
  }
}
