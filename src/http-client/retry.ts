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

export interface RetryLoop<T, E> {
  /** Retries after the first attempt; the caller's rule of what may be repeated safely. */
  retries: number;
  backoff(attempt: number): number;
  signal?: AbortSignal;
  /** One attempt; it never throws, it returns a failure the client has classified. */
  attempt(attempt: number): Promise<AttemptOutcome<T, E>>;
  /** Called after every attempt (metrics, debug logs). */
  onAttempt?(outcome: AttemptOutcome<T, E>, durationMs: number, attempt: number): void;
  /** Called before waiting `delayMs` for the next attempt. */
  onRetry?(failure: AttemptFailure<E> & { status: number | null }, attempt: number, delayMs: number): void;
  /** The error to throw when the loop gives up (e.g. with the attempt count in its message). */
  giveUp(failure: AttemptFailure<E> & { status: number | null }, attempts: number): E;
}

/**
 * Runs `attempt` until it succeeds, fails for good, the retries run out or the signal aborts. The
 * wait before a retry is the server's Retry-After when it gave one, else the backoff.
 */
export async function retryLoop<T, E>(loop: RetryLoop<T, E>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    const outcome = await loop.attempt(attempt);
    loop.onAttempt?.(outcome, performance.now() - started, attempt);
    if (outcome.ok) return outcome.value;
    if (!outcome.retry || attempt >= loop.retries || loop.signal?.aborted) {
      throw loop.giveUp(outcome, attempt + 1);
    }
    const delay = outcome.retryAfterMs ?? loop.backoff(attempt);
    loop.onRetry?.(outcome, attempt, delay);
    await sleep(delay, loop.signal);
  }
}

interface ClassifiedError {
  kind: string;
  code: string | null;
  message: string;
}

/**
 * The warnings of a retried call: `what` names the call in the message ("reseller request"),
 * `context` leads the logged fields ({ endpoint } or { method }), `retryNote` ends the retry line.
 */
export function retryWarnings(
  log: Logger | undefined,
  what: string,
  context: Record<string, unknown>,
  retryNote = "retrying",
) {
  return {
    gaveUp(status: number | null, error: ClassifiedError, attempts: number): void {
      log?.warn(
        { ...context, status, kind: error.kind, code: error.code, attempts, err: error.message },
        `${what} failed`,
      );
    },
    retrying(status: number | null, error: ClassifiedError, attempt: number, delayMs: number): void {
      log?.warn(
        { ...context, status, kind: error.kind, attempt: attempt + 1, delayMs },
        `${what} failed; ${retryNote}`,
      );
    },
  };
}
