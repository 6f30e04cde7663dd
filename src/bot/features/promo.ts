import { type Composer, InlineKeyboard } from "grammy";
import { normalizeCode } from "../../promo/discount.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { formatOrderPrice, shortId } from "../format/card.js";
import { formatRub } from "../format/money.js";
import { CB } from "../keyboards/callbacks.js";
import { MAX_INPUT_CHARS } from "../validate.js";
import { answerQuietly, leaveFlows, localeOf, showCard, showView } from "./shared.js";

/** A promo code question waits this long for its answer. */
export const PROMO_INPUT_TTL_MS = 30 * 60 * 1000;

const UUID = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
const MATCH = { ask: new RegExp(`^${CB.promo}${UUID}$`), cancel: new RegExp(`^${CB.promo}x$`) };

/** Refusals after which asking again cannot help: the question ends. */
const FINAL_REFUSALS = new Set(["already", "payment_started", "not_quoted"]);

/**
 * "🎟 Promo code" on a quoted order's card: the customer types a code, the orders engine applies
 * it (orders/promo-checkout.ts) and the card is redrawn with the old price struck and the new one;
 * a code that does not apply gets its reason and the question again.
 */
export function promoFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  const cancelKb = (ctx: BotContext) => new InlineKeyboard().text(ctx.t("btn-cancel"), `${CB.promo}x`);

  // Another button (the menu, the wallet…) ends the question: the next text is not a code.
  c.on("callback_query:data", async (ctx, next) => {
    if (ctx.session.promoInput && !ctx.callbackQuery.data.startsWith(CB.promo))
      ctx.session.promoInput = undefined;
    await next();
  });

  c.callbackQuery(MATCH.ask, async (ctx) => {
    const orderId = ctx.match[1] ?? "";
    const order = await ctx.deps.orders.get(orderId);
    if (!ctx.deps.orders.applyPromo || !order || order.customer.userId !== ctx.from.id) {
      await answerQuietly(ctx);
      return;
    }
    if (order.state !== "quoted") {
      await answerQuietly(ctx, ctx.t("promo-refused-not_quoted"), true);
      return;
    }
    await leaveFlows(ctx);
    ctx.session.promoInput = { orderId, at: Date.now() };
    await answerQuietly(ctx);
    await ctx.reply(ctx.t("promo-ask", { id: shortId(orderId) }), { reply_markup: cancelKb(ctx) });
  });

  c.callbackQuery(MATCH.cancel, async (ctx) => {
    ctx.session.promoInput = undefined;
    await answerQuietly(ctx);
    await showView(ctx, { text: ctx.t("promo-cancelled") }, true);
  });

  c.on("message:text", async (ctx, next) => {
    const input = ctx.session.promoInput;
    const apply = ctx.deps.orders.applyPromo;
    if (!input || !apply) return next();
    const text = ctx.message.text;
    if (text.startsWith("/") || Date.now() - input.at > PROMO_INPUT_TTL_MS) {
      ctx.session.promoInput = undefined;
      return next();
    }
    if (text.length > MAX_INPUT_CHARS || !normalizeCode(text)) {
      const rule =
        text.length > MAX_INPUT_CHARS
          ? ctx.t("rule-input-length", { max: MAX_INPUT_CHARS })
          : ctx.t("promo-refused-unknown");
      await ctx.reply(`${rule}\n${ctx.t("promo-try-again")}`, { reply_markup: cancelKb(ctx) });
      return;
    }
    const locale = await localeOf(ctx);
    const r = await apply(input.orderId, ctx.from.id, text);
    if (r.ok) {
      ctx.session.promoInput = undefined;
      const { order } = r;
      await showCard(ctx, order, order.cardMessageId);
      const promo = order.promo;
      await ctx.reply(
        ctx.t("promo-applied", {
          code: promo?.code ?? "",
          discount: formatRub(promo?.discountKopecks ?? 0, locale),
          price: formatOrderPrice(order, locale),
        }),
        { parse_mode: "HTML" },
      );
      return;
    }
    const reason = ctx.t(`promo-refused-${r.reason}`, { min: formatRub(r.minOrderKopecks ?? 0, locale) });
    if (FINAL_REFUSALS.has(r.reason)) {
      ctx.session.promoInput = undefined;
      await ctx.reply(reason, { parse_mode: "HTML" });
      return;
    }
    await ctx.reply(`${reason}\n${ctx.t("promo-try-again")}`, {
      parse_mode: "HTML",
      reply_markup: cancelKb(ctx),
    });
  });
  // A sticker, photo or voice note instead of the code: the rule and the question again.
  c.on("message", async (ctx, next) => {
    const input = ctx.session.promoInput;
    if (!input || !ctx.deps.orders.applyPromo || ctx.message.text !== undefined) return next();
    if (ctx.message.successful_payment || Date.now() - input.at > PROMO_INPUT_TTL_MS) return next();
    await ctx.reply(`${ctx.t("flow-send-text")}\n${ctx.t("promo-ask", { id: shortId(input.orderId) })}`, {
      reply_markup: cancelKb(ctx),
    });
  });

  return c;
}
