import { ResellerApiError, ResellerValidationError } from "../reseller/errors.js";
import { validateCreateOrderRequest } from "../reseller/requests.js";
import type { CreateOrderRequest, ResellerClient } from "../reseller/types.js";
import { noteDeposit, noteResellerError, sendAlert } from "./alerts.js";
import { type EngineContext, noteTransition, transition } from "./context.js";
import { ProductPausedError } from "./deposit-guard.js";
import { encodeJob } from "./jobs.js";
import { alertMessage, at, enter, isQuoteExpired, jobsFor, PAYABLE_STATES } from "./lifecycle.js";
import { itemRef, type PriceSettings, ruleFor } from "./price-settings.js";
import { priceKopecks as pricedBy, rubToKopecks, starsForPrice } from "./pricing.js";
import { currencyOfRail, railOf, refundRoute, refundsAutomatically } from "./rails.js";
import type { Effect } from "./store.js";
import {
  OpenQuotesLimitError,
  type Order,
  type OrderState,
  type PayCheck,
  type PaymentCurrency,
  type PaymentReceipt,
  ProductUnavailableError,
  type QuoteInput,
} from "./types.js";

/**
 * The customer's side of an order: quote (the reseller's `create`), the pre-checkout check,
 * the payment, direct-checkout confirmation and cancellation.
 */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** What the customer pays in on the first rail of CHECKOUT (the card's first button). */
export function checkoutCurrency(checkout: EngineContext["config"]["checkout"]): PaymentCurrency {
  return currencyOfRail(checkout[0] ?? "stars");
}

/** The order's price in a currency's smallest unit (Stars, kopecks); undefined before the quote. */
export function priceIn(order: Order, currency: "XTR" | "RUB"): number | undefined {
  if (currency === "RUB") return order.priceKopecks;
  return order.starsAmount ?? (order.currency === "XTR" ? order.amount : undefined);
}

function createRequest(ctx: EngineContext, order: Order): CreateOrderRequest {
  const { item } = order;
  const req: CreateOrderRequest = { custom_id: order.id, product: item.product };
  if (item.recipient !== undefined) req.recipient_username = item.recipient;
  if (item.quantity !== undefined) req.quantity = item.quantity;
  if (item.giftId !== undefined) req.gift_id = item.giftId;
  if (item.code !== undefined) req.code = item.code;
  if (item.productRef !== undefined) req.product_ref = item.productRef;
  if (item.fields !== undefined) req.fields = item.fields;
  if (ctx.config.resellerCallbackUrl) req.callback_url = ctx.config.resellerCallbackUrl;
  return req;
}

async function callCreate(
  ctx: EngineContext,
  order: Order,
  settings: PriceSettings | undefined,
  cardMessageId: number | undefined,
): Promise<Order> {
  const { config } = ctx;
  let created: Awaited<ReturnType<ResellerClient["createOrder"]>>;
  try {
    created = await ctx.reseller.createOrder(createRequest(ctx, order));
  } catch (err) {
    if (err instanceof ResellerApiError) await noteResellerError(ctx, err);
    if (err instanceof ResellerValidationError || (err instanceof ResellerApiError && !err.transient)) {
      await transition(ctx, order.id, ["draft"], "cancelled", () => ({
        errorMessage: err instanceof Error ? err.message : String(err),
      }));
    }
    throw err;
  }
  const wholesaleKopecks = rubToKopecks(created.totalToPayRub);
  if (!(await depositCovers(ctx, wholesaleKopecks))) await refuseForDeposit(ctx, order, wholesaleKopecks);
  // Read afresh (unless the quote just did): the price an operator set a moment ago in any process is the one charged.
  const current = settings ?? (await ctx.prices.current());
  const priceKopecks = pricedBy(wholesaleKopecks, ruleFor(current, order.item.kind, itemRef(order.item)));
  const starsAmount = starsForPrice(priceKopecks, config.starPriceRub);
  const amount = order.currency === "XTR" ? starsAmount : priceKopecks;
  const res = await transition(ctx, order.id, ["draft"], "quoted", () => ({
    wholesaleKopecks,
    priceKopecks,
    amount,
    starsAmount: config.checkout.includes("stars") ? starsAmount : undefined,
    resellerStatus: created.status,
    expiresAt: quoteExpiry(ctx, order),
    // Recorded with the price, not before: a quote refused from `draft` leaves the flow's message alone.
    ...(cardMessageId !== undefined ? { cardMessageId } : {}),
  }));
  const result = res.order ?? (await ctx.store.get(order.id));
  if (!result) throw new Error(`order ${order.id} vanished`);
  return result;
}

/** A draft younger than this keeps its expiry when quoted: its expire job and index entry stand. */
const DRAFT_EXPIRY_KEPT_MS = 5_000;

/**
 * When a quote made now from `draft` expires: QUOTE_TTL_SECONDS from now, or the draft's own
 * expiry when the draft was made moments ago (`create` answered at once), which saves moving its
 * expire job and its place in the chat's open quotes for a difference of milliseconds.
 */
function quoteExpiry(ctx: EngineContext, draft: Order): number {
  const now = ctx.now();
  const fresh = now + ctx.config.quoteTtlSeconds * 1000;
  const kept = draft.expiresAt;
  return kept !== undefined && now - draft.createdAt <= DRAFT_EXPIRY_KEPT_MS && kept <= fresh ? kept : fresh;
}

/**
 * Whether the deposit covers a wholesale price: the last deposit read says so, or, when it says
 * not, the deposit read afresh (it may have been topped up since). An unreadable deposit is taken
 * to cover it: `pay` decides then.
 */
async function depositCovers(ctx: EngineContext, wholesaleKopecks: number): Promise<boolean> {
  if (await ctx.deposit.covers(wholesaleKopecks)) return true;
  const fresh = await ctx.reseller.balance().catch(() => null);
  if (!fresh) return true;
  await noteDeposit(ctx, fresh.balanceRub);
  return rubToKopecks(fresh.balanceRub) >= wholesaleKopecks;
}

/**
 * The deposit cannot pay this price: the quote is cancelled before the customer can pay, the
 * product paused (the operators told once), and the deposit looked at again soon.
 */
async function refuseForDeposit(ctx: EngineContext, order: Order, wholesaleKopecks: number): Promise<never> {
  const kind = order.item.kind;
  await transition(ctx, order.id, ["draft"], "cancelled", () => ({
    wholesaleKopecks,
    errorMessage: "the reseller deposit cannot cover this price",
  }));
  if (await ctx.deposit.pause(kind, wholesaleKopecks)) {
    const { depositKopecks } = await ctx.deposit.state();
    ctx.log.warn({ kind, wholesaleKopecks, depositKopecks }, "product paused: the deposit cannot cover it");
    await sendAlert(ctx, {
      kind: "product_paused",
      orderId: order.id,
      details: {
        product: kind,
        neededRub: wholesaleKopecks / 100,
        balanceRub: depositKopecks === undefined ? null : depositKopecks / 100,
      },
    }).catch((err) => ctx.log.error({ err, kind }, "product paused alert failed"));
  }
  await ctx.balanceSoon();
  throw new ProductPausedError(kind);
}

export async function quote(ctx: EngineContext, input: QuoteInput): Promise<Order> {
  if (!UUID_V4.test(input.orderId)) throw new Error("orderId must be a UUID v4");
  // A paused product is refused before anything is written or asked of the reseller.
  if (!(await ctx.deposit.mayQuote(input.item.kind))) throw new ProductPausedError(input.item.kind);
  const t = ctx.now();
  const order: Order = {
    id: input.orderId,
    state: "draft",
    item: input.item,
    customer: input.customer,
    currency: checkoutCurrency(ctx.config.checkout),
    refund: "none",
    stuck: false,
    createdAt: t,
    updatedAt: t,
    expiresAt: t + ctx.config.quoteTtlSeconds * 1000,
    times: { draft: t },
  };
  // Checked before anything is written or sent: a bad request changes nothing.
  validateCreateOrderRequest(createRequest(ctx, order));
  const settings = await ctx.prices.current();
  if (!settings.enabled[order.item.kind]) throw new ProductUnavailableError(order.item.kind);
  const jobs = jobsFor(order, null, ctx.timing());
  const max = ctx.config.maxOpenQuotes;
  const created =
    max === undefined
      ? (await ctx.store.create(order, jobs))
        ? "created"
        : "exists"
      : await ctx.store.createQuote(order, jobs, max);
  if (created === "limit") {
    // Refused before `create`: the customer pays or cancels one of these first.
    throw new OpenQuotesLimitError(max ?? 0, await ctx.store.openQuotes(order.customer.chatId));
  }
  if (created === "created") return callCreate(ctx, order, settings, input.cardMessageId);
  // The id is known already (a repeated tap, a retry after a crash): go on from where it is.
  const existing = await ctx.store.get(input.orderId);
  if (!existing) throw new Error(`order ${input.orderId} could not be created`);
  return existing.state === "draft" ? callCreate(ctx, existing, undefined, input.cardMessageId) : existing;
}

export async function checkPayable(
  ctx: EngineContext,
  orderId: string,
  expect: { userId: number; currency: "XTR" | "RUB"; totalAmount: number },
): Promise<PayCheck> {
  const order = await ctx.store.get(orderId);
  if (!order) return { ok: false, reason: "not_found" };
  if (order.customer.userId !== expect.userId) return { ok: false, reason: "wrong_user", order };
  if (isQuoteExpired(order, ctx.now())) return { ok: false, reason: "expired", order };
  if (order.state !== "quoted") return { ok: false, reason: "not_quoted", order };
  if (priceIn(order, expect.currency) !== expect.totalAmount) {
    return { ok: false, reason: "wrong_amount", order };
  }
  return { ok: true, order };
}

type PaidOutcome = "paid" | "duplicate" | "refunded_extra";

/**
 * Records a customer's payment. The first payment of an order makes it `paid` (and queues
 * `pay`); the same payment seen again changes nothing; another payment for an order already
 * paid is kept as an extra charge and goes back to the customer (Stars) or to the operators.
 */
export async function markPaid(
  ctx: EngineContext,
  orderId: string,
  receipt: PaymentReceipt,
  how: { answered?: boolean } = {},
): Promise<{ outcome: PaidOutcome; order: Order | null }> {
  // Opened before the write: `pay` starts with it and may be done before this returns.
  if (how.answered) ctx.payAnswers.open(orderId);
  try {
    const res = await recordPayment(ctx, orderId, receipt);
    if (how.answered && res.outcome !== "paid") ctx.payAnswers.close(orderId);
    return res;
  } catch (err) {
    if (how.answered) ctx.payAnswers.close(orderId);
    throw err;
  }
}

async function recordPayment(
  ctx: EngineContext,
  orderId: string,
  receipt: PaymentReceipt,
): Promise<{ outcome: PaidOutcome; order: Order | null }> {
  const t = ctx.now();
  let outcome = "duplicate" as PaidOutcome;
  let prevState: OrderState | null = null;
  const rail = railOf({ rail: receipt.rail, currency: receipt.currency });
  // Rails the bot cannot refund itself credit the wallet instead, when the shop offers one.
  const refundToWallet =
    (rail === "invoice" || rail === "cryptopay") && ctx.config.checkout.includes("wallet") ? true : undefined;
  const res = await ctx.store.update(orderId, (order) => {
    const known =
      order.telegramChargeId === receipt.telegramChargeId ||
      (order.extraCharges ?? []).some((c) => c.telegramChargeId === receipt.telegramChargeId);
    if (known) {
      outcome = "duplicate";
      return null;
    }
    const payments = settlePayment(order.payments, rail, receipt.providerChargeId);
    if (PAYABLE_STATES.includes(order.state) && !order.telegramChargeId) {
      outcome = "paid";
      prevState = order.state;
      const next = enter(
        {
          ...order,
          currency: receipt.currency,
          amount: receipt.totalAmount,
          rail,
          refundToWallet,
          telegramChargeId: receipt.telegramChargeId,
          providerChargeId: receipt.providerChargeId,
          payments,
          paymentStart: undefined,
        },
        "paid",
        t,
      );
      const jobs = jobsFor(next, order.state, ctx.timing());
      if (rail === "wallet") jobs.push({ cancel: encodeJob({ type: "wsettle", orderId: order.id }) });
      return { next, jobs };
    }
    // The order was paid already: this second payment goes back to the customer.
    outcome = "refunded_extra";
    const extra = {
      telegramChargeId: receipt.telegramChargeId,
      providerChargeId: receipt.providerChargeId,
      currency: receipt.currency,
      amount: receipt.totalAmount,
      refund: "needed" as const,
      rail,
      refundToWallet,
    };
    const next: Order = { ...order, payments, extraCharges: [...(order.extraCharges ?? []), extra] };
    const jobs: Effect[] = [
      refundsAutomatically(refundRoute(extra))
        ? at({ type: "xrefund", orderId: order.id, chargeId: receipt.telegramChargeId }, t)
        : alertMessage("duplicate_payment", order),
    ];
    if (rail === "wallet") jobs.push({ cancel: encodeJob({ type: "wsettle", orderId: order.id }) });
    return { next, jobs };
  });
  if (!res.order) {
    // A payment for an order we do not have: give Stars back at once and tell the operators.
    ctx.log.error({ orderId, currency: receipt.currency }, "payment received for an unknown order");
    if (receipt.currency === "XTR") {
      await ctx.notifier.refundStars(receipt.userId, receipt.telegramChargeId).catch((err) => {
        ctx.log.error({ err, orderId }, "refund of a payment for an unknown order failed");
      });
    }
    await sendAlert(ctx, { kind: "duplicate_payment", orderId, details: { reason: "unknown order" } });
    return { outcome: "refunded_extra", order: null };
  }
  // The write's jobs wake this process's worker (store.ts onEffects): no kick needed here.
  if (res.won && outcome === "paid") noteTransition(ctx, res.order, prevState);
  return { outcome, order: res.order };
}

/** The order's provider payments with the one just paid marked settled. */
function settlePayment(
  payments: Order["payments"],
  rail: string,
  providerId: string | undefined,
): Order["payments"] {
  if (!payments || providerId === undefined) return payments;
  return payments.map((p) =>
    p.rail === rail && p.id === providerId ? { ...p, settled: "paid" as const } : p,
  );
}

class NotAllowed extends Error {}

/** CHECKOUT=direct: the customer's Confirm takes the place of a payment. */
export async function confirm(
  ctx: EngineContext,
  orderId: string,
  userId: number,
): Promise<{ won: boolean; order: Order | null }> {
  const t = ctx.now();
  const res = await transition(ctx, orderId, ["quoted"], "paid", (order) => {
    if (order.customer.userId !== userId || isQuoteExpired(order, t)) throw new NotAllowed();
    return {};
  }).catch((err) => {
    if (err instanceof NotAllowed) return { won: false, order: null };
    throw err;
  });
  if (!res.order) return { won: false, order: await ctx.store.get(orderId) };
  return res;
}

export async function cancel(
  ctx: EngineContext,
  orderId: string,
  userId: number,
): Promise<{ won: boolean; order: Order | null }> {
  const order = await ctx.store.get(orderId);
  if (!order || order.customer.userId !== userId) return { won: false, order };
  const res = await transition(ctx, orderId, ["draft", "quoted"], "cancelled");
  return res.order ? res : { won: false, order };
}
