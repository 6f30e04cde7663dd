import type { Logger } from "../logger.js";
import type { OutgoingPace } from "../outgoing/queue.js";
import type { PaymentStatus } from "../payments/gateway.js";
import type { ResellerClient, ResellerOrder } from "../reseller/types.js";
import type { OrdersApi } from "./api.js";
import type { BroadcastDeliverer, EngineConfig, EngineHooks } from "./context.js";
import type { OrderStore } from "./store.js";
import type { Notifier, Order, ProviderRail } from "./types.js";

/**
 * The orders engine: the only thing that changes orders. The bot asks it for quotes and
 * payments (quote.ts, checkout.ts); the reseller's answers come back through tracking.ts; everything an
 * order needs next is a job (jobs.ts) scheduled with its state change (lifecycle.ts) and run
 * by a worker (worker.ts, handlers.ts); operators are told through alerts.ts.
 */
export interface OrdersEngineOptions {
  redis: import("../redis/connect.js").RedisClient;
  /** Sentinel or Cluster: order writes wait for a replica (see redis/replica-wait.ts). */
  replicaWait?: import("../redis/replica-wait.js").ReplicaWait;
  prefix: string;
  reseller: ResellerClient;
  notifier: Notifier;
  /** YooKassa and Crypto Pay gateways, for the rails CHECKOUT offers (see src/payments). */
  gateways?: import("../payments/gateway.js").PaymentGateways;
  /** The customers' wallets, when CHECKOUT offers `wallet`. */
  wallet?: import("../wallet/ledger.js").WalletLedger;
  logger: Logger;
  config: EngineConfig;
  /**
   * How long a claimed job is reserved for one worker before another may take it (crash recovery;
   * default 10 s, renewed every third of it while the job runs).
   */
  leaseMs?: number;
  /** Jobs handled at once by this process. */
  concurrency?: number;
  /** Longest pause between looks at the job schedule while idle (default 2 s; see worker.ts). */
  idleDelayMs?: number;
  /** Deposit check period (also checked after every pay). */
  balanceCheckIntervalMs?: number;
  /** Pace of the outgoing queue (default: Telegram's limits; benchmarks and tests may lift it). */
  pace?: Partial<OutgoingPace>;
  /** How long a message taken from the outgoing queue may go unacknowledged (crash recovery; default: leaseMs, else 10 s). */
  messageLeaseMs?: number;
  /** How long a message to a chat that cannot be written to waits before another try (default 5 min). */
  unreachableHoldMs?: number;
  hooks?: EngineHooks;
  /** Operators' broadcasts, whose messages share the outgoing queue. */
  broadcasts?: BroadcastDeliverer;
  now?: () => number;
  /**
   * Retention and the archive (retention.ts): ORDER_RETENTION_DAYS and ARCHIVE_DIR. Without it
   * orders stay in Redis and operators' lists and stats read Redis only.
   */
  retention?: { days: number; dir: string; batch?: number; everyMs?: number };
}

export interface OrdersEngine extends OrdersApi {
  readonly store: OrderStore;
  /** Starts this process's worker: resumes everything in flight (paid → pay, pending → poll, unsent notifications). */
  start(): void;
  /** Stops taking jobs, lets running ones finish within `timeoutMs`, hands unfinished ones back. */
  stop(timeoutMs?: number): Promise<void>;
  /**
   * A provider's notification (YooKassa, Crypto Pay): re-reads the payment it names and applies
   * it to its order. Returns what the provider said (null: unknown payment or rail not configured);
   * a top-up's payment is returned for the wallet to apply.
   */
  onPaymentHint(rail: ProviderRail, paymentId: string): Promise<PaymentStatus | null>;
  /** A delivery webhook's hint: re-read the order from the reseller soon. False when the order is unknown or not awaiting delivery. */
  onDeliveryHint(orderId: string): Promise<boolean>;
  /** Applies what the reseller says about an order (the source of truth). */
  applyResellerOrder(orderId: string, remote: ResellerOrder): Promise<Order | null>;
  /** Jobs waiting or running, for metrics. */
  queueDepth(): Promise<number>;
  /** Messages waiting in the outgoing queue or being sent, for metrics. */
  outgoingDepth(): Promise<number>;
  /** Something was queued for the outgoing queue elsewhere (a broadcast): look at once. */
  kickOutgoing(): void;
}
