import { InlineKeyboard } from "grammy";
import { isQuoteExpired } from "../../orders/lifecycle.js";
import type { Order } from "../../orders/types.js";
import { cutText } from "../../util/text.js";
import type { BotContext } from "../context.js";
import { shortId } from "../format/card.js";
import { stripHtml } from "../format/html.js";
import { describeItem } from "../format/item.js";
import { formatRub } from "../format/money.js";
import type { PayRail } from "../keyboards/callbacks.js";
import { mayOrder } from "../keyboards/main-menu.js";
import { answerQuietly, localeOf, type Speech, showCard, speechOf } from "./shared.js";

/**
 * A tap on an order card's pay button, on one rail: a Telegram invoice (Stars or a provider in
 * roubles), a link to YooKassa's or Crypto Pay's page, a one-tap payment from the wallet, or the
 * Confirm of direct checkout. The callback is answered first and at once.
 */
export async function payTap(ctx: BotContext, orderId: string, rail: PayRail | "direct"): Promise<void> {
  const { orders, config } = ctx.deps;
  const userId = ctx.from?.id ?? 0;
  const order = await orders.get(orderId);
  if (!order || order.customer.userId !== userId) return answerQuietly(ctx, ctx.t("pay-not-found"), true);
  if (isQuoteExpired(order, Date.now())) {
    await answerQuietly(ctx, ctx.t("pay-expired"), true);
    await offerRequote(ctx, order);
    return;
  }
  if (order.state !== "quoted") {
    return answerQuietly(ctx, ctx.t("pay-not-quoted", { status: ctx.t(`status-${order.state}`) }), true);
  }
  if (rail !== "direct" && !config.checkout.includes(rail)) {
    return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
  }
  switch (rail) {
    case "direct": {
      if (!mayOrder(config, userId)) return answerQuietly(ctx, ctx.t("shop-closed"), true);
      const r = await orders.confirm(orderId, userId);
      await answerQuietly(ctx, r.won ? ctx.t("confirm-ok") : ctx.t("confirm-already"));
      if (r.won && r.order) await showCard(ctx, r.order, ctx.callbackQuery?.message?.message_id);
      return;
    }
    case "stars":
    case "invoice":
      await answerQuietly(ctx);
      return sendTelegramInvoice(ctx, order, rail, await speechOf(ctx));
    case "yookassa":
    case "cryptopay":
      return sendPaymentLink(ctx, order, rail);
    case "wallet":
      return payFromWallet(ctx, order);
  }
}

/** What the customer buys, in one line for an invoice or a provider's page. */
function itemLine(speech: Speech, order: Order): string {
  return stripHtml(describeItem(order.item, speech.t, speech.locale));
}

/**
 * The invoice's plain-text description: what is bought and, as the card says it, for whom (a
 * Telegram username) or into which Steam account (a login, no "@"); only what is bought when the
 * product has no recipient (AI items, games).
 */
function invoiceDescription(t: Speech["t"], item: string, order: Order): string {
  const recipient = order.item.recipient;
  if (!recipient) return item;
  if (order.item.kind === "steam") return t("invoice-description-login", { item, login: recipient });
  return t("invoice-description", { item, recipient: `@${recipient}` });
}

/** Sends the Telegram invoice of a quoted order on a Telegram rail (Stars, or a provider's roubles). */
export async function sendTelegramInvoice(
  ctx: BotContext,
  order: Order,
  rail: "stars" | "invoice",
  speech: Speech,
): Promise<void> {
  const { t } = speech;
  const item = itemLine(speech, order);
  const title = t("invoice-title", { id: shortId(order.id) }).slice(0, 32);
  const description = cutText(invoiceDescription(t, item, order), 255);
  // Stars need no payment provider; roubles go through PAYMENT_PROVIDER_TOKEN's.
  const stars = rail === "stars";
  const amount = (stars ? (order.starsAmount ?? order.amount) : order.priceKopecks) ?? 0;
  await ctx.api.sendInvoice(
    order.customer.chatId,
    title,
    description,
    order.id,
    stars ? "XTR" : "RUB",
    [{ label: title, amount }],
    { provider_token: stars ? "" : (ctx.deps.config.paymentProviderToken ?? "") },
  );
}

