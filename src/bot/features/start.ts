import type { Composer } from "grammy";
import { PRODUCT_KINDS, type ProductKind } from "../../config.js";
import { INVITE_PREFIX } from "../../referrals/referrals.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { CB } from "../keyboards/callbacks.js";
import { mainMenu, mayOrder, productsOnSale } from "../keyboards/main-menu.js";
import { followInvite } from "./referrals.js";
import { answerQuietly, localeOf, tOf } from "./shared.js";

/** /start and the main menu: one button per enabled product kind, each entering its flow. */
export function startFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();

  c.command("start", async (ctx) => {
    if (!mayOrder(ctx.deps.config, ctx.from?.id ?? 0)) {
      await ctx.reply(ctx.t("shop-closed"), { parse_mode: "HTML" });
      return;
    }
    // Deep links: `ref_<code>` is a friend's invite (see features/referrals.ts).
    const payload = typeof ctx.match === "string" ? ctx.match.trim() : "";
    if (payload.startsWith(INVITE_PREFIX)) await followInvite(ctx, payload.slice(INVITE_PREFIX.length));
    const products = await productsOnSale(ctx.deps.config, ctx.deps.orders);
    const menu = mainMenu(
      { products, referralPercent: ctx.deps.config.referralPercent, checkout: ctx.deps.config.checkout },
      tOf(ctx),
    );
    await ctx.reply(menu.text, { parse_mode: "HTML", reply_markup: menu.keyboard });
  });

  c.callbackQuery(new RegExp(`^${CB.menu}(${PRODUCT_KINDS.join("|")})$`), async (ctx) => {
    const kind = ctx.match[1] as ProductKind;
    const { config } = ctx.deps;
    if (!mayOrder(config, ctx.from.id)) return answerQuietly(ctx, ctx.t("shop-closed"), true);
    if (!(await productsOnSale(config, ctx.deps.orders)).includes(kind))
      return answerQuietly(ctx, ctx.t("product-disabled"), true);
    await answerQuietly(ctx);
    await ctx.flows.enter(kind, await localeOf(ctx));
  });

  return c;
}
