import type { Locale } from "../../config.js";
import { rubToKopecks } from "../../orders/pricing.js";
import { forecastRunway } from "../../orders/runway.js";
import type { RecentSpending } from "../../orders/spending.js";
import type { OrderStats, WindowStats } from "../../orders/stats.js";
import type { ResellerErrorKind } from "../../reseller/errors.js";
import type { Translate } from "../context.js";
import { balanceKeyboard, statsKeyboard } from "../menus/operator.js";
import { formatNumber, formatRub } from "./money.js";
import { formatUtc, type OperatorView } from "./operator.js";

/** The operators' /balance and /stats texts (HTML parse mode; times are UTC and say so). */

/** The deposit read, or what went wrong, as the operator should understand it. */
export type BalanceResult =
  | { ok: true; balanceRub: number; checkedAt: number }
  | { ok: false; kind: ResellerErrorKind | "unknown"; checkedAt: number };

/** What a reseller error means for the operator, in one line. */
export function resellerProblem(kind: ResellerErrorKind | "unknown", t: Translate): string {
  switch (kind) {
    case "auth":
      return t("op-reseller-auth");
    case "network":
    case "timeout":
    case "server":
    case "rate_limited":
      return t("op-reseller-down");
    default:
      return t("op-reseller-unexpected");
  }
}

/**
 * How long the deposit lasts at the last 7 days' pace (orders/runway.ts), in one line:
 * "about 3 days", "about 5 hours", "more than a year", or that nothing was spent.
 */
export function runwayLine(
  balanceKopecks: number,
  spending: RecentSpending,
  t: Translate,
  locale: Locale,
): string {
  const runway = forecastRunway(balanceKopecks, spending.spentKopecks, spending.windowMs);
  const spent = formatRub(spending.spentKopecks, locale);
  switch (runway.kind) {
    case "no_spending":
      return t("op-runway-none");
    case "empty":
      return t("op-runway-empty", { spent });
    case "hours":
      return t("op-runway-hours", { hours: runway.hours, spent });
    case "days":
      return t("op-runway-days", { days: runway.days, spent });
    case "over_year":
      return t("op-runway-over-year", { spent });
  }
}

/** /balance: the deposit, a warning under LOW_BALANCE_RUB, and the runway when the spending could be read. */
export function renderBalance(
  result: BalanceResult,
  lowBalanceRub: number,
  t: Translate,
  locale: Locale,
  spending?: RecentSpending,
): OperatorView {
  const lines = [t("op-balance-title")];
  if (result.ok) {
    const balanceKopecks = rubToKopecks(result.balanceRub);
    lines.push(t("op-balance-amount", { balance: formatRub(balanceKopecks, locale) }));
    if (spending) lines.push(runwayLine(balanceKopecks, spending, t, locale));
    if (result.balanceRub < lowBalanceRub) {
      lines.push(t("op-balance-low", { threshold: formatRub(Math.round(lowBalanceRub * 100), locale) }));
    }
  } else {
    lines.push(resellerProblem(result.kind, t));
  }
  lines.push(t("op-checked-at", { time: formatUtc(result.checkedAt) }));
  return { text: lines.join("\n"), reply_markup: balanceKeyboard(t) };
}

function windowLines(title: string, w: WindowStats, t: Translate, locale: Locale): string[] {
  return [
    `<b>${title}</b>`,
    t("op-stats-orders", {
      orders: formatNumber(w.orders, locale),
      paid: formatNumber(w.paid, locale),
      delivered: formatNumber(w.delivered, locale),
      failed: formatNumber(w.failed, locale),
    }),
    t("op-stats-money", {
      revenue: formatRub(w.revenueKopecks, locale),
      cost: formatRub(w.wholesaleKopecks, locale),
      margin: formatRub(w.marginKopecks, locale),
    }),
  ];
}

export function renderStats(stats: OrderStats, now: number, t: Translate, locale: Locale): OperatorView {
  const lines = [
    t("op-stats-title"),
    "",
    ...windowLines(t("op-stats-today"), stats.today, t, locale),
    "",
    ...windowLines(t("op-stats-week"), stats.week, t, locale),
    "",
    ...windowLines(t("op-stats-month"), stats.month, t, locale),
    "",
    t("op-stats-note"),
    t("op-checked-at", { time: formatUtc(now) }),
  ];
  return { text: lines.join("\n"), reply_markup: statsKeyboard(t) };
}
