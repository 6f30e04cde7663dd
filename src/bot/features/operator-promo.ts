import type { Composer } from "grammy";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import { parsePromoCommand } from "../../promo/parse.js";
import type { BotContext } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { escapeHtml } from "../format/html.js";
import { describePromo, PROMO_PAGE_SIZE, renderPromoList } from "../format/operator-promo.js";
import { CB } from "../keyboards/callbacks.js";
import { answerQuietly, localeOf, showView, tOf } from "./shared.js";

/**
 * `/promo` (OPERATOR_IDS, in a private chat): make a code (`/promo new SPRING 10% for=stars
 * limit=100 per=1 from=2026-03-01 to=2026-03-31 min=500`), a batch of one-time codes listed for
 * copying (`/promo batch 20 150`), switch one off (`/promo off SPRING`, or its button in the list),
 * and the list of codes with their uses. A line that breaks a rule is answered with the rule and
 * changes nothing.
 */
export function operatorPromoFeature(deps: {
  config: Pick<Config, "operatorIds">;
  logger: Logger;
  orders: Pick<OrdersApi, "promos">;
}): Composer<BotContext> {
  const log = deps.logger.child({ component: "operator-promo" });
  const operators = new Set(deps.config.operatorIds);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.promoOperator}`), async (ctx, next) => {
    if (isOperator(ctx) && deps.orders.promos) return next();
    log.warn({ userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) }, "promo button refused");
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);

  async function list(ctx: BotContext, offset: number, edit: boolean, notice?: string) {
    const store = deps.orders.promos;
    if (!store) return;
    const page = await store.list(offset, PROMO_PAGE_SIZE);
    await showView(ctx, renderPromoList(page, offset, tOf(ctx), await localeOf(ctx), notice), edit);
  }

  op.command("promo", async (ctx) => {
    const store = deps.orders.promos;
    if (!store) return;
    const parsed = parsePromoCommand(ctx.match);
    if (!parsed.ok) {
      // The vars echo what the operator typed (an unknown option): text, not HTML.
      const vars = Object.fromEntries(
        Object.entries(parsed.vars ?? {}).map(([k, v]) => [k, typeof v === "string" ? escapeHtml(v) : v]),
      );
      await ctx.reply(`⛔ ${ctx.t(parsed.rule, vars)}\n\n${ctx.t("op-promo-help")}`, {
        parse_mode: "HTML",
      });
      return;
    }
    const cmd = parsed.value;
    const by = ctx.from?.id ?? 0;
    const locale = await localeOf(ctx);
    if (cmd.action === "list") return list(ctx, 0, false);
    if (cmd.action === "off") {
      const done = await store.disable(cmd.code);
      if (done) log.info({ code: cmd.code, operatorId: by }, "promo code switched off");
      return list(ctx, 0, false, ctx.t(done ? "op-promo-disabled" : "op-promo-unknown", { code: cmd.code }));
    }
    const base = { ...cmd.terms, createdAt: Date.now(), createdBy: by };
    if (cmd.action === "new") {
      const created = await store.create({ ...base, code: cmd.code });
      if (!created) {
        await ctx.reply(ctx.t("op-promo-taken", { code: cmd.code }), { parse_mode: "HTML" });
        return;
      }
      log.info({ code: cmd.code, operatorId: by }, "promo code created");
      const status = await store.get(cmd.code);
      await ctx.reply(
        `${ctx.t("op-promo-created")}\n${status ? describePromo(status, tOf(ctx), locale) : ""}`,
        {
          parse_mode: "HTML",
        },
      );
      return;
    }
    const codes = await store.createBatch(cmd.count, base);
    log.info({ count: codes.length, operatorId: by }, "promo code batch created");
    const first = codes[0] ? await store.get(codes[0]) : null;
    await ctx.reply(
      [
        ctx.t("op-promo-batch", { count: codes.length }),
        first ? describePromo({ ...first, code: "…" }, tOf(ctx), locale) : "",
        "",
        ...codes.map((c) => `<code>${c}</code>`),
      ].join("\n"),
      { parse_mode: "HTML" },
    );
  });

  op.callbackQuery(new RegExp(`^${CB.promoOperator}l:(\\d{1,7})$`), async (ctx) => {
    await answerQuietly(ctx);
    await list(ctx, Number(ctx.match[1]), true);
  });

  op.callbackQuery(new RegExp(`^${CB.promoOperator}d:([A-Z0-9_-]{4,32})$`), async (ctx) => {
    const code = ctx.match[1] ?? "";
    const done = (await deps.orders.promos?.disable(code)) ?? false;
    if (done) log.info({ code, operatorId: ctx.from.id }, "promo code switched off");
    await answerQuietly(ctx);
    await list(ctx, 0, true, ctx.t(done ? "op-promo-disabled" : "op-promo-unknown", { code }));
  });

  return root;
}
