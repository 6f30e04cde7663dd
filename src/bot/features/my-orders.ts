import type { Composer } from "grammy";
import { NEXT_STATES } from "../../orders/lifecycle.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { ORDERS_PAGE_SIZE, renderOrdersPage } from "../format/orders-list.js";
import { CB } from "../keyboards/callbacks.js";
import { isNotModified } from "../telegram-errors.js";
import { answerQuietly, localeOf, showCard, tOf } from "./shared.js";

/** Shows a page of the customer's own orders (newest first), editing `editMessageId` when given. */
export async function showOrders(ctx: BotContext, offset: number, editMessageId?: number): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) return;
  const page = await ctx.deps.orders.listByChat(chatId, offset, ORDERS_PAGE_SIZE);
  const view = renderOrdersPage(page, offset, {
    t: tOf(ctx),
    locale: await localeOf(ctx),
    supportContact: ctx.deps.config.supportContact,
  });
  const other = { parse_mode: "HTML" as const, reply_markup: view.keyboard };
  if (editMessageId !== undefined) {
    try {
      await ctx.api.editMessageText(chatId, editMessageId, view.text, other);
      return;
    } catch (err) {
      if (isNotModified(err)) return;
    }
  }
  await ctx.reply(view.text, other);
}

/** /orders: the customer's orders, paged; tapping one shows its card. */
export function myOrdersFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.command("orders", (ctx) => showOrders(ctx, 0));
  c.callbackQuery(`${CB.menu}orders`, async (ctx) => {
    await answerQuietly(ctx);
    await showOrders(ctx, 0);
  });
  // At most 7 digits, as the operator list: a forged huge offset is not a page (Redis refuses it).
  c.callbackQuery(new RegExp(`^${CB.ordersPage}(\\d{1,7})$`), async (ctx) => {
    await answerQuietly(ctx);
    await showOrders(ctx, Number(ctx.match[1]), ctx.callbackQuery.message?.message_id);
  });
  c.callbackQuery(new RegExp(`^${CB.orderView}([0-9a-fA-F-]{36})$`), async (ctx) => {
    const order = await ctx.deps.orders.get(ctx.match[1] ?? "");
    if (!order || order.customer.chatId !== ctx.chat?.id)
      return answerQuietly(ctx, ctx.t("pay-not-found"), true);
    await answerQuietly(ctx);
    const messageId = await showCard(ctx, order);
    // The card shown last is the one the customer acts on: an order that still moves (paid,
    // delivered…) is followed there from now on.
    const previous = order.cardMessageId;
    if (messageId !== undefined && messageId !== previous && NEXT_STATES[order.state].length > 0) {
      await ctx.deps.orders.setCardMessage(order.id, messageId);
      // The earlier card stays as it was, without buttons: its Pay or Cancel would act on an
      // order the new card follows (a card that is gone or too old to edit is left alone).
      if (previous !== undefined) {
        await ctx.api
          .editMessageReplyMarkup(order.customer.chatId, previous, {
            reply_markup: { inline_keyboard: [] },
          })
          .catch(() => undefined);
      }
    }
  });
  return c;
}
