import { randomUUID } from "node:crypto";
import type { I18n } from "@grammyjs/i18n";
import { type Composer, InlineKeyboard, type NextFunction } from "grammy";
import type { Message } from "grammy/types";
import {
  OpenQuotesLimitError,
  type OrdersApi,
  type PaymentReceipt,
  ProductUnavailableError,
} from "../../orders/api.js";
import { ProductPausedError } from "../../orders/deposit-guard.js";
import { isQuoteExpired } from "../../orders/lifecycle.js";
import type { Order } from "../../orders/types.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { shortId } from "../format/card.js";
import { renderExtraPayment } from "../format/extra-payment.js";
import { renderOpenQuotes } from "../format/open-quotes.js";
import { isLocale, supportedLocale, translator } from "../i18n.js";
import { CB, type PayRail, railOfCode } from "../keyboards/callbacks.js";
import { offerRequote, payTap, sendTelegramInvoice } from "./pay-rails.js";
import { answerQuietly, localeOf, type Speech, showCard, tOf } from "./shared.js";
import { creditTopUp, isTopUpPayload } from "./topups.js";

/**
 * How long the answer to a payment (the order card) waits for `pay` to go through, so that it shows
 * the order being delivered instead of a "paid" card that a queued update replaces a moment later.
 */
export const PAY_ANSWER_WAIT_MS = 1_500;
const ANSWERED = { answered: true };

/** pre_checkout_query must be answered within 10 s; the order check gets at most this long. */
export const PRE_CHECKOUT_BUDGET_MS = 7_000;
/** How long the "new quote for an expired one" mapping is kept (a repeated tap reuses the same new order). */
const REQUOTE_TTL_SECONDS = 24 * 3600;

const ID = "([0-9a-fA-F-]{36})";

/** Pay / Confirm / Cancel on cards, invoices, pre-checkout, successful payments and re-quotes. */
/** The receipt a `successful_payment` message carries (the invoice payload names the order). */
export function receiptOf(message: Message): { orderId: string; receipt: PaymentReceipt } | undefined {
  const p = message.successful_payment;
  if (!p || !message.from) return undefined;
  return {
    orderId: p.invoice_payload,
    receipt: {
      userId: message.from.id,
      currency: p.currency === "XTR" ? "XTR" : "RUB",
      totalAmount: p.total_amount,
      telegramChargeId: p.telegram_payment_charge_id,
      providerChargeId: p.provider_payment_charge_id || undefined,
    },
  };
}

/**
 * Records every payment in a batch of updates before the batch can be confirmed to Telegram.
 * Telegram sends a `successful_payment` once: the runner confirms a batch when it asks for the
 * next one, and a webhook is confirmed by its 200, both possibly before the handler ran. Recording
 * here (idempotent per charge id) means a crash at any moment cannot lose a payment; the handler
 * then sees it as already recorded.
 */
export async function recordPayments(
  orders: OrdersApi,
  updates: readonly { message?: Message }[],
): Promise<void> {
  for (const update of updates) {
    const paid = update.message ? receiptOf(update.message) : undefined;
    if (paid && isTopUpPayload(paid.orderId)) {
      await creditTopUp(orders, update.message as Message);
      continue;
    }
    if (paid) {
      // The handler answers it with the order card (which then waits a moment for `pay`).
      recorded.set(update.message as Message, await orders.markPaid(paid.orderId, paid.receipt, ANSWERED));
    }
  }
}

type MarkPaidResult = Awaited<ReturnType<OrdersApi["markPaid"]>>;
/** What recordPayments learned of a payment message, for its handler (the same update object). */
const recorded = new WeakMap<Message, MarkPaidResult>();

/** The language of an answer about an order: the order's, else the user's Telegram one, else the default. */
function speechFor(i18n: I18n<BotContext>, ctx: BotContext, order: Order | null | undefined): Speech {
  const locale = [order?.customer.locale, supportedLocale(ctx.from?.language_code)].find(isLocale);
  const chosen = locale ?? ctx.deps.config.defaultLocale;
  return { t: translator(i18n, chosen), locale: chosen };
}

