import { discountOn, normalizeCode, promoRefusal } from "../promo/discount.js";
import type { PromoRefusal } from "../promo/types.js";
import type { EngineContext } from "./context.js";
import { Retry } from "./job-retry.js";
import { isQuoteExpired } from "./lifecycle.js";
import { starsForPrice } from "./pricing.js";
import { payableUntil } from "./provider-checkout.js";
import type { Order } from "./types.js";

/**
 * A customer's promo code on a quoted order. The order is re-priced only while it is quoted and
 * before any provider payment page (YooKassa, Crypto Pay) was made for it: such a page has its
 * amount fixed at the provider, so a code typed afterwards is refused with the advice to cancel
 * and order again. A Telegram invoice already sent is harmless: its amount no longer matches the
 * order and the pre-checkout check refuses it, while the card's buttons send the new amount.
 *
 * The use is counted first (atomically, within the code's limits), then the order is re-priced
 * with a version check; when the order changed meanwhile (paid, cancelled, expired) the use is
 * given back at once. An order that expires or is cancelled unpaid gives its use back by a job
 * scheduled with that change (lifecycle.ts), once no provider page for it can still be paid; a
 * late payment of such an order counts it again.
 */
export type PromoApplied =
  | { ok: true; order: Order }
  | { ok: false; reason: PromoRefusal; order: Order | null; minOrderKopecks?: number };

function blocked(order: Order, userId: number, now: number): PromoRefusal | undefined {
  if (order.customer.userId !== userId) return "not_quoted";
  if (order.state !== "quoted" || isQuoteExpired(order, now) || order.priceKopecks === undefined)
    return "not_quoted";
  if (order.promo) return "already";
  if ((order.payments ?? []).length > 0 || order.paymentStart) return "payment_started";
  return undefined;
}

export async function applyPromo(
  ctx: EngineContext,
  orderId: string,
  userId: number,
  typed: string,
): Promise<PromoApplied> {
  const order = await ctx.store.get(orderId);
  if (!order) return { ok: false, reason: "not_quoted", order: null };
  const early = blocked(order, userId, ctx.now());
  if (early) return { ok: false, reason: early, order };
  const code = normalizeCode(typed);
  const promo = code ? await ctx.promos.get(code) : null;
  if (!code || !promo) return { ok: false, reason: "unknown", order };
  if (promo.disabled) return { ok: false, reason: "disabled", order };
  const price = order.priceKopecks ?? 0;
  const refusal = promoRefusal(promo, order.item.kind, price, ctx.now());
  if (refusal) return { ok: false, reason: refusal, order, minOrderKopecks: promo.minOrderKopecks };
  const d = discountOn(promo, price, order.wholesaleKopecks ?? price);
  if (d.discountKopecks <= 0) return { ok: false, reason: "no_discount", order };

  const held = await ctx.promos.reserve(code, orderId, userId);
  if (held === "other") return { ok: false, reason: "already", order };
  if (held !== "ok" && held !== "held") return { ok: false, reason: held, order };

  const stars = starsForPrice(d.priceKopecks, ctx.config.starPriceRub);
  const res = await ctx.store.update(orderId, (o) => {
    if (blocked(o, userId, ctx.now()) || o.priceKopecks !== price) return null;
    return {
      next: {
        ...o,
        priceKopecks: d.priceKopecks,
        starsAmount: ctx.config.checkout.includes("stars") ? stars : undefined,
        amount: o.currency === "XTR" ? stars : d.priceKopecks,
        promo: {
          code,
          discountKopecks: d.discountKopecks,
          originalPriceKopecks: price,
          clamped: d.clamped || undefined,
        },
      },
    };
  });
  if (!res.won || !res.order) {
    await ctx.promos.release(orderId);
    const now = res.order ?? (await ctx.store.get(orderId));
    return { ok: false, reason: (now && blocked(now, userId, ctx.now())) ?? "not_quoted", order: now };
  }
  ctx.log.info({ orderId, code, discountKopecks: d.discountKopecks }, "promo code applied");
  return { ok: true, order: res.order };
}

/**
 * The `prelease` job: an order that ended unpaid gives its code's use back. While a provider's
 * page for the discounted amount is still open the use stays held (a late payment of it would
 * otherwise count a use the code no longer has): the job comes back when the page can no longer be
 * paid, or sooner when the provider says it was cancelled (provider-checkout.ts).
 */
export async function releasePromo(ctx: EngineContext, order: Order): Promise<Retry | undefined> {
  if (order.state !== "expired" && order.state !== "cancelled") return;
  const until = payableUntil(order);
  if (until !== undefined && ctx.now() < until) return new Retry(until);
  if (await ctx.promos.release(order.id)) ctx.log.info({ orderId: order.id }, "promo code use given back");
}

/** The `pclaim` job: an order paid after it had expired or been cancelled counts its code's use again. */
export async function claimPromo(ctx: EngineContext, order: Order): Promise<void> {
  if (!order.promo) return;
  await ctx.promos.reserve(order.promo.code, order.id, order.customer.userId, true);
}
