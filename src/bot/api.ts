import { autoRetry } from "@grammyjs/auto-retry";
import { type Api, HttpError, type Transformer } from "grammy";
import { backoffDelay, sleep } from "../http-client/retry.js";
import type { Metrics } from "../metrics.js";
import type { TelegramTransport } from "./telegram-transport.js";

/**
 * @grammyjs/auto-retry waits out a 429's `retry_after`. Network errors and 5xx answers are left to
 * {@link rideOutOutages}: auto-retry's own pause for them starts at 3 s and doubles up to an hour
 * (its `maxDelaySeconds` bounds only `retry_after`), so after an outage of a minute or two the
 * bot stayed silent about as long again.
 */
const AUTO_RETRY = {
  maxRetryAttempts: 5,
  maxDelaySeconds: 120,
  rethrowHttpErrors: true,
  rethrowInternalServerErrors: true,
};

/** First pause before a call is tried again after a network error or a 5xx (jittered, doubling, at most 5 s). */
const OUTAGE_RETRY_BASE_MS = 500;
/** 5xx answers tried again before the call fails with the last one (getUpdates: until it answers). */
const SERVER_ERROR_RETRIES = 5;

/**
 * Tries a call again while the Bot API is out of reach: after a network error until it answers
 * (or the call is aborted), after a 5xx up to {@link SERVER_ERROR_RETRIES} times, getUpdates
 * until it answers (the runner's own retries would double their pause without a bound). The pause
 * doubles from 0.5 s up to 5 s (http-client/retry.ts), so a call resumes within about 5 s of
 * Telegram's return, and one call tries at most every 2.5 s or so while it is down.
 */
function rideOutOutages(): Transformer {
  return async (prev, method, payload, signal) => {
    const abort = signal as AbortSignal | undefined;
    const serverRetries = method === "getUpdates" ? Number.POSITIVE_INFINITY : SERVER_ERROR_RETRIES;
    let serverErrors = 0;
    for (let attempt = 0; ; attempt++) {
      let res: Awaited<ReturnType<typeof prev>>;
      try {
        res = await prev(method, payload, signal);
      } catch (err) {
        if (!(err instanceof HttpError) || abort?.aborted) throw err;
        await sleep(backoffDelay(OUTAGE_RETRY_BASE_MS, attempt), abort);
        if (abort?.aborted) throw err;
        continue;
      }
      if (res.ok || res.error_code < 500 || serverErrors >= serverRetries) return res;
      serverErrors += 1;
      await sleep(backoffDelay(OUTAGE_RETRY_BASE_MS, attempt), abort);
      if (abort?.aborted) return res;
    }
  };
}

/**
 * Installs the transport's request (when given), the 429 counter (when there are metrics), the
 * outage retries and @grammyjs/auto-retry on an Api: the bot's own and the one the orders
 * engine's messages go out through. Neither waits for a budget: replies go at once, and the
 * engine's messages are paced by the outgoing queue; a 429's `retry_after` is honoured by
 * auto-retry and shared through the transport (telegram-holds.ts).
 */
export function configureApi(
  api: Api,
  deps: { metrics?: Metrics; transport?: TelegramTransport } = {},
): void {
  const metrics = deps.metrics;
  // First, so it stands where grammY's own request would, beneath every other transformer.
  if (deps.transport) api.config.use(deps.transport.direct(api.token, api.options?.apiRoot));
  if (metrics) {
    api.config.use(async (prev, method, payload, signal) => {
      const res = await prev(method, payload, signal);
      if (!res.ok && res.error_code === 429) metrics.telegram429.inc({ method });
      return res;
    });
  }
  api.config.use(rideOutOutages());
  api.config.use(autoRetry(AUTO_RETRY));
}
