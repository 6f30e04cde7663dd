import type { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { showCard } from "./shared.js";

/** Updates whose /cancel ended a typed answer some screen waited for (see {@link cancelWaits}). */
const endedWaits = new WeakSet<BotContext>();

/**
 * Ends, at /cancel, every typed answer a screen waits for: a wallet amount, a promo code, an
 * operator's note, a /prices value, a broadcast being composed. Registered before the features
 * that forget their own on any command, so /cancel can tell that it ended one.
 */
export function cancelWaits(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.chatType("private").command("cancel", (ctx, next) => {
    const s = ctx.session;
    if (s.walletInput || s.promoInput || s.customerNote || s.pricesInput || s.broadcastDraft) {
      endedWaits.add(ctx);
      s.walletInput = undefined;
      s.promoInput = undefined;
      s.customerNote = undefined;
      s.pricesInput = undefined;
      s.broadcastDraft = undefined;
    }
    return next();
  });
  return c;
}

/**
 * /cancel: typed while a product's questions are on screen, it ends those (nothing was ordered
 * yet); otherwise it cancels the unpaid quote the customer was last shown.
 */
export function cancelFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.command("cancel", async (ctx) => {
    // The flow in progress was already left by the escape middleware (see index.ts); an earlier
    // quote further up the chat stays as it is.
    if (endedWaits.has(ctx)) {
      await ctx.reply(ctx.t("cancel-input-done"), { parse_mode: "HTML" });
      return;
    }
    if (ctx.flows?.left) {
      await ctx.reply(ctx.t("flow-cancelled"), { parse_mode: "HTML" });
      return;
    }
    const quoteId = ctx.session.lastQuoteId;
    ctx.session.lastQuoteId = undefined;
    if (quoteId && ctx.from) {
      const r = await ctx.deps.orders.cancel(quoteId, ctx.from.id);
      if (r.won && r.order) {
        await showCard(ctx, r.order, r.order.cardMessageId);
        await ctx.reply(ctx.t("cancel-quote-done"), { parse_mode: "HTML" });
        return;
      }
    }
    await ctx.reply(ctx.t("cancel-nothing"), { parse_mode: "HTML" });
  });
  return c;
}
