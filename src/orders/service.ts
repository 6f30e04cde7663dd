import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { ResellerApiError, ResellerValidationError } from "../reseller/errors.js";
import { validateCreateOrderRequest } from "../reseller/requests.js";
import type { CreateOrderRequest, ResellerClient, ResellerOrder } from "../reseller/types.js";
import { customerPriceKopecks, rubToKopecks, starsForPrice } from "./pricing.js";
import { type JobSpec, OrderStore } from "./store.js";
import {
  type AlertKind,
  FINAL_STATES,
  type Notifier,
  type Order,
  type OrderFilter,
  type OrderState,
  type OrdersApi,
  type Page,
  type PayCheck,
  type PaymentCurrency,
  type PaymentReceipt,
  type QuoteInput,
} from "./types.js";

export type EngineConfig = Pick<
  Config,
  | "checkout"
  | "priceMarkupPercent"
  | "starPriceRub"
  | "quoteTtlSeconds"
  | "pollIntervalSeconds"
  | "trackingTimeoutHours"
  | "lowBalanceRub"
  | "resellerCallbackUrl"
>;

export interface EngineHooks {
  /** Called after every state change this process made. */
  onTransition?(order: Order, from: OrderState | null): void;
  onJob?(type: string, outcome: "done" | "retry" | "error"): void;
}

export interface OrdersServiceOptions {
  redis: Redis;
  prefix: string;
  reseller: ResellerClient;
  notifier: Notifier;
  logger: Logger;
  config: EngineConfig;
  /** How long a claimed job is reserved for one worker before another may take it (crash recovery). */
  leaseMs?: number;
  /** Jobs handled at once by this process. */
  concurrency?: number;
  /** Pause between empty polls of the job schedule. */
  idleDelayMs?: number;
  /** Deposit check period (also checked after every pay). */
  balanceCheckIntervalMs?: number;
  hooks?: EngineHooks;
  now?: () => number;
}

export interface OrdersService extends OrdersApi {
  readonly store: OrderStore;
  /** Starts this process's workers: resumes everything in flight (paid → pay, pending → poll, unsent notifications). */
  start(): void;
  /** Stops taking jobs, lets running ones finish within `timeoutMs`, hands unfinished ones back. */
  stop(timeoutMs?: number): Promise<void>;
  /** A delivery webhook's hint: re-read the order from the reseller soon. False when the order is unknown or not awaiting delivery. */
  onDeliveryHint(orderId: string): Promise<boolean>;
  /** Applies what the reseller says about an order (the source of truth). */
  applyResellerOrder(orderId: string, remote: ResellerOrder): Promise<Order | null>;
  /** Jobs waiting or running, for metrics. */
  queueDepth(): Promise<number>;
}

