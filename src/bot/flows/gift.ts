import { itemRef } from "../../orders/price-settings.js";
import type { Gift } from "../../reseller/types.js";
import { formatNumber } from "../format/money.js";
import type { FlowDef } from "./kit.js";
import { recipientStep, type Step, settle } from "./steps.js";

export const GIFTS_PER_PAGE = 8;

interface GiftState {
  gift?: Pick<Gift, "giftId" | "emoji" | "starCount">;
  recipient?: string;
}

/** Gifts still on sale: sold-out limited gifts are hidden. */
export function giftsOnSale(gifts: Gift[]): Gift[] {
  return gifts.filter((g) => g.remainingCount === null || g.remainingCount > 0);
}

/** A gift from the catalog (emoji, star count, price, remaining when limited; paged), then the recipient. */
export function createGiftFlow(): FlowDef<GiftState> {
  const pick: Step<GiftState> = {
    id: "gift",
    fields: ["gift_id"],
    async run(f, state) {
      const gifts = await f.load((c) => c.gifts());
      if (gifts === undefined) return "abort";
      const onSale = giftsOnSale(gifts);
      if (onSale.length === 0) {
        await f.show(f.t("gift-none"));
        return "abort";
      }
      const a = await f.ask({
        text: f.t("ask-gift"),
        choices: onSale.map((g) => ({
          label:
            g.remainingCount === null
              ? f.t("gift-label", {
                  emoji: g.emoji,
                  stars: formatNumber(g.starCount, f.locale),
                  price: f.price(g.wholesalePriceRub, itemRef({ kind: "gift", giftId: g.giftId })),
                })
              : f.t("gift-label-limited", {
                  emoji: g.emoji,
                  stars: formatNumber(g.starCount, f.locale),
                  price: f.price(g.wholesalePriceRub, itemRef({ kind: "gift", giftId: g.giftId })),
                  left: g.remainingCount,
                }),
          value: { giftId: g.giftId, emoji: g.emoji, starCount: g.starCount },
        })),
        columns: 2,
        pageSize: GIFTS_PER_PAGE,
      });
      return settle(a, (v) => {
        state.gift = v;
      });
    },
  };
  const steps = [pick, recipientStep<GiftState>()];
  return {
    kind: "gift",
    initial: (): GiftState => ({}),
    steps: () => steps,
    build: (s) => ({
      kind: "gift",
      product: "gift",
      giftId: s.gift?.giftId,
      emoji: s.gift?.emoji,
      title: `${s.gift?.starCount ?? 0} ⭐`,
      recipient: s.recipient,
    }),
  };
}
