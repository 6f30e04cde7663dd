import { autoRetry } from "@grammyjs/auto-retry";
import type { Api, Transformer } from "grammy";
import type { Metrics } from "../metrics.js";
import type { TelegramTransport } from "./telegram-transport.js";

const AUTO_RETRY = { maxRetryAttempts: 5, maxDelaySeconds: 120 };

/** @grammyjs/auto-retry as the bot uses it: 429 `retry_after`, 5xx and network errors. */
export function retries(): Transformer {
  return autoRetry(AUTO_RETRY);
}

/**
 * Installs the transport's request (when given), the 429 counter (when there are metrics) and
 * @grammyjs/auto-retry on an Api: the bot's own and the one the orders engine's messages go out
 * through. Neither waits for a budget: replies go at once, and the engine's messages are paced by
 * the outgoing queue; a 429's `retry_after` is honoured by auto-retry and shared through the
 * transport (telegram-holds.ts).
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
  api.config.use(retries());
}
