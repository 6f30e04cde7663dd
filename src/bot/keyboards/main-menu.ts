import { InlineKeyboard } from "grammy";
import type { Config, ProductKind } from "../../config.js";
import type { OrdersApi } from "../../orders/api.js";
import { enabledKinds } from "../../orders/price-settings.js";
import type { Translate } from "../context.js";
import { CB } from "./callbacks.js";

/**
 * The /start menu: one button per product kind on sale (see {@link productsOnSale}), then "My
 * orders" (beside "Wallet" when the shop offers one), and "Invite friends" when referrals are on.
 */
export function mainMenu(
  config: Pick<Config, "products"> & Partial<Pick<Config, "referralPercent" | "checkout">>,
  t: Translate,
): { text: string; keyboard: InlineKeyboard } {
  const kb = new InlineKeyboard();
  config.products.forEach((kind: ProductKind, i) => {
    kb.text(t(`menu-${kind}`), CB.menu + kind);
    if (i % 2 === 1) kb.row();
  });
  if (config.products.length % 2 === 1) kb.row();
  kb.text(t("menu-orders"), `${CB.menu}orders`);
  if (config.checkout?.includes("wallet")) kb.text(t("menu-wallet"), `${CB.menu}wallet`);
  if ((config.referralPercent ?? 0) > 0) kb.row().text(t("menu-invite"), `${CB.menu}invite`);
  // Every product switched off (/prices): "pick a product below" over no products would puzzle.
  return { text: t(config.products.length > 0 ? "menu-title" : "menu-title-none"), keyboard: kb };
}

/** The product kinds on sale now: as the operators set them (/prices, read through the short cache), else PRODUCTS. */
export async function productsOnSale(
  config: Pick<Config, "products">,
  orders: Pick<OrdersApi, "prices">,
): Promise<ProductKind[]> {
  return orders.prices ? enabledKinds(await orders.prices.cached()) : [...config.products];
}

/** Whether this user may order (CHECKOUT=direct limits ordering to ALLOWED_USER_IDS and operators). */
export function mayOrder(
  config: Pick<Config, "checkout" | "allowedUserIds" | "operatorIds">,
  userId: number,
): boolean {
  if (!config.checkout.includes("direct")) return true;
  return config.allowedUserIds.includes(userId) || config.operatorIds.includes(userId);
}
