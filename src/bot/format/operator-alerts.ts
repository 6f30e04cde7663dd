import type { InlineKeyboardMarkup } from "grammy/types";
import type { Locale } from "../../config.js";
import { rubToKopecks } from "../../orders/pricing.js";
import type { OperatorAlert, Order } from "../../orders/types.js";
import type { Translate } from "../context.js";
import { isLocale } from "../i18n.js";
import { openOrderButton } from "../menus/operator.js";
import { formatOrderPrice } from "./card.js";
import { escapeHtml } from "./html.js";
import { formatRub, formatStars } from "./money.js";
import {
  chargeLines,
  clip,
  customerShort,
  extraChargeVars,
  formatUtc,
  orderRef,
  productLabel,
  recipientLabel,
  rejectReasonLabel,
  stateLabel,
} from "./operator.js";
import { runwayLine } from "./operator-stats.js";

export interface RenderedAlert {
  text: string;
  reply_markup?: InlineKeyboardMarkup;
}

/** The locale a translator speaks (each operator .ftl names its own in `op-locale`). */
function localeOf(t: Translate): Locale {
  const l = t("op-locale");
  return isLocale(l) ? l : "ru";
}

function rub(value: number, locale: Locale): string {
  return formatRub(Math.round(value * 100), locale);
}

/** What happens to the customer's money, for a failed or rejected order. */
function moneyLine(order: Order | undefined, t: Translate, locale: Locale): string | undefined {
  if (!order) return undefined;
  if (order.currency === "NONE" || order.amount === undefined) return t("op-alert-money-none");
  const amount =
    order.currency === "XTR" ? formatStars(order.amount, locale) : formatRub(order.amount, locale);
  if (order.refund === "done") return t("op-alert-money-refunded", { amount });
  if (order.refund === "needed") return t("op-alert-money-refund-by-hand", { amount });
  return order.currency === "XTR" ? t("op-alert-money-stars-auto", { amount }) : undefined;
}

/**
 * An operator alert as a message: what happened and what to do, the order in short, and a
 * button to its detail card when there is an order. HTML; every text that came from the
 * reseller or a customer is escaped. Details the renderer does not know are listed at the end,
 * so nothing the engine reported is lost.
 *
 * `locale` formats money and numbers; by default it is the translator's own language.
 */
