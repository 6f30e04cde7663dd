import { PRODUCT_KINDS } from "../config.js";
import { MESSAGE_LEASE_MS, OutgoingDispatcher } from "../outgoing/dispatcher.js";
import { OutgoingQueue } from "../outgoing/queue.js";
import { PromoStore } from "../promo/store.js";
import { Referrals } from "../referrals/referrals.js";
import { retryUntilDone } from "../util/timers.js";
import { TopUps } from "../wallet/topups.js";
import { checkBalance } from "./alerts.js";
import { OrderArchive, withArchive } from "./archive.js";
import { cancel, checkPayable, confirm, markPaid } from "./checkout.js";
import { type EngineContext, pollMsOf } from "./context.js";
import { DepositGuard } from "./deposit-guard.js";
import { DepositPull } from "./deposit-pull.js";
import type { Effect, HeldJob } from "./effects.js";
import type { OrdersEngine, OrdersEngineOptions } from "./engine-options.js";
import { Retry, runJob, TAKEN_OFF } from "./handlers.js";
import { decodeJob, encodeJob, jobTypeOf } from "./jobs.js";
import { cardUpdate, finalMessage, NOTIFIED_STATES } from "./lifecycle.js";
import { migrateAtStart } from "./migrations.js";
import { deliverMessage, recordCardMessage } from "./notifications.js";
import { PayAnswers } from "./pay-answers.js";
import { ordersCreatedBetween } from "./period-orders.js";
import { PriceSettingsStore } from "./price-settings.js";
import { applyPromo } from "./promo-checkout.js";
import { onPaymentHint, startProviderPayment } from "./provider-checkout.js";
import { quote } from "./quote.js";
import type { RetentionSettings } from "./retention.js";
import { recentSpending } from "./spending.js";
import { type HintSlots, onDeliveryHint } from "./steps.js";
import { OrderStore } from "./store.js";
import { applyResellerOrder, recheck } from "./tracking.js";
import { payFromWallet } from "./wallet-checkout.js";
import { JOB_LEASE_MS, JobWorker } from "./worker.js";

export type { EngineConfig, EngineHooks } from "./context.js";
export type { OrdersEngine, OrdersEngineOptions } from "./engine-options.js";

/**
 * Jobs run at once by one process, and delivery hints re-read at once. Jobs wait on I/O (the
 * reseller, through its client's pool of 16 connections; Redis), not on this process's CPU, so the
 * bound is set by a rush: each payment holds its order's `pay` step for the process that recorded
 * it, and a step this worker has no room for is left to the shared schedule instead, where a worker
 * claims it (a claim, a lease check, the card's own update: 44 → 40 Redis commands per order at
 * 1,000 customers in `npm run bench`'s table 1b, 16 → 64).
 */
const DEFAULT_CONCURRENCY = 64;

/**
 * A job written held for this process that its worker has no room for, whose lease ends within
 * this, waits for that end, when any worker claims it: handing it to the schedule at once costs a
 * script call per job, in the rush that filled the worker (`pay` is held 3 s by default).
 */
const LEFT_TO_LEASE_MS = 5_000;

/** The deposit check is pulled forward after a charge at most this often per process. */
const BALANCE_PULL_MIN_MS = 5_000;

