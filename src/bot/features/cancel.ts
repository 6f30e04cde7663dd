import type { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { showCard } from "./shared.js";

/** /cancel: leaves any flow and cancels the unpaid quote the customer was looking at. */
export function cancelFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.command("cancel", async (ctx) => {
    // The flow in progress was already left by the escape middleware (see index.ts).
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
