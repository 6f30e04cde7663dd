import { ResellerApiError, ResellerValidationError } from "../reseller/errors.js";
import { validateCreateOrderRequest } from "../reseller/requests.js";
import type { CreateOrderRequest, ResellerClient } from "../reseller/types.js";
import { noteDeposit, noteResellerError, pauseForDeposit } from "./alerts.js";
import { OpenQuotesLimitError, ProductUnavailableError, type QuoteInput } from "./api.js";
import { type EngineContext, transition } from "./context.js";
import { ProductPausedError } from "./deposit-guard.js";
import { jobsFor } from "./lifecycle.js";
import { itemRef, type PriceSettings, ruleFor } from "./price-settings.js";
import { priceKopecks as pricedBy, rubToKopecks, starsForPrice } from "./pricing.js";
import { currencyOfRail } from "./rails.js";
import type { Order, PaymentCurrency } from "./types.js";

/**
 * The quote, the first step of the customer's side of an order (checkout.ts has the rest): the
 * order is written as a draft under the customer's `custom_id` before the reseller's `create` is
 * called, so a retry, a double tap or a restart reuses it; `create` fixes the wholesale price and
 * the order becomes `quoted` with the customer's price.
 */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** What the customer pays in on the first rail of CHECKOUT (the card's first button). */
export function checkoutCurrency(checkout: EngineContext["config"]["checkout"]): PaymentCurrency {
  return currencyOfRail(checkout[0] ?? "stars");
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
  // As the quote read them, or now: the price an operator set a moment ago in any process is the one charged.
  const current = settings ?? (await ctx.prices.forQuote());
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

/** A draft younger than this keeps its expiry when quoted: its step (the expiry) and index entry stand. */
const DRAFT_EXPIRY_KEPT_MS = 5_000;

/**
 * When a quote made now from `draft` expires: QUOTE_TTL_SECONDS from now, or the draft's own
 * expiry when the draft was made moments ago (`create` answered at once), which saves moving its
 * step (the expiry) and its place in the chat's open quotes for a difference of milliseconds.
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
  await pauseForDeposit(ctx, kind, wholesaleKopecks, order.id);
  throw new ProductPausedError(kind);
}

export async function quote(ctx: EngineContext, input: QuoteInput): Promise<Order> {
  if (!UUID_V4.test(input.orderId)) throw new Error("orderId must be a UUID v4");
  // A paused product is refused before anything is written or asked of the reseller. The refusal
  // pulls the deposit check forward (at most one per window, whatever the number of customers):
  // a top-up since then brings the product back within seconds, not at the minute's check.
  if (!(await ctx.deposit.mayQuote(input.item.kind))) {
    ctx.balanceSoon("refusal");
    throw new ProductPausedError(input.item.kind);
  }
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
  const settings = await ctx.prices.forQuote();
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
