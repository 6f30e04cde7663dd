import type { Composer } from "grammy";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import { orderStats } from "../../orders/stats.js";
import type { Order, OrderFilter } from "../../orders/types.js";
import { ResellerApiError } from "../../reseller/errors.js";
import type { ResellerClient } from "../../reseller/types.js";
import { resolveWithin } from "../../util/timers.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { stripHtml } from "../format/html.js";
import { clip, type OperatorView, renderOrdersList } from "../format/operator.js";
import { renderArchivedCard, renderOrderCard, renderRefundConfirm } from "../format/operator-card.js";
import { type BalanceResult, renderBalance, renderStats, resellerProblem } from "../format/operator-stats.js";
import {
  filterFromLetter,
  OP_CB,
  OP_CB_MATCH,
  OPERATOR_CALLBACK,
  OPERATOR_PAGE_SIZE,
} from "../menus/operator.js";
import { isCannotEdit, isNotModified } from "../telegram-errors.js";
import { localeOf, tOf } from "./shared.js";

export interface OperatorFeatureDeps {
  config: Pick<Config, "operatorIds" | "lowBalanceRub" | "defaultLocale"> &
    Partial<Pick<Config, "operatorChatId">>;
  logger: Logger;
  orders: OrdersApi;
  reseller: Pick<ResellerClient, "balance">;
  /** Clock for /stats and "checked at" lines (tests). */
  now?: () => number;
}