async function sendPaymentLink(ctx: BotContext, order: Order, rail: "yookassa" | "cryptopay"): Promise<void> {
  const { orders, logger } = ctx.deps;
  const item = itemLine(await speechOf(ctx), order);
  const description = `${ctx.t("invoice-title", { id: shortId(order.id) })} — ${item}`;
  let r: Awaited<ReturnType<typeof orders.startPayment>>;
  try {
    r = await orders.startPayment({ orderId: order.id, userId: order.customer.userId, rail, description });
  } catch (err) {
    logger.warn({ err, orderId: order.id, rail }, "payment link could not be made");
    return answerQuietly(ctx, ctx.t("pay-link-failed"), true);
  }
  if (!r.ok) {
    if (r.reason === "busy") return answerQuietly(ctx, ctx.t("pay-link-busy"));
    if (r.reason === "expired") return answerQuietly(ctx, ctx.t("pay-expired"), true);
    if (r.reason === "unavailable") return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
    return answerQuietly(ctx, ctx.t("pay-not-found"), true);
  }
  await answerQuietly(ctx);
  const price = formatRub(order.priceKopecks ?? 0, await localeOf(ctx));
  await ctx.reply(ctx.t(`pay-link-${rail}`, { price, id: shortId(order.id) }), {
    parse_mode: "HTML",
    reply_markup: new InlineKeyboard().url(ctx.t(`btn-open-${rail}`, { price }), r.url),
  });
}

async function payFromWallet(ctx: BotContext, order: Order): Promise<void> {
  const r = await ctx.deps.orders.payFromWallet(order.id, order.customer.userId);
  const locale = await localeOf(ctx);
  if (r.ok) {
    await answerQuietly(ctx, ctx.t("wallet-paid", { balance: formatRub(r.balanceKopecks, locale) }));
    if (ctx.session.lastQuoteId === order.id) ctx.session.lastQuoteId = undefined;
    // The card whose button was tapped shows the payment (an order's card can be shown again from /orders).
    const messageId = await showCard(
      ctx,
      r.order,
      ctx.callbackQuery?.message?.message_id ?? r.order.cardMessageId,
    );
    if (messageId !== undefined && messageId !== r.order.cardMessageId) {
      await ctx.deps.orders.setCardMessage(r.order.id, messageId);
    }
    return;
  }
  if (r.reason === "insufficient") {
    const text = ctx.t("wallet-insufficient", {
      balance: formatRub(r.balanceKopecks ?? 0, locale),
      price: formatRub(order.priceKopecks ?? 0, locale),
    });
    return answerQuietly(ctx, text, true);
  }
  if (r.reason === "expired") return answerQuietly(ctx, ctx.t("pay-expired"), true);
  if (r.reason === "not_quoted" && r.order) {
    return answerQuietly(ctx, ctx.t("pay-not-quoted", { status: ctx.t(`status-${r.order.state}`) }), true);
  }
  return answerQuietly(ctx, ctx.t("pay-rail-unavailable"), true);
}

/**
 * An order whose price ran out shows so on its card (the tapped one, else the order's own), with
 * "Get a new price" in place of its pay buttons: taps on it or tries to pay an old invoice change
 * that one card rather than add a message each. A card that cannot be edited is sent anew.
 */
export async function offerRequote(ctx: BotContext, order: Order, speech?: Speech): Promise<void> {
  const messageId = ctx.callbackQuery?.message?.message_id ?? order.cardMessageId;
  await showCard(ctx, { ...order, state: "expired" }, messageId, speech);
}
