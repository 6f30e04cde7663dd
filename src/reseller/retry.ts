/** Timing of the reseller client's retries: jittered exponential backoff, Retry-After, and an abortable sleep. */

const BACKOFF_CAP_MS = 5_000;
const RETRY_AFTER_CAP_MS = 30_000;

/** Retry-After as seconds or an HTTP date, in ms, capped; null when absent or unreadable. */
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
