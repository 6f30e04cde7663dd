import type { Composer } from "grammy";
import type { CustomerRegistry } from "../../customers/registry.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { localeOf } from "./shared.js";

/**
 * Keeps the customers registry (broadcast audiences): a message or a button in a private chat
 * records the chat and its language (the registry writes at most once a day per chat, or on a
 * change of language), and Telegram's my_chat_member updates mark a block and an unblock.
 */
export function customersFeature(registry: CustomerRegistry): Composer<BotContext> {
  const root = new FlatComposer<BotContext>();
  root.on("my_chat_member", async (ctx, next) => {
    if (ctx.chat.type !== "private") return next();
    const status = ctx.myChatMember.new_chat_member.status;
    await registry.setBlocked(ctx.chat.id, status === "kicked");
  });
  root.use(async (ctx, next) => {
    const chat = ctx.chat;
    if (chat?.type === "private" && ctx.from && !ctx.from.is_bot && (ctx.message || ctx.callbackQuery)) {
      const locale = await localeOf(ctx);
      // Not awaited: the customer's answer does not wait for the registry.
      registry.touch(chat.id, locale).catch((err) => ctx.logger.warn({ err }, "customer not recorded"));
    }
    return next();
  });
  return root;
}
