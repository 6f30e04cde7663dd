import type { Rail } from "../config.js";
import type { ExtraCharge, Order, PaymentCurrency } from "./types.js";

/**
 * The payment rails as pure rules: which rail a payment came from and how its money goes back
 * when the order fails (DESIGN.md, "Refunds"). No I/O.
 */

/** What a payment's refund rule needs to know. */
type PaymentFacts = {
  rail?: Rail;
  currency: PaymentCurrency;
  telegramChargeId?: string;
  refundToWallet?: boolean;
};

/** The rail a payment came from; records written before rails existed know only their currency. */
export function railOf(p: Pick<PaymentFacts, "rail" | "currency">): Rail {
  if (p.rail) return p.rail;
  return p.currency === "XTR" ? "stars" : p.currency === "RUB" ? "invoice" : "direct";
}

/**
 * How a payment's money goes back to the customer:
 * - `stars`: `refundStarPayment`; `yookassa`: YooKassa's refunds API; `wallet`: a credit;
 * - `manual`: the operators refund by hand (flagged `needed` and alerted);
 * - `none`: nothing was paid (`direct`).
 * Telegram provider invoices and Crypto Pay cannot be refunded by the bot: they are credited to
 * the wallet when the shop offered one when the order was paid.
 */
export type RefundRoute = "stars" | "yookassa" | "wallet" | "manual" | "none";

export function refundRoute(p: PaymentFacts | ExtraCharge | Order): RefundRoute {
  const rail = railOf(p);
  switch (rail) {
    case "stars":
      return p.telegramChargeId ? "stars" : "none";
    case "yookassa":
      return "yookassa";
    case "wallet":
      return "wallet";
    case "invoice":
    case "cryptopay":
      return p.refundToWallet ? "wallet" : "manual";
    case "direct":
      return "none";
  }
}

/** A refund the engine makes by itself (a job), as opposed to one the operators make. */
export function refundsAutomatically(route: RefundRoute): boolean {
  return route === "stars" || route === "yookassa" || route === "wallet";
}

/** The unit a rail's price is in: Stars for `stars`, kopecks otherwise (`direct`: nothing to pay). */
export function currencyOfRail(rail: Rail): PaymentCurrency {
  return rail === "stars" ? "XTR" : rail === "direct" ? "NONE" : "RUB";
}