export function paymentsFeature(i18n: I18n<BotContext>): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();

  // The card's one button when CHECKOUT offers one rail (and cards shown before there were several).
  c.callbackQuery(new RegExp(`^${CB.pay}${ID}$`), (ctx) => {
    const first = ctx.deps.config.checkout[0] ?? "stars";
    return payTap(ctx, ctx.match[1] ?? "", first);
  });

  c.callbackQuery(new RegExp(`^${CB.payRail}([a-z]):${ID}$`), (ctx) => {
    const rail = railOfCode(ctx.match[1] ?? "");
    if (!rail) return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
    return payTap(ctx, ctx.match[2] ?? "", rail);
  });

  c.callbackQuery(new RegExp(`^${CB.cancel}${ID}$`), async (ctx) => {
    const orderId = ctx.match[1] ?? "";
    const r = await ctx.deps.orders.cancel(orderId, ctx.from.id);
    if (r.won) {
      await answerQuietly(ctx, ctx.t("cancel-ok"));
      if (r.order) await showCard(ctx, r.order, ctx.callbackQuery.message?.message_id);
      if (ctx.session.lastQuoteId === orderId) ctx.session.lastQuoteId = undefined;
      return;
    }
    const status = r.order ? ctx.t(`status-${r.order.state}`) : "—";
    await answerQuietly(ctx, ctx.t("cancel-too-late", { status }), true);
  });

  c.callbackQuery(new RegExp(`^${CB.requote}${ID}$`), async (ctx) => {
    const { orders, redis, config, logger } = ctx.deps;
    const oldId = ctx.match[1] ?? "";
    const old = await orders.get(oldId);
    if (!old || old.customer.userId !== ctx.from.id) return answerQuietly(ctx, ctx.t("pay-not-found"), true);
    await answerQuietly(ctx);
    // A repeated tap must reuse the same new order id.
    const key = `${config.redisPrefix}requote:${oldId}`;
    await redis.set(key, randomUUID(), "EX", REQUOTE_TTL_SECONDS, "NX");
    const newId = (await redis.get(key)) ?? randomUUID();
    try {
      const order = await orders.quote({
        orderId: newId,
        item: old.item,
        customer: { ...old.customer, locale: await localeOf(ctx) },
      });
      // A second tap (updates of a chat come one after another) finds the new order with its card
      // shown already: that card is shown again in place, not a second one.
      const messageId = await showCard(ctx, order, order.cardMessageId);
      if (messageId !== undefined && messageId !== order.cardMessageId) {
        await orders.setCardMessage(order.id, messageId);
      }
      ctx.session.lastQuoteId = order.id;
    } catch (err) {
      if (err instanceof OpenQuotesLimitError) {
        // Nothing was asked of the reseller: the customer cancels an older quote here (the
        // card's own Cancel) or pays one, then asks for the new price again.
        const kb = new InlineKeyboard();
        for (const o of err.open)
          kb.text(ctx.t("btn-cancel-quote", { id: shortId(o.id) }), CB.cancel + o.id).row();
        const text = renderOpenQuotes(err.max, err.open, { t: tOf(ctx), locale: await localeOf(ctx) });
        await ctx.reply(text, { parse_mode: "HTML", reply_markup: kb });
        return;
      }
      if (err instanceof ProductPausedError) {
        await ctx.reply(ctx.t("quote-paused"), { parse_mode: "HTML" });
        return;
      }
      if (err instanceof ProductUnavailableError) {
        await ctx.reply(ctx.t("product-disabled"), { parse_mode: "HTML" });
        return;
      }
      logger.warn({ err, orderId: newId }, "re-quote failed");
      await ctx.reply(ctx.t("requote-failed"), { parse_mode: "HTML" });
    }
  });

  c.on("pre_checkout_query", async (ctx) => {
    const q = ctx.preCheckoutQuery;
    const currency = q.currency === "XTR" ? "XTR" : q.currency === "RUB" ? "RUB" : undefined;
    let check: Awaited<ReturnType<typeof ctx.deps.orders.checkPayable>> | "timeout" | "bad_currency";
    if (!currency) check = "bad_currency";
    else {
      let timer: NodeJS.Timeout | undefined;
      check = await Promise.race([
        ctx.deps.orders.checkPayable(q.invoice_payload, {
          userId: q.from.id,
          currency,
          totalAmount: q.total_amount,
        }),
        new Promise<"timeout">((r) => {
          timer = setTimeout(() => r("timeout"), PRE_CHECKOUT_BUDGET_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    }
    if (typeof check === "object" && check.ok) {
      await ctx.answerPreCheckoutQuery(true);
      return;
    }
    const order = typeof check === "object" ? check.order : undefined;
    const { t } = speechFor(i18n, ctx, order);
    const reason =
      typeof check === "object" ? check.reason : check === "timeout" ? "timeout" : "wrong_amount";
    await ctx.answerPreCheckoutQuery(false, { error_message: t(`precheckout-${reason}`) });
    ctx.logger.info({ orderId: q.invoice_payload, reason }, "pre-checkout refused");
    if (reason === "expired" && order) await offerRequote(ctx, order, speechFor(i18n, ctx, order));
  });

  return c;
}

/**
 * The two updates of every purchase that need neither the chat's session nor its flows, answered
 * before the session is read: a Pay tap on a Telegram invoice rail, and the `successful_payment`
 * message. Both concern one order, which says the customer's language (the one of the quote), so
 * each saves a session read and the flows' and i18n's work. A flow in progress lets both through
 * untouched anyway. Anything out of the ordinary (an order that is not the tapper's, not payable
 * now or on another rail; a top-up) goes on to the handlers behind the session, as before.
 */
export function paymentsBeforeSession(i18n: I18n<BotContext>): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  const invoiceTap = async (
    ctx: BotContext,
    orderId: string,
    rail: PayRail | "direct" | undefined,
    next: NextFunction,
  ) => {
    const { orders, config } = ctx.deps;
    if ((rail !== "stars" && rail !== "invoice") || !config.checkout.includes(rail)) return next();
    const order = await orders.quoted(orderId);
    if (!order || order.customer.userId !== ctx.from?.id || order.state !== "quoted") return next();
    if (isQuoteExpired(order, Date.now())) return next();
    // The spinner's answer and the invoice go out together.
    await Promise.all([
      answerQuietly(ctx),
      sendTelegramInvoice(ctx, order, rail, speechFor(i18n, ctx, order)),
    ]);
  };
  c.callbackQuery(new RegExp(`^${CB.pay}${ID}$`), (ctx, next) =>
    invoiceTap(ctx, ctx.match[1] ?? "", ctx.deps.config.checkout[0] ?? "stars", next),
  );
  c.callbackQuery(new RegExp(`^${CB.payRail}([a-z]):${ID}$`), (ctx, next) =>
    invoiceTap(ctx, ctx.match[2] ?? "", railOfCode(ctx.match[1] ?? ""), next),
  );

  c.on("message:successful_payment", async (ctx, next) => {
    const paid = receiptOf(ctx.message);
    if (!paid || isTopUpPayload(paid.orderId)) return next();
    const { orderId, receipt } = paid;
    // Usually recorded already when the update arrived (recordPayments): its answer is reused.
    const r = recorded.get(ctx.message) ?? (await ctx.deps.orders.markPaid(orderId, receipt, ANSWERED));
    ctx.logger.info({ orderId, outcome: r.outcome }, "payment received");
    const extra =
      r.outcome === "refunded_extra" || r.outcome === "duplicate"
        ? r.order?.extraCharges?.find((c) => c.telegramChargeId === receipt.telegramChargeId)
        : undefined;
    if (r.order && extra) {
      const speech = speechFor(i18n, ctx, r.order);
      const text = renderExtraPayment(r.order, extra, { ...speech, settled: false });
      await ctx.reply(text, { parse_mode: "HTML" });
      return;
    }
    if (r.order?.telegramChargeId !== receipt.telegramChargeId) return;
    // The answer to the payment: the order card, being delivered once `pay` went through (usually
    // within moments), or paid when it takes longer; later changes are queued.
    const answered = await ctx.deps.orders.paymentAnswer(r.order.id, PAY_ANSWER_WAIT_MS);
    // Without `pay`'s answer the order may still have moved on meanwhile (a delivery webhook that
    // came before a slow `pay` answered, settling the order): the card shows where it is now, and
    // is shown again if it moved while being shown, as its own update may have gone out first.
    const shown = answered ?? (await ctx.deps.orders.get(r.order.id)) ?? r.order;
    const messageId = await showCard(ctx, shown, shown.cardMessageId, speechFor(i18n, ctx, shown));
    if (messageId !== undefined && messageId !== shown.cardMessageId) {
      await ctx.deps.orders.setCardMessage(shown.id, messageId);
    }
    if (answered || messageId === undefined) return;
    const now = await ctx.deps.orders.get(r.order.id);
    if (now && now.state !== shown.state) await showCard(ctx, now, messageId, speechFor(i18n, ctx, now));
  });

  return c;
}
