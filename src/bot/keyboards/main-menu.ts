import { InlineKeyboard } from "grammy";
import type { Config, ProductKind } from "../../config.js";
import type { Translate } from "../context.js";
import { CB } from "./callbacks.js";

/** The /start menu: one button per enabled product kind, then "My orders" (and "Invite friends" when referrals are on). */
export function mainMenu(
  config: Pick<Config, "products"> & Partial<Pick<Config, "referralPercent">>,
  t: Translate,
): { text: string; keyboard: InlineKeyboard } {
  const kb = new InlineKeyboard();
  config.products.forEach((kind: ProductKind, i) => {
    kb.text(t(`menu-${kind}`), CB.menu + kind);
    if (i % 2 === 1) kb.row();
  });
  if (config.products.length % 2 === 1) kb.row();
  kb.text(t("menu-orders"), `${CB.menu}orders`);
  if ((config.referralPercent ?? 0) > 0) kb.row().text(t("menu-invite"), `${CB.menu}invite`);
  return { text: t("menu-title"), keyboard: kb };
}

/** Whether this user may order (CHECKOUT=direct limits ordering to ALLOWED_USER_IDS and operators). */
export function mayOrder(
  config: Pick<Config, "checkout" | "allowedUserIds" | "operatorIds">,
  userId: number,
): boolean {
  if (!config.checkout.includes("direct")) return true;
  return config.allowedUserIds.includes(userId) || config.operatorIds.includes(userId);
}
