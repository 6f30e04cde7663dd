import type { Composer } from "grammy";
import { INVITE_PREFIX } from "../../referrals/referrals.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { renderInvite } from "../format/referrals.js";
import { CB } from "../keyboards/callbacks.js";
import { answerQuietly, localeOf, showView, tOf } from "./shared.js";

/**
 * Referrals, the customer's side: "👥 Invite friends" in the main menu shows the customer's own
 * invite link (`t.me/<bot>?start=ref_<code>`, the code made on first use) and what it brought:
 * friends who joined, their delivered orders, the bonus earned. Following a link is handled by
 * /start ({@link followInvite}); the bonus itself is the orders engine's (orders/referral-bonus.ts).
 * With REFERRAL_PERCENT at 0 the button is not shown and a pressed old one says referrals are off.
 */
export function referralsFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  const p = c.filter((ctx) => ctx.chat?.type === "private");
  p.callbackQuery(`${CB.menu}invite`, async (ctx) => {
    const { referrals, config } = ctx.deps;
    if (!referrals || config.referralPercent <= 0) {
      await answerQuietly(ctx, ctx.t("invite-off"), true);
      return;
    }
    await answerQuietly(ctx);
    const code = await referrals.codeOf(ctx.from.id);
    const stats = await referrals.stats(ctx.from.id);
    const link = `https://t.me/${ctx.me.username}?start=${INVITE_PREFIX}${code}`;
    const view = renderInvite(
      { link, percent: config.referralPercent, stats },
      tOf(ctx),
      await localeOf(ctx),
    );
    await showView(ctx, view, false);
  });
  return c;
}

/**
 * A customer came through a friend's invite link (`/start ref_<code>`): attached to that friend
 * unless it is their own link, the code is unknown, they were attached before (the first link
 * wins) or they have ordered before. Only a new attachment and the two mistakes are answered;
 * the menu follows in any case.
 */
export async function followInvite(ctx: BotContext, code: string): Promise<void> {
  const { referrals, config } = ctx.deps;
  const userId = ctx.from?.id;
  if (!referrals || config.referralPercent <= 0 || userId === undefined || ctx.chat?.type !== "private")
    return;
  const { outcome, referrerId } = await referrals.attach(userId, code.toLowerCase());
  if (outcome === "attached") {
    ctx.logger.info({ userId, referrerId }, "customer joined through an invite");
    await ctx.reply(ctx.t("invite-joined"), { parse_mode: "HTML" });
  } else if (outcome === "self") {
    await ctx.reply(ctx.t("invite-own-link"), { parse_mode: "HTML" });
  } else if (outcome === "unknown") {
    await ctx.reply(ctx.t("invite-unknown"), { parse_mode: "HTML" });
  }
}
