import { autoRetry } from "@grammyjs/auto-retry";
import type { Api, Transformer } from "grammy";
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import {
  createOutgoingLimiter,
  isLimitedFetch,
  type OutgoingLimits,
  outgoingLimiterTransformer,
} from "./outgoing-limiter.js";

const AUTO_RETRY = { maxRetryAttempts: 5, maxDelaySeconds: 120 };

/** @grammyjs/auto-retry as the bot uses it: 429 `retry_after`, 5xx and network errors. */
export function retries(): Transformer {
  return autoRetry(AUTO_RETRY);
}

/**
 * Installs @grammyjs/auto-retry (429 `retry_after`, 5xx, network errors) and the Redis-backed
 * outgoing limiter on an Api. Used for `bot.api` and the notifier's Api. An Api whose client
 * already limits at the HTTP level (the bot's own, see `limitedFetch`) only gets auto-retry.
 */
export function configureApi(
  api: Api,
  deps: { redis: Redis; config: Config; logger: Logger; metrics?: Metrics; limits?: Partial<OutgoingLimits> },
): void {
  if (!isLimitedFetch(api.options?.fetch)) {
    const limiter = createOutgoingLimiter({
      redis: deps.redis,
      prefix: deps.config.redisPrefix,
      logger: deps.logger,
      limits: deps.limits,
    });
    api.config.use(outgoingLimiterTransformer(limiter));
  }
  const metrics = deps.metrics;
  if (metrics) {
    api.config.use(async (prev, method, payload, signal) => {
      const res = await prev(method, payload, signal);
      if (!res.ok && res.error_code === 429) metrics.telegram429.inc({ method });
      return res;
    });
  }
  // Installed last, so it is outermost: every retry waits for the limiter again.
  api.config.use(retries());
}