/** An order found for an operator, and whether it came from the archive. */
interface Found {
  order: Order;
  archived: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `/order` accepts the full id or its start (customers see `#` + 8 characters). */
const ID_PREFIX = /^#?([0-9a-f][0-9a-f-]{3,35})$/i;

/** Callback answers are plain text of at most 200 characters. */
const ANSWER_MAX = 200;

/**
 * The operators' tools: /balance, /orders (all orders, filters, paging), /order <id> and the
 * detail card with its actions, /stats. Everything answers only users in OPERATOR_IDS, in a
 * private chat or in the operators' group (OPERATOR_CHAT_ID), where alerts and their buttons are. For anyone else updates pass through untouched (a customer's /balance reaches
 * the ordinary unknown-command answer, a customer's /orders their own list), and operator
 * buttons (`op:<letter>…`, crafted or not) are answered with an empty callback answer and do
 * nothing.
 *
 * Register it after session and i18n and before the product flows, so an operator in the middle
 * of a flow still gets the tools.
 */
/** Operator commands that work in a private chat with the bot only (their features filter on it). */
const PRIVATE_ONLY_COMMANDS = ["export", "customer", "prices", "promo", "broadcast", "wallet"];

/** How long a re-check tap waits for the reseller before it is answered with "the result will follow". */
const RECHECK_ANSWER_MS = 2_000;

export function createOperatorFeature(deps: OperatorFeatureDeps): Composer<BotContext> {
  const { config, orders, reseller } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: "operator" });
  const operators = new Set(config.operatorIds);
  const isOperator = (ctx: BotContext) => ctx.from !== undefined && operators.has(ctx.from.id);

  const root = new FlatComposer<BotContext>();

  /** The operators' group (OPERATOR_CHAT_ID): alerts land there, and anyone in it may see their buttons. */
  const inOperatorsGroup = (ctx: BotContext) =>
    config.operatorChatId !== undefined && ctx.chat?.id === config.operatorChatId;

  root.callbackQuery(OPERATOR_CALLBACK, async (ctx, next) => {
    if (isOperator(ctx)) return next();
    log.warn(
      { userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) },
      "operator button from a non-operator",
    );
    // In the group, a member who is no operator is told why nothing happens.
    const text = inOperatorsGroup(ctx) ? ctx.t("op-not-operator") : undefined;
    await ctx.answerCallbackQuery(text ? { text, show_alert: true } : undefined).catch(() => undefined);
  });

  const op = root.filter((ctx) => isOperator(ctx) && (ctx.chat?.type === "private" || inOperatorsGroup(ctx)));

  // ---------- helpers ----------

  /** Edits the message the button belongs to when `edit`, else (or when it cannot) sends a new one. */
  async function show(ctx: BotContext, view: OperatorView, edit: boolean): Promise<void> {
    const other = {
      parse_mode: "HTML" as const,
      reply_markup: view.reply_markup,
      link_preview_options: { is_disabled: true },
    };
    if (edit && ctx.callbackQuery?.message) {
      try {
        await ctx.editMessageText(view.text, other);
        return;
      } catch (err) {
        if (isNotModified(err)) return;
        if (!isCannotEdit(err)) throw err;
      }
    }
    await ctx.reply(view.text, other);
  }

  async function answer(ctx: BotContext, text?: string, alert = false): Promise<void> {
    await ctx
      .answerCallbackQuery(text ? { text: clip(stripHtml(text), ANSWER_MAX), show_alert: alert } : undefined)
      .catch(() => undefined);
  }

  async function readBalance(): Promise<BalanceResult> {
    const checkedAt = now();
    try {
      const b = await reseller.balance();
      return { ok: true, balanceRub: b.balanceRub, checkedAt };
    } catch (err) {
      if (err instanceof ResellerApiError) {
        log.warn({ kind: err.kind, status: err.status, endpoint: err.endpoint }, "balance read failed");
        return { ok: false, kind: err.kind, checkedAt };
      }
      log.error({ err }, "balance read failed");
      return { ok: false, kind: "unknown", checkedAt };
    }
  }

  async function balanceView(ctx: BotContext): Promise<OperatorView> {
    const [balance, spending] = await Promise.all([
      readBalance(),
      // The runway line is left out when the spending cannot be read; the balance is still shown.
      orders.recentSpending().catch((err) => {
        log.warn({ err }, "deposit spending read failed");
        return undefined;
      }),
    ]);
    return renderBalance(
      balance,
      config.lowBalanceRub,
      tOf(ctx),
      await localeOf(ctx, config.defaultLocale),
      spending,
    );
  }

  async function listView(ctx: BotContext, filter: OrderFilter, offset: number): Promise<OperatorView> {
    let page = await orders.listAll(filter, offset, OPERATOR_PAGE_SIZE);
    if (page.items.length === 0 && page.total > 0 && offset > 0) {
      // The list shrank under the button (a filter's orders moved on): show its last page.
      offset = Math.floor((page.total - 1) / OPERATOR_PAGE_SIZE) * OPERATOR_PAGE_SIZE;
      page = await orders.listAll(filter, offset, OPERATOR_PAGE_SIZE);
    }
    return renderOrdersList(page, filter, offset, tOf(ctx), await localeOf(ctx, config.defaultLocale));
  }

  async function cardView(ctx: BotContext, order: Order): Promise<OperatorView> {
    return renderOrderCard(order, tOf(ctx), await localeOf(ctx, config.defaultLocale));
  }

  /**
   * The order named by the full id or the start of it; `ambiguous` when the start fits several.
   * Orders in Redis first, then the archive (orders that left Redis after the retention).
   */
  async function findOrder(ref: string): Promise<Found | "ambiguous" | null> {
    if (UUID.test(ref)) {
      const order = (await orders.get(ref)) ?? (await orders.get(ref.toLowerCase()));
      if (order) return { order, archived: false };
    } else {
      const found = await orders.findIdsByPrefix(ref.toLowerCase(), 2);
      if (found.length > 1) return "ambiguous";
      const order = found[0] ? await orders.get(found[0]) : null;
      if (order) return { order, archived: false };
    }
    const archived = (await orders.findArchived?.(ref.toLowerCase(), 2)) ?? [];
    if (archived.length > 1) return "ambiguous";
    return archived[0] ? { order: archived[0], archived: true } : null;
  }

  /** Loads the order of a button; answers the button when it is gone. */
  async function orderOf(ctx: BotContext, id: string): Promise<Order | null> {
    const order = await orders.get(id);
    if (!order) await answer(ctx, ctx.t("op-gone"), true);
    return order;
  }

  /** The order of a button that opens a card: from Redis, else the archive (read-only card). */
  async function cardOf(ctx: BotContext, id: string): Promise<OperatorView | null> {
    const order = await orders.get(id);
    if (order) return cardView(ctx, order);
    const [archived] = (await orders.findArchived?.(id.toLowerCase(), 1)) ?? [];
    if (archived?.id === id.toLowerCase()) return archivedCardView(ctx, archived);
    await answer(ctx, ctx.t("op-gone"), true);
    return null;
  }

  async function archivedCardView(ctx: BotContext, order: Order): Promise<OperatorView> {
    return renderArchivedCard(order, tOf(ctx), await localeOf(ctx, config.defaultLocale));
  }

  const idOf = (ctx: BotContext) => (ctx.match as RegExpMatchArray)[1] ?? "";

  // ---------- /balance ----------

  op.command("balance", async (ctx) => {
    await show(ctx, await balanceView(ctx), false);
  });
  op.callbackQuery(OP_CB.balance, async (ctx) => {
    await answer(ctx);
    await show(ctx, await balanceView(ctx), true);
  });

  // ---------- /stats ----------

  const statsView = async (ctx: BotContext) => {
    const t = now();
    return renderStats(await orderStats(orders, t), t, tOf(ctx), await localeOf(ctx, config.defaultLocale));
  };
  op.command("stats", async (ctx) => {
    await show(ctx, await statsView(ctx), false);
  });
  op.callbackQuery(OP_CB.stats, async (ctx) => {
    await answer(ctx);
    await show(ctx, await statsView(ctx), true);
  });

  // ---------- /orders ----------

  op.command("orders", async (ctx) => {
    await show(ctx, await listView(ctx, "all", 0), false);
  });
  op.callbackQuery(OP_CB_MATCH.list, async (ctx) => {
    const filter = filterFromLetter(ctx.match[1] ?? "") ?? "all";
    await answer(ctx);
    await show(ctx, await listView(ctx, filter, Number(ctx.match[2] ?? 0)), true);
  });

  // The tools with typed steps or long screens answer in private only: in the operators' group an
  // operator's /prices, /customer… is told where it works instead of being met with silence.
  op.filter(inOperatorsGroup).command(PRIVATE_ONLY_COMMANDS, async (ctx) => {
    const command = `/${ctx.message?.text?.slice(1).split(/[\s@]/, 1)[0] ?? ""}`;
    await ctx.reply(ctx.t("op-private-only", { command, bot: ctx.me.username }), { parse_mode: "HTML" });
  });

  // ---------- /order <id> and the detail card ----------

  op.command("order", async (ctx) => {
    const arg = ctx.match.trim();
    const m = ID_PREFIX.exec(arg);
    if (!m?.[1]) {
      await ctx.reply(ctx.t("op-order-usage"), { parse_mode: "HTML" });
      return;
    }
    const found = await findOrder(m[1]);
    if (found === "ambiguous" || found === null) {
      const key = found === "ambiguous" ? "op-order-ambiguous" : "op-order-not-found";
      await ctx.reply(ctx.t(key, { id: m[1] }), { parse_mode: "HTML" });
      return;
    }
    const view = found.archived ? archivedCardView(ctx, found.order) : cardView(ctx, found.order);
    await show(ctx, await view, false);
  });

  op.callbackQuery(OP_CB_MATCH.open, async (ctx) => {
    const view = await cardOf(ctx, idOf(ctx));
    if (!view) return;
    await answer(ctx);
    await show(ctx, view, false);
  });

  op.callbackQuery(OP_CB_MATCH.card, async (ctx) => {
    const view = await cardOf(ctx, idOf(ctx));
    if (!view) return;
    await answer(ctx);
    await show(ctx, view, true);
  });

  op.callbackQuery(OP_CB_MATCH.recheck, async (ctx) => {
    const id = idOf(ctx);
    const before = await orderOf(ctx, id);
    if (!before) return;
    const stateText = (o: Order) => ctx.t(`op-state-${o.state}`);
    if (before.state !== "paid" && before.state !== "pending") {
      await answer(ctx, ctx.t("op-recheck-not-tracking", { state: stateText(before) }));
      await show(ctx, await cardView(ctx, before), true);
      return;
    }
    // The reseller may be slow (its timeouts and retries run to tens of seconds): the tap is
    // answered within RECHECK_ANSWER_MS either way, and a late result comes as a message.
    const check = orders.recheck(id).then(
      (order) => ({ order }),
      (err: unknown) => ({ err }),
    );
    const quick = await resolveWithin(check, RECHECK_ANSWER_MS, undefined);
    if (!quick) await answer(ctx, ctx.t("op-recheck-slow"));
    const tell = (text: string, alert = false) =>
      quick ? answer(ctx, text, alert) : ctx.reply(text, { parse_mode: "HTML" }).then(() => undefined);
    const r = quick ?? (await check);
    if ("err" in r) {
      if (!(r.err instanceof ResellerApiError)) throw r.err;
      log.warn({ orderId: id, kind: r.err.kind, status: r.err.status }, "operator re-check failed");
      await tell(resellerProblem(r.err.kind, tOf(ctx)), true);
      return;
    }
    const after = r.order;
    log.info(
      { orderId: id, operatorId: ctx.from.id, from: before.state, to: after?.state },
      "operator re-checked an order",
    );
    if (!after) return tell(ctx.t("op-gone"), true);
    const changed = after.state !== before.state || after.resellerStatus !== before.resellerStatus;
    await tell(ctx.t(changed ? "op-recheck-done" : "op-recheck-unchanged", { state: stateText(after) }));
    await show(ctx, await cardView(ctx, after), true);
  });

  op.callbackQuery(OP_CB_MATCH.resend, async (ctx) => {
    const id = idOf(ctx);
    const queued = await orders.resendFinal(id);
    log.info(
      { orderId: id, operatorId: ctx.from.id, queued },
      "operator asked to resend the customer's notification",
    );
    const order = await orderOf(ctx, id);
    if (!order) return;
    await answer(ctx, ctx.t(queued ? "op-resend-done" : "op-resend-not-final"));
    await show(ctx, await cardView(ctx, order), true);
  });

  op.callbackQuery(OP_CB_MATCH.refundAsk, async (ctx) => {
    const order = await orderOf(ctx, idOf(ctx));
    if (!order) return;
    if (order.refund !== "needed") {
      await answer(ctx, ctx.t("op-refunded-not-needed"));
      await show(ctx, await cardView(ctx, order), true);
      return;
    }
    await answer(ctx);
    await show(ctx, renderRefundConfirm(order, tOf(ctx), await localeOf(ctx, config.defaultLocale)), true);
  });

  op.callbackQuery(OP_CB_MATCH.refundConfirm, async (ctx) => {
    const id = idOf(ctx);
    const done = await orders.markRefunded(id);
    log.info({ orderId: id, operatorId: ctx.from.id, done }, "operator marked an order refunded");
    const order = await orderOf(ctx, id);
    if (!order) return;
    await answer(ctx, ctx.t(done ? "op-refunded-done" : "op-refunded-not-needed"));
    await show(ctx, await cardView(ctx, order), true);
  });

  // Any other operator payload (an old layout, or typed by hand): stop the spinner, nothing else.
  op.callbackQuery(OPERATOR_CALLBACK, (ctx) => answer(ctx));

  return root;
}
