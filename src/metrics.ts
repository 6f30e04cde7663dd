import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { resolveWithin } from "./util/timers.js";

/**
 * How long a scrape waits for a depth read from Redis: a Redis down or hung makes the gauge -1
 * rather than the scrape hang (/readyz says why).
 */
const DEPTH_TIMEOUT_MS = 250;

const depth = (read: () => Promise<number>) =>
  resolveWithin(
    read().catch(() => -1),
    DEPTH_TIMEOUT_MS,
    -1,
  );

/** Prometheus metrics of one process (GET /metrics). */
export function createMetrics(opts: {
  queueDepth: () => Promise<number>;
  outgoingDepth?: () => Promise<number>;
}) {
  const registry = new Registry();
  const orderTransitions = new Counter({
    name: "shopbot_order_transitions_total",
    help: "Order state changes made by this process, by new state and product",
    labelNames: ["state", "product"] as const,
    registers: [registry],
  });
  const webhookRequests = new Counter({
    name: "shopbot_reseller_webhooks_total",
    help: "Delivery webhooks received, by outcome (bad_signature = verification failed)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const resellerLatency = new Histogram({
    name: "shopbot_reseller_request_duration_seconds",
    help: "Reseller API request latency per attempt, by endpoint and HTTP status (0 = no answer)",
    labelNames: ["endpoint", "status"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const resellerErrors = new Counter({
    name: "shopbot_reseller_request_errors_total",
    help: "Reseller API attempts that failed (network, timeout, 5xx, 4xx), by endpoint",
    labelNames: ["endpoint"] as const,
    registers: [registry],
  });
  const telegram429 = new Counter({
    name: "shopbot_telegram_429_total",
    help: "Telegram answers 429 Too Many Requests",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  const jobs = new Counter({
    name: "shopbot_jobs_total",
    help: "Follow-up jobs handled by this process, by type and outcome",
    labelNames: ["type", "outcome"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "shopbot_queue_depth",
    help: "Follow-up jobs scheduled or running (all processes)",
    registers: [registry],
    async collect() {
      this.set(await depth(opts.queueDepth));
    },
  });
  new Gauge({
    name: "shopbot_outgoing_depth",
    help: "Messages the bot sends on its own (final messages, alerts, card updates) waiting or being sent (all processes)",
    registers: [registry],
    async collect() {
      this.set(opts.outgoingDepth ? await depth(opts.outgoingDepth) : 0);
    },
  });
  return {
    registry,
    orderTransitions,
    webhookRequests,
    resellerLatency,
    resellerErrors,
    telegram429,
    jobs,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