const MAX_POLL_MS = 60_000;
const ALERT_WINDOWS_S: Partial<Record<AlertKind, number>> = { low_balance: 3600, reseller_auth: 600 };

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function createOrdersService(opts: OrdersServiceOptions): OrdersService {
  const { redis, reseller, notifier, logger, config } = opts;
  const store = new OrderStore(redis, opts.prefix);
  const now = opts.now ?? Date.now;
  const leaseMs = opts.leaseMs ?? 60_000;
  const concurrency = opts.concurrency ?? 16;
  const idleDelayMs = opts.idleDelayMs ?? 100;
  const balanceEveryMs = opts.balanceCheckIntervalMs ?? 10 * 60_000;
  const pollMs = Math.max(50, config.pollIntervalSeconds * 1000);
  const trackingTimeoutMs = config.trackingTimeoutHours * 3600_000;
  const hooks = opts.hooks ?? {};
  const log = logger.child({ component: "orders" });

  const currency: PaymentCurrency =
    config.checkout === "stars" ? "XTR" : config.checkout === "invoice" ? "RUB" : "NONE";

  // ---------- transitions ----------

  /** The jobs a state change brings with it, recorded atomically with it. */
  function jobsFor(order: Order, from: OrderState | null): JobSpec[] {
    const t = now();
    const jobs: JobSpec[] = [];
    const id = order.id;
    const cardChanged = from !== null && from !== order.state && order.cardMessageId !== undefined;
    switch (order.state) {
      case "draft":
        jobs.push({ member: `expire:${id}`, dueAt: order.expiresAt ?? t + config.quoteTtlSeconds * 1000 });
        break;
      case "quoted":
        jobs.push({ member: `expire:${id}`, dueAt: order.expiresAt ?? t });
        break;
      case "paid":
        jobs.push({ member: `submit:${id}`, dueAt: t });
        break;
      case "pending":
        jobs.push({ member: `track:${id}`, dueAt: t + pollMs });
        break;
      case "delivered":
        jobs.push({ member: `final:${id}`, dueAt: t });
        break;
      case "failed":
      case "rejected": {
        jobs.push({
          member: `alert:${order.state === "failed" ? "delivery_failed" : "pay_rejected"}:${id}`,
          dueAt: t,
        });
        // Stars are refunded first so the final message can say so; otherwise it goes at once.
        if (order.refund === "none" && order.currency === "XTR" && order.telegramChargeId) {
          jobs.push({ member: `refund:${id}`, dueAt: t });
        } else {
          jobs.push({ member: `final:${id}`, dueAt: t });
        }
        if (order.refund === "needed") jobs.push({ member: `alert:refund_needed:${id}`, dueAt: t });
        break;
      }
      default:
        break;
    }
    if (cardChanged || (order.state !== from && ["paid", "pending"].includes(order.state))) {
      jobs.push({ member: `card:${id}`, dueAt: t });
    }
    return jobs;
  }

  /** Moves an order from one of `from` to `to`, applying `patch`; exactly one concurrent caller wins. */
  async function transition(
    id: string,
    from: readonly OrderState[],
    to: OrderState,
    patch: (order: Order) => Partial<Order> = () => ({}),
  ): Promise<{ won: boolean; order: Order | null }> {
    let prevState: OrderState | null = null;
    const res = await store.update(id, (order) => {
      if (!from.includes(order.state)) return null;
      prevState = order.state;
      const t = now();
      const next: Order = { ...order, ...patch(order), state: to, times: { ...order.times, [to]: t } };
      if ((to === "failed" || to === "rejected") && next.refund === "none" && next.currency === "RUB") {
        next.refund = "needed";
      }
      return { next, jobs: jobsFor(next, order.state) };
    });
    if (res.won && res.order) {
      log.info({ orderId: id, from: prevState, to }, "order state changed");
      hooks.onTransition?.(res.order, prevState);
    }
    return res;
  }

  // ---------- customer-facing operations ----------

  function createRequest(order: Order): CreateOrderRequest {
    const { item } = order;
    const req: CreateOrderRequest = { custom_id: order.id, product: item.product };
    if (item.recipient !== undefined) req.recipient_username = item.recipient;
    if (item.quantity !== undefined) req.quantity = item.quantity;
    if (item.giftId !== undefined) req.gift_id = item.giftId;
    if (item.code !== undefined) req.code = item.code;
    if (item.productRef !== undefined) req.product_ref = item.productRef;
    if (item.fields !== undefined) req.fields = item.fields;
    if (config.resellerCallbackUrl) req.callback_url = config.resellerCallbackUrl;
    return req;
  }

  async function callCreate(order: Order): Promise<Order> {
    let created: Awaited<ReturnType<ResellerClient["createOrder"]>>;
    try {
      created = await reseller.createOrder(createRequest(order));
    } catch (err) {
      if (err instanceof ResellerApiError) await noteResellerError(err);
      if (err instanceof ResellerValidationError || (err instanceof ResellerApiError && !err.transient)) {
        await transition(order.id, ["draft"], "cancelled", () => ({
          errorMessage: err instanceof Error ? err.message : String(err),
        }));
      }
      throw err;
    }
    const wholesaleKopecks = rubToKopecks(created.totalToPayRub);
    const priceKopecks = customerPriceKopecks(wholesaleKopecks, config.priceMarkupPercent);
    const amount = order.currency === "XTR" ? starsForPrice(priceKopecks, config.starPriceRub) : priceKopecks;
    const res = await transition(order.id, ["draft"], "quoted", () => ({
      wholesaleKopecks,
      priceKopecks,
      amount,
      resellerStatus: created.status,
      expiresAt: now() + config.quoteTtlSeconds * 1000,
    }));
    const result = res.order ?? (await store.get(order.id));
    if (!result) throw new Error(`order ${order.id} vanished`);
    return result;
  }

  async function quote(input: QuoteInput): Promise<Order> {
    if (!UUID_V4.test(input.orderId)) throw new Error("orderId must be a UUID v4");
    const existing = await store.get(input.orderId);
    if (existing) {
      return existing.state === "draft" ? callCreate(existing) : existing;
    }
    const t = now();
    const order: Order = {
      id: input.orderId,
      state: "draft",
      item: input.item,
      customer: input.customer,
      currency,
      refund: "none",
      stuck: false,
      createdAt: t,
      updatedAt: t,
      expiresAt: t + config.quoteTtlSeconds * 1000,
      times: { draft: t },
    };
    // Checked before anything is written or sent: a bad request changes nothing.
    validateCreateOrderRequest(createRequest(order));
    if (!(await store.create(order, jobsFor(order, null)))) {
      return quote(input); // a concurrent call created it first
    }
    return callCreate(order);
  }

  async function checkPayable(
    orderId: string,
    expect: { userId: number; currency: "XTR" | "RUB"; totalAmount: number },
  ): Promise<PayCheck> {
    const order = await store.get(orderId);
    if (!order) return { ok: false, reason: "not_found" };
    if (order.customer.userId !== expect.userId) return { ok: false, reason: "wrong_user", order };
    if (order.state === "expired" || (order.state === "quoted" && (order.expiresAt ?? 0) <= now())) {
      return { ok: false, reason: "expired", order };
    }
    if (order.state !== "quoted") return { ok: false, reason: "not_quoted", order };
    if (order.currency !== expect.currency || order.amount !== expect.totalAmount) {
      return { ok: false, reason: "wrong_amount", order };
    }
    return { ok: true, order };
  }

  async function markPaid(
    orderId: string,
    receipt: PaymentReceipt,
  ): Promise<{ outcome: "paid" | "duplicate" | "refunded_extra"; order: Order | null }> {
    const t = now();
    let outcome = "duplicate" as "paid" | "duplicate" | "refunded_extra";
    let prevState: OrderState | null = null;
    const res = await store.update(orderId, (order) => {
      const known =
        order.telegramChargeId === receipt.telegramChargeId ||
        (order.extraCharges ?? []).some((c) => c.telegramChargeId === receipt.telegramChargeId);
      if (known) {
        outcome = "duplicate";
        return null;
      }
      // A real payment always counts, even for a quote that expired or was cancelled meanwhile.
      if (["draft", "quoted", "expired", "cancelled"].includes(order.state) && !order.telegramChargeId) {
        outcome = "paid";
        prevState = order.state;
        const next: Order = {
          ...order,
          state: "paid",
          currency: receipt.currency,
          amount: receipt.totalAmount,
          telegramChargeId: receipt.telegramChargeId,
          providerChargeId: receipt.providerChargeId,
          times: { ...order.times, paid: t },
        };
        return { next, jobs: jobsFor(next, order.state) };
      }
      // The order was paid already: this second payment goes back to the customer.
      outcome = "refunded_extra";
      const extra = {
        telegramChargeId: receipt.telegramChargeId,
        providerChargeId: receipt.providerChargeId,
        currency: receipt.currency,
        amount: receipt.totalAmount,
        refund: "needed" as const,
      };
      const next: Order = { ...order, extraCharges: [...(order.extraCharges ?? []), extra] };
      const jobs: JobSpec[] =
        receipt.currency === "XTR"
          ? [{ member: `xrefund:${order.id}:${receipt.telegramChargeId}`, dueAt: t }]
          : [{ member: `alert:duplicate_payment:${order.id}`, dueAt: t }];
      return { next, jobs };
    });
    if (!res.order) {
      // A payment for an order we do not have: give Stars back at once and tell the operators.
      log.error({ orderId, currency: receipt.currency }, "payment received for an unknown order");
      if (receipt.currency === "XTR") {
        await notifier.refundStars(receipt.userId, receipt.telegramChargeId).catch((err) => {
          log.error({ err, orderId }, "refund of a payment for an unknown order failed");
        });
      }
      await sendAlert({ kind: "duplicate_payment", orderId, details: { reason: "unknown order" } });
      return { outcome: "refunded_extra", order: null };
    }
    if (res.won && outcome === "paid") {
      log.info({ orderId, from: prevState, to: "paid" }, "order state changed");
      hooks.onTransition?.(res.order, prevState);
      kickWorker();
    }
    return { outcome, order: res.order };
  }

  async function confirm(orderId: string, userId: number): Promise<{ won: boolean; order: Order | null }> {
    const t = now();
    const res = await transition(orderId, ["quoted"], "paid", (order) => {
      if (order.customer.userId !== userId || (order.expiresAt ?? 0) <= t) throw new NotAllowed();
      return {};
    }).catch((err) => {
      if (err instanceof NotAllowed) return { won: false, order: null };
      throw err;
    });
    if (!res.order) return { won: false, order: await store.get(orderId) };
    if (res.won) kickWorker();
    return res;
  }

  async function cancel(orderId: string, userId: number): Promise<{ won: boolean; order: Order | null }> {
    const order = await store.get(orderId);
    if (!order || order.customer.userId !== userId) return { won: false, order };
    const res = await transition(orderId, ["draft", "quoted"], "cancelled");
    return res.order ? res : { won: false, order };
  }

  // ---------- reseller status ----------

  async function applyResellerOrder(orderId: string, remote: ResellerOrder): Promise<Order | null> {
    if (remote.status === "delivered") {
      const res = await transition(orderId, ["paid", "pending"], "delivered", () => ({
        resellerStatus: remote.status,
        deliveredPayload: remote.deliveredPayload ?? {},
        stuck: false,
      }));
      return res.order;
    }
    if (remote.status === "failed") {
      const res = await transition(orderId, ["paid", "pending"], "failed", () => ({
        resellerStatus: remote.status,
        errorMessage: remote.errorMessage ?? undefined,
        stuck: false,
      }));
      return res.order;
    }
    const res = await store.update(orderId, (order) =>
      order.resellerStatus === remote.status || FINAL_STATES.includes(order.state)
        ? null
        : { next: { ...order, resellerStatus: remote.status } },
    );
    return res.order;
  }

  // ---------- alerts ----------

  async function sendAlert(alert: Parameters<Notifier["alert"]>[0], order?: Order): Promise<void> {
    const window = ALERT_WINDOWS_S[alert.kind];
    if (window) {
      const first = await redis.set(store.key("alert", alert.kind), String(now()), "EX", window, "NX");
      if (first !== "OK") return;
    }
    await notifier.alert(alert, order);
  }

  async function noteResellerError(err: ResellerApiError): Promise<void> {
    if (err.kind !== "auth") return;
    await sendAlert({
      kind: "reseller_auth",
      details: { endpoint: err.endpoint, status: err.status, message: err.message },
    }).catch((e) => log.error({ err: e }, "reseller auth alert failed"));
  }

  async function checkBalance(): Promise<void> {
    const balance = await reseller.balance();
    if (balance.balanceRub < config.lowBalanceRub) {
      await sendAlert({
        kind: "low_balance",
        details: { balanceRub: balance.balanceRub, thresholdRub: config.lowBalanceRub },
      });
    }
  }

  // ---------- jobs ----------

  class Retry {
    constructor(readonly at: number) {}
  }

  /** Backoff for a job that keeps waiting: a quarter of the time spent so far, between `min` and 60 s. */
  function backoff(since: number | undefined, min: number): Retry {
    const elapsed = now() - (since ?? now());
    return new Retry(now() + Math.min(MAX_POLL_MS, Math.max(min, elapsed / 4)));
  }

  async function flagStuckIfLate(order: Order): Promise<void> {
    const since = order.times.paid ?? order.createdAt;
    if (order.stuck || now() - since < trackingTimeoutMs) return;
    await store.update(order.id, (o) =>
      o.stuck || FINAL_STATES.includes(o.state)
        ? null
        : { next: { ...o, stuck: true }, jobs: [{ member: `alert:stuck:${o.id}`, dueAt: now() }] },
    );
  }

  async function runSubmit(order: Order): Promise<Retry | undefined> {
    if (order.state !== "paid") return;
    try {
      const paid = await reseller.payOrder(order.id);
      await transition(order.id, ["paid"], "pending", () => ({
        chargedKopecks: rubToKopecks(paid.priceChargedRub),
        resellerStatus: paid.status,
      }));
      await store.schedule("balance:check", now());
      return;
    } catch (err) {
      if (!(err instanceof ResellerApiError)) throw err;
      await noteResellerError(err);
      if (err.transient || err.kind === "auth") {
        log.warn(
          { orderId: order.id, kind: err.kind, status: err.status },
          "pay not accepted yet, will retry",
        );
        await flagStuckIfLate(order);
        return backoff(order.times.paid, 1000);
      }
      // A refusal may also mean "already paid" (a lost answer to an earlier pay): ask what happened.
      const remote = await reseller.getOrder(order.id).catch(() => null);
      if (remote && ["pending", "delivered", "failed"].includes(remote.status)) {
        await transition(order.id, ["paid"], "pending", () => ({ resellerStatus: remote.status }));
        await applyResellerOrder(order.id, remote);
        return;
      }
      let balanceRub: number | null = null;
      if (err.kind === "insufficient_funds") {
        balanceRub = await reseller
          .balance()
          .then((b) => b.balanceRub)
          .catch(() => null);
      }
      await transition(order.id, ["paid"], "rejected", () => ({
        errorMessage: err.message,
        resellerStatus: remote?.status,
        rejectReason: err.kind,
        rejectBalanceRub: balanceRub ?? undefined,
      }));
    }
  }

  async function runTrack(order: Order): Promise<Retry | undefined> {
    if (order.state !== "pending" && order.state !== "paid") return;
    try {
      const remote = await reseller.getOrder(order.id);
      const after = await applyResellerOrder(order.id, remote);
      if (after && FINAL_STATES.includes(after.state)) return;
    } catch (err) {
      if (!(err instanceof ResellerApiError)) throw err;
      await noteResellerError(err);
      log.warn({ orderId: order.id, kind: err.kind, status: err.status }, "order status read failed");
    }
    if (order.state === "paid") return; // the submit job drives paid orders; this was a hint
    await flagStuckIfLate(order);
    return backoff(order.times.pending, pollMs);
  }

  async function runExpire(order: Order): Promise<Retry | undefined> {
    if (order.state !== "quoted" && order.state !== "draft") return;
    if ((order.expiresAt ?? 0) > now()) return new Retry(order.expiresAt ?? now());
    await transition(order.id, ["quoted", "draft"], "expired");
  }

  async function runCard(order: Order): Promise<void> {
    const messageId = await notifier.updateCard(order);
    if (messageId !== undefined && messageId !== order.cardMessageId) {
      await store.update(order.id, (o) =>
        o.cardMessageId === messageId ? null : { next: { ...o, cardMessageId: messageId } },
      );
    }
  }

  async function runFinal(order: Order): Promise<void> {
    if (order.finalNotifiedAt || !["delivered", "failed", "rejected"].includes(order.state)) return;
    await notifier.sendFinal(order);
    await store.update(order.id, (o) =>
      o.finalNotifiedAt ? null : { next: { ...o, finalNotifiedAt: now() } },
    );
  }

  async function runRefund(order: Order): Promise<void> {
    if (order.refund !== "none" || !order.telegramChargeId) return;
    let refund: "done" | "needed" = "done";
    try {
      await notifier.refundStars(order.customer.userId, order.telegramChargeId);
    } catch (err) {
      if (!/ALREADY_REFUNDED/i.test(String(err))) {
        log.error({ err, orderId: order.id }, "Stars refund failed; operators will refund by hand");
        refund = "needed";
      }
    }
    await store.update(order.id, (o) => {
      if (o.refund !== "none") return null;
      const jobs: JobSpec[] = [{ member: `final:${o.id}`, dueAt: now() }];
      if (refund === "needed") jobs.push({ member: `alert:refund_needed:${o.id}`, dueAt: now() });
      return { next: { ...o, refund, times: { ...o.times } }, jobs };
    });
  }

  async function runExtraRefund(order: Order, chargeId: string): Promise<void> {
    const charge = order.extraCharges?.find((c) => c.telegramChargeId === chargeId);
    if (charge?.refund !== "needed") return;
    let refund: "done" | "needed" = "done";
    try {
      await notifier.refundStars(order.customer.userId, chargeId);
    } catch (err) {
      if (!/ALREADY_REFUNDED/i.test(String(err))) {
        log.error({ err, orderId: order.id }, "refund of a second payment failed");
        refund = "needed";
      }
    }
    await store.update(order.id, (o) => ({
      next: {
        ...o,
        extraCharges: (o.extraCharges ?? []).map((c) =>
          c.telegramChargeId === chargeId ? { ...c, refund } : c,
        ),
      },
      jobs: refund === "needed" ? [{ member: `alert:duplicate_payment:${o.id}`, dueAt: now() }] : [],
    }));
  }

  async function runAlert(kind: AlertKind, order: Order): Promise<void> {
    const details: Record<string, string | number | null> = {};
    if (order.errorMessage) details.reason = order.errorMessage;
    if (order.rejectReason) details.kind = order.rejectReason;
    if (order.rejectBalanceRub !== undefined) details.balanceRub = order.rejectBalanceRub;
    await sendAlert({ kind, orderId: order.id, details }, order);
  }

  async function runJob(member: string): Promise<Retry | undefined> {
    const [type, id, arg] = member.split(":") as [string, string | undefined, string | undefined];
    if (type === "balance") {
      await checkBalance().catch((err) => log.warn({ err }, "balance check failed"));
      return new Retry(now() + balanceEveryMs);
    }
    if (!id) return;
    const order = await store.get(type === "alert" ? (arg ?? "") : id);
    if (!order) return;
    switch (type) {
      case "submit":
        return runSubmit(order);
      case "track":
        return runTrack(order);
      case "expire":
        return runExpire(order);
      case "card":
        await runCard(order);
        return undefined;
      case "final":
        await runFinal(order);
        return undefined;
      case "refund":
        await runRefund(order);
        return undefined;
      case "xrefund":
        await runExtraRefund(order, arg ?? "");
        return undefined;
      case "alert":
        await runAlert(id as AlertKind, order);
        return undefined;
      default:
        log.error({ member }, "unknown job type");
        return undefined;
    }
  }

  // ---------- worker loop ----------

  let running = false;
  let wake: (() => void) | undefined;
  const inFlight = new Map<string, { held: { lease: number }; done: Promise<void> }>();
  let loopDone: Promise<void> = Promise.resolve();

  function kickWorker(): void {
    wake?.();
  }

  async function handle(member: string, held: { lease: number }): Promise<void> {
    const type = member.split(":")[0] ?? "";
    // A job can outlast its lease (a slow reseller, Telegram's limits): keep extending it while it
    // runs so no other worker starts it a second time. Only a dead process stops renewing.
    const renewal = setInterval(
      () => {
        const next = now() + leaseMs;
        store.renew(member, held.lease, next).then(
          (ok) => {
            if (ok) held.lease = next;
          },
          () => {},
        );
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    try {
      const result = await runJob(member);
      clearInterval(renewal);
      await store.finish(member, held.lease, result instanceof Retry ? result.at : undefined);
      hooks.onJob?.(type, result instanceof Retry ? "retry" : "done");
    } catch (err) {
      clearInterval(renewal);
      hooks.onJob?.(type, "error");
      log.error({ err, job: member }, "job failed; will retry");
      const retryAt = now() + Math.min(MAX_POLL_MS, 2000);
      await store.finish(member, held.lease, retryAt).catch(() => {});
    }
  }

  async function loop(): Promise<void> {
    let redisDown = false;
    while (running) {
      let claimed: { member: string; lease: number }[] = [];
      const free = concurrency - inFlight.size;
      if (free > 0) {
        try {
          claimed = await store.claim(now(), free, leaseMs);
          if (redisDown) log.info("job schedule reachable again");
          redisDown = false;
        } catch (err) {
          if (!redisDown) log.error({ err }, "cannot read the job schedule; retrying");
          redisDown = true;
        }
      }
      for (const { member, lease } of claimed) {
        if (inFlight.has(member)) {
          // Re-scheduled while it runs here (new work for the same job): run it again afterwards.
          await store.finish(member, lease, now() + idleDelayMs).catch(() => {});
          continue;
        }
        const held = { lease };
        const done = handle(member, held).finally(() => {
          inFlight.delete(member);
          kickWorker();
        });
        inFlight.set(member, { held, done });
      }
      if (claimed.length === 0 || inFlight.size >= concurrency) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, redisDown ? 1000 : idleDelayMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  }

  function start(): void {
    if (running) return;
    running = true;
    store.redis
      .zadd(store.jobsKey, "NX", now(), "balance:check")
      .catch((err) => log.warn({ err }, "could not schedule the balance check"));
    loopDone = loop();
    log.info("orders engine started");
  }

  async function stop(timeoutMs = 10_000): Promise<void> {
    if (!running) return;
    running = false;
    kickWorker();
    await loopDone;
    const pending = [...inFlight.values()].map((j) => j.done);
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, timeoutMs))]);
    // Whatever is still running is handed back now rather than after its lease runs out.
    await Promise.allSettled(
      [...inFlight.entries()].map(([member, { held }]) => store.finish(member, held.lease, now())),
    );
    log.info("orders engine stopped");
  }

  // ---------- reads and operator actions ----------

  return {
    store,
    quote,
    get: (id) => store.get(id),
    async setCardMessage(orderId, messageId) {
      await store.update(orderId, (o) =>
        o.cardMessageId === messageId ? null : { next: { ...o, cardMessageId: messageId } },
      );
    },
    checkPayable,
    markPaid,
    confirm,
    cancel,
    listByChat: (chatId, offset, limit): Promise<Page<Order>> =>
      store.page(store.chatIndex(chatId), offset, limit),
    listAll: (filter: OrderFilter, offset, limit) => store.page(store.filterIndex(filter), offset, limit),
    async recheck(orderId) {
      const order = await store.get(orderId);
      if (!order) return null;
      if (order.state !== "paid" && order.state !== "pending") return order;
      const remote = await reseller.getOrder(orderId);
      return (await applyResellerOrder(orderId, remote)) ?? (await store.get(orderId));
    },
    async resendFinal(orderId) {
      const res = await store.update(orderId, (o) =>
        ["delivered", "failed", "rejected"].includes(o.state)
          ? { next: { ...o, finalNotifiedAt: undefined }, jobs: [{ member: `final:${o.id}`, dueAt: now() }] }
          : null,
      );
      if (res.won) kickWorker();
      return res.won;
    },
    async markRefunded(orderId) {
      const res = await store.update(orderId, (o) =>
        o.refund === "needed" ? { next: { ...o, refund: "done" } } : null,
      );
      return res.won;
    },
    start,
    stop,
    async onDeliveryHint(orderId) {
      const kicked = await store.kick(orderId, `track:${orderId}`, ["paid", "pending"]);
      if (kicked) kickWorker();
      return kicked;
    },
    applyResellerOrder,
    queueDepth: () => store.pendingJobs(),
  };
}

class NotAllowed extends Error {}
