import type { EngineContext } from "./context.js";
import { railOf } from "./rails.js";
import type { Order } from "./types.js";

/** The referrer's share of a paid price: whole kopecks, rounded down. */
export function referralBonusKopecks(priceKopecks: number, percent: number): number {
  if (!Number.isSafeInteger(priceKopecks) || priceKopecks <= 0 || percent <= 0) return 0;
  return Math.floor((priceKopecks * percent) / 100);
}

/** The wallet reference of the bonus for one order: one credit per order, whatever repeats. */
export function referralRef(orderId: string): string {
  return `referral:${orderId}`;
}

/**
 * The `referral` job, scheduled with an order's `delivered` transition (lifecycle.ts): when the
 * customer was referred, the referrer's wallet is credited REFERRAL_PERCENT of the price paid.
 * Safe to run again after a crash: the credit's ref is `referral:<orderId>` (the ledger applies a
 * ref once), the count per order is kept once (noteEarned) and the message is sent once (the
 * delivery records it). Orders not delivered, refunded, or not paid for (`direct`) earn nothing.
 */
export async function creditReferralBonus(ctx: EngineContext, order: Order): Promise<void> {
  const percent = ctx.config.referralPercent ?? 0;
  const { referrals, wallet } = ctx;
  if (!referrals || !wallet || percent <= 0) return;
  if (order.state !== "delivered" || order.refund !== "none" || railOf(order) === "direct") return;
  const referrerId = await referrals.referrerOf(order.customer.userId);
  if (referrerId === undefined || referrerId === order.customer.userId) return;
  const log = { orderId: order.id, referrerId };
  // An earlier run already credited it: the amount then stands (REFERRAL_PERCENT may have changed since).
  const earlier = await wallet.entryByRef(referrerId, referralRef(order.id));
  const amountKopecks = earlier?.amountKopecks ?? referralBonusKopecks(order.priceKopecks ?? 0, percent);
  if (amountKopecks <= 0) return;
  const res = await wallet.credit(referrerId, {
    amountKopecks,
    reason: "referral",
    ref: referralRef(order.id),
    orderId: order.id,
  });
  if (!res.ok) {
    // A balance at the ledger's ceiling: nothing was credited, and nothing will be by retrying.
    ctx.log.error({ ...log, refusal: res.refusal }, "referral bonus refused by the wallet");
    return;
  }
  await referrals.noteEarned(referrerId, order.id, res.entry.amountKopecks);
  if (res.applied) ctx.log.info({ ...log, amountKopecks }, "referral bonus credited");
  await ctx.outgoing.enqueue({ kind: "referral", chatId: referrerId, orderId: order.id });
  ctx.kick();
}

/** The referrer's "+₽X from your friend's order", when its turn in the outgoing queue comes; sent once. */
export async function tellReferrer(ctx: EngineContext, referrerId: number, orderId: string): Promise<void> {
  const { referrals, wallet } = ctx;
  if (!referrals || !wallet || (await referrals.wasTold(referrerId, orderId))) return;
  const entry = await wallet.entryByRef(referrerId, referralRef(orderId));
  if (!entry || !ctx.notifier.referralCredited) return;
  const balance = await wallet.balance(referrerId);
  await ctx.notifier.referralCredited(referrerId, entry.amountKopecks, balance);
  await referrals.markTold(referrerId, orderId);
}
