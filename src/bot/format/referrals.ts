import { InlineKeyboard } from "grammy";
import type { Locale } from "../../config.js";
import type { ReferralStats } from "../../referrals/referrals.js";
import type { Translate } from "../context.js";
import { escapeHtml } from "./html.js";
import { formatNumber, formatRub } from "./money.js";

/** "Invite friends": the link to share, the share credited, and what the link brought. */
export function renderInvite(
  v: { link: string; percent: number; stats: ReferralStats },
  t: Translate,
  locale: Locale,
): { text: string; keyboard: InlineKeyboard } {
  const text = t("invite-view", {
    link: escapeHtml(v.link),
    percent: v.percent,
    joined: formatNumber(v.stats.joined, locale),
    orders: formatNumber(v.stats.orders, locale),
    earned: formatRub(v.stats.earnedKopecks, locale),
  });
  const share = `https://t.me/share/url?url=${encodeURIComponent(v.link)}`;
  return { text, keyboard: new InlineKeyboard().url(t("invite-share"), share) };
}