export function createOrdersEngine(opts: OrdersEngineOptions): OrdersEngine {
  const now = opts.now ?? Date.now;
  const outgoing = new OutgoingQueue(opts.redis, opts.prefix, { pace: opts.pace, now });
  // Work this process just recorded: the dispatcher looks at once for a message, the worker when
  // a job falls due before it would have looked anyway.
  const onEffects = (effects: Effect[]) => {
    let soonest = Number.POSITIVE_INFINITY;
    for (const e of effects) {
      if ("message" in e) dispatcher.kick();
      else if ("cancel" in e) worker.forget(e.cancel);
      else if ("stands" in e) soonest = Math.min(soonest, e.at);
      else if (!e.runHere) soonest = Math.min(soonest, e.dueAt);
    }
    if (soonest < Number.POSITIVE_INFINITY) worker.kickFor(soonest);
  };
  // A job this process wrote to run at once (`pay` after a payment, a delivery hint's re-read)
  // runs here without a claim; when this worker cannot take it (full in a rush), it is left to its
  // lease when that ends soon (a `pay` held until its first poll), else made due for any worker.
  const onHeld = (held: HeldJob[]) => {
    for (const { member, lease } of held) {
      if (worker.adopt(member, lease)) continue;
      // `pay` runs wherever the schedule hands it: an answer in the chat does not wait for it.
      const job = decodeJob(member);
      if (job?.type === "step" || job?.type === "submit") ctx.payAnswers.release(job.orderId);
      if (lease - now() <= LEFT_TO_LEASE_MS) {
        worker.kickFor(lease);
        continue;
      }
      store.jobs
        .finish(member, lease, now())
        .then(() => worker.kickFor(now()))
        .catch((err) =>
          log.warn({ err, job: member }, "could not hand a job to the schedule; it runs when its lease ends"),
        );
    }
  };
  const jobLeaseMs = opts.leaseMs ?? JOB_LEASE_MS;
  const store = new OrderStore(opts.redis, opts.prefix, {
    now,
    outgoing,
    onEffects,
    replicaWait: opts.replicaWait,
    holdJobsMs: jobLeaseMs,
    onHeld,
    // An order's final message and card, written while nothing else waits, leave without a take.
    leaseTerms: () => dispatcher.leaseTerms(),
    onLeased: (taken, takenAt) => dispatcher.adopt(taken, takenAt),
    onSpendingError: (err) => log.warn({ err }, "deposit spending not written yet; tried again in a moment"),
  });
  const balanceEveryMs = opts.balanceCheckIntervalMs ?? 10 * 60_000;
  const log = opts.logger.child({ component: "orders" });
  const pollMs = pollMsOf(opts.config);
  const quoteTtlMs = opts.config.quoteTtlSeconds * 1000;
  const retention: RetentionSettings | undefined = opts.retention && {
    archive: new OrderArchive(opts.retention.dir),
    retentionMs: opts.retention.days * 24 * 3600_000,
    batch: opts.retention.batch ?? 1000,
    everyMs: opts.retention.everyMs ?? 3600_000,
    catchUpMs: 60_000,
  };
  const archived = retention && withArchive(store, retention.archive);

  // Referral bonuses are credited to the wallet: without one (or at 0 %) there are none.
  const referrals =
    opts.wallet && (opts.config.referralPercent ?? 0) > 0
      ? new Referrals(opts.redis, opts.prefix, now)
      : undefined;
  const prices = new PriceSettingsStore(opts.redis, opts.prefix, {
    priceMarkupPercent: opts.config.priceMarkupPercent,
    products: opts.config.products ?? PRODUCT_KINDS,
  });
  const promos = new PromoStore(opts.redis, opts.prefix);
  const ctx: EngineContext = {
    prices,
    promos,
    store,
    outgoing,
    reseller: opts.reseller,
    notifier: opts.notifier,
    gateways: opts.gateways ?? {},
    deposit: new DepositGuard(opts.redis, opts.prefix, now),
    wallet: opts.wallet,
    broadcasts: opts.broadcasts,
    log,
    config: opts.config,
    hooks: opts.hooks ?? {},
    // An answer in the chat that did not show the `pending` card after all: its update is queued.
    payAnswers: new PayAnswers((order) => {
      outgoing
        .enqueue({ kind: "card", chatId: order.customer.chatId, orderId: order.id })
        .then(() => dispatcher.kick())
        .catch((err) => log.warn({ err, orderId: order.id }, "could not queue a card update"));
    }),
    now,
    referrals,
    timing: () => ({ now: now(), quoteTtlMs, pollMs, referralBonus: referrals !== undefined }),
    kick: () => {
      worker.kick();
      dispatcher.kick();
    },
    // A rush of payments pulls the deposit check forward a few times, not once per order.
    balanceSoon: (after) => depositPull.soon(after),
  };

  const depositPull = new DepositPull({
    now,
    minMs: BALANCE_PULL_MIN_MS,
    check: (opts) => checkBalance(ctx, opts),
    log,
  });

  // Wallet top-ups share the job schedule (`tpoll`) and the outgoing queue (`topup` messages).
  const topups =
    opts.wallet &&
    new TopUps({
      redis: opts.redis,
      prefix: opts.prefix,
      wallet: opts.wallet,
      gateways: ctx.gateways,
      config: opts.config,
      log,
      now,
      schedule: (member, dueAt) => store.jobs.schedule(member, dueAt),
      enqueue: (message) => outgoing.enqueue(message),
      kick: () => ctx.kick(),
      announce: opts.notifier.topUpCredited?.bind(opts.notifier),
    });
  ctx.topups = topups;

  const dispatcher: OutgoingDispatcher = new OutgoingDispatcher({
    queue: outgoing,
    log,
    leaseMs: opts.messageLeaseMs ?? opts.leaseMs ?? MESSAGE_LEASE_MS,
    deliver: (member, signal) => deliverMessage(ctx, member, signal),
    unreachable: (err) => opts.notifier.unreachable?.(err) ?? false,
    refused: (err) => opts.notifier.refused?.(err) ?? false,
    ...(opts.unreachableHoldMs !== undefined ? { unreachableHoldMs: opts.unreachableHoldMs } : {}),
    onOutcome: (member, outcome) => ctx.hooks.onJob?.(jobTypeOf(member), outcome),
  });

  const hintSlots: HintSlots = { free: opts.concurrency ?? DEFAULT_CONCURRENCY, waiting: new Set() };
  let stopScheduling = () => {};
  const worker: JobWorker = new JobWorker({
    jobs: store.jobs,
    log,
    now,
    leaseMs: jobLeaseMs,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    idleDelayMs: opts.idleDelayMs ?? 2000,
    async run(member, held) {
      const job = decodeJob(member);
      if (!job) {
        log.error({ member }, "unknown job type");
        return undefined;
      }
      const result = await runJob(ctx, job, { balanceEveryMs, retention, held });
      if (result === TAKEN_OFF) return null;
      return result instanceof Retry ? result.at : undefined;
    },
    onOutcome: (member, outcome) => ctx.hooks.onJob?.(jobTypeOf(member), outcome),
  });

  return {
    store,
    topups,
    prices,
    promos,
    applyPromo: (orderId, userId, code) => applyPromo(ctx, orderId, userId, code),
    quote: (input) => quote(ctx, input),
    get: (id) => store.get(id),
    quoted: (id) => store.latest(id, (o) => o.state === "quoted"),
    setCardMessage: (orderId, messageId) => recordCardMessage(store, orderId, messageId),
    checkPayable: (orderId, expect) => checkPayable(ctx, orderId, expect),
    markPaid: (orderId, receipt, how) => markPaid(ctx, orderId, receipt, how),
    paymentAnswer: (orderId, maxMs) => ctx.payAnswers.wait(orderId, maxMs),
    confirm: (orderId, userId) => confirm(ctx, orderId, userId),
    startPayment: (input) => startProviderPayment(ctx, input),
    payFromWallet: (orderId, userId) => payFromWallet(ctx, orderId, userId),
    onPaymentHint: (rail, paymentId) => onPaymentHint(ctx, rail, paymentId),
    cancel: (orderId, userId) => cancel(ctx, orderId, userId),
    listByChat: (chatId, offset, limit) => store.pageByChat(chatId, offset, limit),
    listAll: (filter, offset, limit) =>
      archived ? archived.listAll(filter, offset, limit) : store.pageByFilter(filter, offset, limit),
    recheck: (orderId) => recheck(ctx, orderId),
    async resendFinal(orderId) {
      const res = await store.update(orderId, (o) =>
        NOTIFIED_STATES.includes(o.state)
          ? {
              next: { ...o, finalNotifiedAt: undefined },
              jobs: [finalMessage(o)],
            }
          : null,
      );
      return res.won;
    },
    async markRefunded(orderId) {
      // The card in the customer's chat says the shop will refund them: it now says it did.
      const res = await store.update(orderId, (o) =>
        o.refund === "needed"
          ? { next: { ...o, refund: "done" }, jobs: o.cardMessageId !== undefined ? [cardUpdate(o)] : [] }
          : null,
      );
      return res.won;
    },
    findIdsByPrefix: (prefix, max) => store.idsByPrefix(prefix, max),
    createdBetween: (from, to) =>
      archived ? archived.createdBetween(from, to) : store.createdBetween(from, to),
    streamCreatedBetween: (from, to) => ordersCreatedBetween(store, retention?.archive, from, to),
    recentSpending: () => recentSpending(store.spending, now()),
    findArchived: retention ? (prefix, max) => retention.archive.find(prefix, max) : undefined,
    start() {
      if (worker.isRunning) return;
      // Tried until done however long Redis is away: the migrations, and the periodic jobs'
      // scheduling (they run again only from their own runs).
      const scheduling = [
        ...migrateAtStart(opts.redis, store, log),
        retryUntilDone(() => store.jobs.scheduleOnce(encodeJob({ type: "balance" }), now()), log, {
          failed: "could not schedule the balance check; trying again",
          done: "balance check scheduled",
        }),
      ];
      if (retention) {
        scheduling.push(
          retryUntilDone(() => store.jobs.scheduleOnce(encodeJob({ type: "archive" }), now()), log, {
            failed: "could not schedule the archive sweep; trying again",
            done: "archive sweep scheduled",
          }),
        );
      }
      stopScheduling = () => {
        for (const stop of scheduling) stop();
      };
      prices.listen(log);
      worker.start();
      dispatcher.start();
      depositPull.start();
      log.info("orders engine started");
    },
    async stop(timeoutMs = 10_000) {
      if (!worker.isRunning) return;
      stopScheduling();
      await Promise.all([
        worker.stop(timeoutMs),
        dispatcher.stop(timeoutMs),
        depositPull.stop(),
        prices.stop(),
      ]);
      await store.spending.flush();
      log.info("orders engine stopped");
    },
    onDeliveryHint: (orderId) => onDeliveryHint(ctx, orderId, hintSlots),
    applyResellerOrder: (orderId, remote) => applyResellerOrder(ctx, orderId, remote),
    queueDepth: () => store.jobs.pending(),
    outgoingDepth: () => outgoing.depth(),
    kickOutgoing: () => dispatcher.kick(),
  };
}
