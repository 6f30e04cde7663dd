import type { I18n } from "@grammyjs/i18n";
import { type Composer, InlineKeyboard } from "grammy";
import type { Message } from "grammy/types";
import type { OrdersApi } from "../../orders/api.js";
import { cutText } from "../../util/text.js";
import { isTopUpPayload, type TopUp, type TopUpCheck } from "../../wallet/topup.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { formatRub } from "../format/money.js";
import { translator } from "../i18n.js";
import { decodeTopUp, TOP_UP_CALLBACK } from "../keyboards/callbacks.js";
import { answerQuietly, localeOf } from "./shared.js";

export { isTopUpPayload };

type Credited = { topup: TopUp; applied: boolean; balanceKopecks: number } | null;
/** What recordPayments credited for a payment message, for its handler (the same update object). */
const credited = new WeakMap<Message, Credited>();

/**
 * Credits the Telegram payment of a top-up (`successful_payment` with payload `topup:<id>`):
 * called by recordPayments before the batch is confirmed, and again (idempotent per charge id)
 * by the handler when it was not. Null when the payload names no top-up this shop knows.
 */
export async function creditTopUp(orders: OrdersApi, message: Message): Promise<Credited> {
  const known = credited.get(message);
  if (known !== undefined) return known;
  const p = message.successful_payment;
  if (!p || !message.from || !orders.topups) return null;
  const r = await orders.topups.creditTelegram(p.invoice_payload, {
    userId: message.from.id,
    currency: p.currency,
    chargeId: p.telegram_payment_charge_id,
  });
  credited.set(message, r);
  return r;
}

/**
 * Wallet top-ups: a tap on `tu:<rail>:<kopecks>` (the rail picker of /wallet) sends a Telegram
 * invoice (`stars`, `invoice`) or a link to the provider's page (`yookassa`, `cryptopay`);
 * pre-checkout and successful payments of `topup:` invoices. Installed before the order payments,
 * which never see a `topup:` payload.
 */
export function topUpsFeature(i18n: I18n<BotContext>): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();

  c.callbackQuery(TOP_UP_CALLBACK, async (ctx) => {
    const topups = ctx.deps.orders.topups;
    const tap = decodeTopUp(ctx.callbackQuery.data);
    const chatId = ctx.chat?.id;
    if (!topups || !tap || chatId === undefined || ctx.chat?.type !== "private") {
      return answerQuietly(ctx, ctx.t("button-outdated"), true);
    }
    const { config, logger } = ctx.deps;
    if (!config.checkout.includes(tap.rail)) return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
    const locale = await localeOf(ctx);
    const amount = formatRub(tap.amountKopecks, locale);
    const topup = await topups.open({ userId: ctx.from.id, chatId, locale, ...tap });
    const description = ctx.t("topup-invoice-description", { amount });
    if (tap.rail === "stars" || tap.rail === "invoice") {
      // A double tap sends one invoice; a tap later on sends the same top-up's invoice again.
      if (!(await topups.claimStart(topup.id))) return answerQuietly(ctx, ctx.t("pay-link-busy"));
      await answerQuietly(ctx);
      const title = ctx.t("topup-invoice-title").slice(0, 32);
      const price = topups.priceOf(topup);
      await ctx.api.sendInvoice(
        chatId,
        title,
        cutText(description, 255),
        `topup:${topup.id}`,
        price.currency,
        [{ label: title, amount: price.amount }],
        { provider_token: tap.rail === "stars" ? "" : (config.paymentProviderToken ?? "") },
      );
      return;
    }
    let r: Awaited<ReturnType<typeof topups.startPayment>>;
    try {
      r = await topups.startPayment(topup, description);
    } catch (err) {
      logger.warn({ err, topupId: topup.id, rail: tap.rail }, "top-up payment page could not be made");
      return answerQuietly(ctx, ctx.t("pay-link-failed"), true);
    }
    if (!r.ok) {
      if (r.reason === "busy") return answerQuietly(ctx, ctx.t("pay-link-busy"));
      return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
    }
    await answerQuietly(ctx);
    await ctx.reply(ctx.t(`topup-link-${tap.rail}`, { amount }), {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().url(ctx.t(`btn-open-${tap.rail}`, { price: amount }), r.url),
    });
  });

  c.on("pre_checkout_query", async (ctx, next) => {
    const q = ctx.preCheckoutQuery;
    if (!isTopUpPayload(q.invoice_payload)) return next();
    const topups = ctx.deps.orders.topups;
    const check: TopUpCheck = topups
      ? await topups.checkPayable(q.invoice_payload, {
          userId: q.from.id,
          currency: q.currency,
          totalAmount: q.total_amount,
        })
      : ({ ok: false, reason: "not_found" } satisfies TopUpCheck);
    if (check.ok) {
      await ctx.answerPreCheckoutQuery(true);
      return;
    }
    const fallback = q.from.language_code?.startsWith("en") ? "en" : ctx.deps.config.defaultLocale;
    const t = translator(i18n, check.topup?.locale ?? fallback);
    await ctx.answerPreCheckoutQuery(false, { error_message: t(`precheckout-topup-${check.reason}`) });
    ctx.logger.info(
      { payload: q.invoice_payload.slice(0, 64), reason: check.reason },
      "top-up pre-checkout refused",
    );
  });

  c.on("message:successful_payment", async (ctx, next) => {
    if (!isTopUpPayload(ctx.message.successful_payment.invoice_payload)) return next();
    const r = await creditTopUp(ctx.deps.orders, ctx.message);
    if (!r) {
      ctx.logger.error(
        { payload: ctx.message.successful_payment.invoice_payload.slice(0, 64) },
        "a top-up payment could not be credited; left to the operators",
      );
      await ctx.reply(ctx.t("topup-unknown"), { parse_mode: "HTML" });
      return;
    }
    const locale = r.topup.locale;
    await ctx.reply(
      ctx.t("topup-credited", {
        amount: formatRub(r.topup.amountKopecks, locale),
        balance: formatRub(r.balanceKopecks, locale),
      }),
      { parse_mode: "HTML" },
    );
  });

  return c;
}
