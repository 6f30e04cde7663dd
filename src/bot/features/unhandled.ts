import type { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";

/** Last in the chain: outdated buttons and text outside any flow. */
export function unhandledFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  c.on("callback_query", (ctx) =>
    ctx.answerCallbackQuery({ text: ctx.t("button-outdated") }).catch(() => undefined),
  );
  c.on("message", async (ctx) => {
    if (ctx.chat.type !== "private") return;
    await ctx.reply(ctx.t("unhandled-hint"), { parse_mode: "HTML" });
  });
  return c;
}