export function renderAlert(
  alert: OperatorAlert,
  order: Order | undefined,
  t: Translate,
  locale: Locale = localeOf(t),
): RenderedAlert {
  const d = alert.details;
  const used = new Set<string>();
  const str = (k: string): string | undefined => {
    used.add(k);
    const v = d[k];
    return v === null || v === undefined || v === "" ? undefined : String(v);
  };
  const num = (k: string): number | undefined => {
    used.add(k);
    const v = d[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
    return undefined;
  };
  const reasonLine = (reason: string | undefined) =>
    reason ? t("op-alert-reason", { reason: escapeHtml(clip(reason, 500)) }) : undefined;

  const lines: (string | undefined)[] = [];
  switch (alert.kind) {
    case "delivery_failed":
      lines.push(t("op-alert-delivery-failed"));
      lines.push(reasonLine(str("reason") ?? order?.errorMessage));
      lines.push(moneyLine(order, t, locale));
      lines.push(t("op-alert-delivery-failed-todo"));
      break;
    case "pay_rejected": {
      lines.push(t("op-alert-pay-rejected"));
      const kind = str("kind") ?? order?.rejectReason;
      if (kind) lines.push(t("op-alert-reject-kind", { kind: rejectReasonLabel(kind, t) }));
      lines.push(reasonLine(str("reason") ?? order?.errorMessage));
      if (kind === "insufficient_funds") {
        const balance = num("balanceRub") ?? order?.rejectBalanceRub;
        lines.push(
          balance !== undefined
            ? t("op-alert-balance-then", { balance: rub(balance, locale) })
            : t("op-alert-balance-unknown"),
        );
        lines.push(t("op-alert-todo-topup"));
      } else {
        lines.push(t("op-alert-pay-rejected-todo"));
      }
      lines.push(moneyLine(order, t, locale));
      break;
    }
    case "low_balance": {
      const balance = num("balanceRub");
      const threshold = num("thresholdRub");
      lines.push(
        t("op-alert-low-balance", {
          balance: balance !== undefined ? rub(balance, locale) : "—",
          threshold: threshold !== undefined ? rub(threshold, locale) : "—",
        }),
      );
      const spentKopecks = num("spentKopecks");
      const windowMs = num("spendWindowMs");
      if (balance !== undefined && spentKopecks !== undefined && windowMs !== undefined) {
        lines.push(runwayLine(rubToKopecks(balance), { spentKopecks, windowMs }, t, locale));
      }
      lines.push(t("op-alert-low-balance-todo"));
      break;
    }
    case "stuck": {
      const since = order ? (order.times.paid ?? order.createdAt) : undefined;
      lines.push(t("op-alert-stuck", { since: since !== undefined ? formatUtc(since) : "—" }));
      lines.push(t("op-alert-stuck-todo"));
      break;
    }
    case "refund_needed": {
      const amount =
        order?.amount === undefined
          ? "—"
          : order.currency === "XTR"
            ? formatStars(order.amount, locale)
            : formatRub(order.amount, locale);
      lines.push(t("op-alert-refund-needed", { amount }));
      lines.push(reasonLine(str("reason") ?? order?.errorMessage));
      if (order) lines.push(...chargeLines(order, t, "op-alert"));
      lines.push(
        t(order?.currency === "XTR" ? "op-alert-refund-needed-stars-todo" : "op-alert-refund-needed-todo"),
      );
      break;
    }
    case "reseller_auth":
      lines.push(
        t("op-alert-reseller-auth", {
          status: escapeHtml(str("status") ?? "401/403"),
          endpoint: escapeHtml(clip(str("endpoint") ?? "—", 80)),
        }),
      );
      lines.push(reasonLine(str("message")));
      lines.push(t("op-alert-reseller-auth-todo"));
      break;
    case "reseller_down":
      lines.push(
        t("op-alert-reseller-down", {
          checks: num("checks") ?? 2,
          status: escapeHtml(str("status") ?? "—"),
          endpoint: escapeHtml(clip(str("endpoint") ?? "—", 80)),
        }),
      );
      lines.push(reasonLine(str("message")));
      lines.push(t("op-alert-reseller-down-todo"));
      break;
    case "product_paused":
    case "product_resumed": {
      const kind = str("product") ?? "—";
      const product = t(`menu-${kind}`);
      const balance = num("balanceRub");
      const vars = {
        product,
        needed: rub(num("neededRub") ?? 0, locale),
        balance: balance !== undefined ? rub(balance, locale) : "—",
      };
      if (alert.kind === "product_paused") {
        lines.push(t("op-alert-product-paused", vars), t("op-alert-product-paused-todo"));
      } else {
        lines.push(t("op-alert-product-resumed", vars));
      }
      // The order behind a pause was cancelled before the customer could pay: not shown.
      return { text: lines.filter((l) => l !== undefined).join("\n") };
    }
    case "duplicate_payment": {
      const reason = str("reason");
      if (!order) {
        lines.push(t("op-alert-duplicate-unknown"));
        if (reason && reason !== "unknown order") lines.push(reasonLine(reason));
        lines.push(t("op-alert-duplicate-unknown-todo"));
        break;
      }
      lines.push(t("op-alert-duplicate"));
      lines.push(reasonLine(reason));
      for (const x of order.extraCharges ?? [])
        lines.push(t("op-alert-extra-charge", extraChargeVars(x, t, locale)));
      lines.push(t("op-alert-duplicate-todo"));
      break;
    }
  }

  if (order) {
    const recipient = recipientLabel(order.item);
    lines.push("");
    lines.push(
      t("op-alert-order", {
        ref: orderRef(order.id),
        product: productLabel(order.item, t, locale),
        recipient: recipient ? ` → ${recipient}` : "",
      }),
    );
    lines.push(
      t("op-alert-order-customer", {
        customer: customerShort(order.customer),
        id: String(order.customer.userId),
        price: formatOrderPrice(order, locale),
        state: stateLabel(order, t),
      }),
    );
  } else if (alert.orderId) {
    lines.push("", t("op-alert-order-id", { id: escapeHtml(clip(alert.orderId, 64)) }));
  }

  const rest = Object.entries(d).filter(
    ([k, v]) => !used.has(k) && v !== null && v !== undefined && v !== "",
  );
  if (rest.length > 0) {
    lines.push("");
    for (const [k, v] of rest)
      lines.push(`• ${escapeHtml(clip(k, 40))}: ${escapeHtml(clip(String(v), 300))}`);
  }

  const text = lines.filter((l): l is string => l !== undefined).join("\n");
  return order ? { text, reply_markup: openOrderButton(order.id, t) } : { text };
}
