import type { Composer } from "grammy";
import type { CatalogService } from "../../catalog/service.js";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import {
  ITEM_REF_RE,
  MARKUP_LIMITS,
  MAX_MIN_MARGIN_RUB,
  type PriceChange,
  type PriceSettingsStore,
} from "../../orders/price-settings.js";
import { ROUNDINGS } from "../../orders/pricing.js";
import type { BotContext, PricesInput } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import {
  kindOf,
  PRICE_CHANGES_SHOWN,
  renderPrices,
  renderPricesQuestion,
} from "../format/operator-prices.js";
import { CB } from "../keyboards/callbacks.js";
import { type Checked, MAX_INPUT_CHARS } from "../validate.js";
import { answerQuietly, leaveFlows, localeOf, showView, tOf } from "./shared.js";

/** A typed question of /prices waits this long for its answer. */
export const PRICES_INPUT_TTL_MS = 3600 * 1000;

const KIND = "(stars|premium|gift|steam|neural|game)";
const MATCH = {
  view: /^pp:v$/,
  markup: new RegExp(`^pp:m:${KIND}$`),
  toggle: new RegExp(`^pp:t:${KIND}:([01])$`),
  item: /^pp:i$/,
  margin: /^pp:g$/,
  rounding: new RegExp(`^pp:r:(${ROUNDINGS.join("|")})$`),
  cancel: /^pp:x$/,
};

/** A markup typed by an operator: 0–1000 with at most two decimals, "%" optional ("12,5 %" too). */
export function parsePercent(input: string): Checked<number> {
  const s = input.trim().replace(/\s*%$/, "").replace(",", ".");
  if (!/^\d{1,4}(?:\.\d{1,2})?$/.test(s)) return { ok: false, rule: "op-prices-rule-percent" };
  const n = Number(s);
  if (n < MARKUP_LIMITS.min || n > MARKUP_LIMITS.max) return { ok: false, rule: "op-prices-rule-percent" };
  return { ok: true, value: n };
}

/** A minimum margin in roubles (0–100 000, at most two decimals) → kopecks. */
export function parseMarginRub(input: string): Checked<number> {
  const s = input
    .trim()
    .replace(/\s*(₽|руб\.?|rub)$/i, "")
    .replace(/[\s\u00a0\u202f]/g, "");
  const m = /^(\d{1,6})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) return { ok: false, rule: "op-prices-rule-margin" };
  const kopecks = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  if (kopecks > MAX_MIN_MARGIN_RUB * 100) return { ok: false, rule: "op-prices-rule-margin" };
  return { ok: true, value: kopecks };
}

/**
 * Whether the catalog has the item a ref names, as far as one read tells: gifts and AI items are
 * listed whole; a game package sits under its game and region, so a game ref is taken as typed,
 * and so is any ref while the catalog cannot be read.
 */
async function inCatalog(catalog: CatalogService, ref: string): Promise<boolean> {
  const at = ref.indexOf(":");
  const kind = ref.slice(0, at);
  const id = ref.slice(at + 1);
  try {
    if (kind === "gift") return (await catalog.gifts()).some((g) => g.giftId === id);
    if (kind === "neural") return (await catalog.neural()).some((n) => n.code === id);
  } catch {
    return true;
  }
  return true;
}

/** "<item ref> <percent>" sets an item's own markup; "<item ref> -" removes it. */
export function parseItemMarkup(input: string): Checked<{ ref: string; percent: number | null }> {
  const parts = input.trim().split(/\s+/);
  if (parts.length < 2 || parts.length > 3) return { ok: false, rule: "op-prices-rule-item" };
  const [ref = "", ...rest] = parts;
  if (!ITEM_REF_RE.test(ref)) return { ok: false, rule: "op-prices-rule-item" };
  const value = rest.join(" ");
  if (value === "-") return { ok: true, value: { ref, percent: null } };
  const p = parsePercent(value);
  return p.ok ? { ok: true, value: { ref, percent: p.value } } : { ok: false, rule: "op-prices-rule-item" };
}

/**
 * `/prices` (OPERATOR_IDS, in a private chat): markups per product kind and per catalog item,
 * the minimum margin, the rounding and which products are sold, with the latest changes. Buttons
 * switch products and the rounding at once; markups and the margin are typed (the rule and the
 * question again on a bad answer). Every change is logged with who and when (see
 * orders/price-settings.ts) and applies to the next quote in every process.
 */
export function operatorPricesFeature(deps: {
  config: Pick<Config, "operatorIds">;
  logger: Logger;
  orders: Pick<OrdersApi, "prices">;
}): Composer<BotContext> {
  const log = deps.logger.child({ component: "operator-prices" });
  const operators = new Set(deps.config.operatorIds);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.prices}`), async (ctx, next) => {
    if (isOperator(ctx) && deps.orders.prices) return next();
    log.warn({ userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) }, "prices button refused");
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);
  const store = (): PriceSettingsStore => {
    const s = deps.orders.prices;
    if (!s) throw new Error("price settings are not available");
    return s;
  };

  async function show(ctx: BotContext, edit: boolean, notice?: string): Promise<void> {
    const s = store();
    const [settings, changes] = await Promise.all([s.current(), s.recentChanges(PRICE_CHANGES_SHOWN)]);
    await showView(ctx, renderPrices(settings, changes, tOf(ctx), await localeOf(ctx), notice), edit);
  }

  function logged(ctx: BotContext, change: PriceChange | null): string | undefined {
    if (!change) return ctx.t("op-prices-unchanged");
    log.info(
      { operatorId: change.by, field: change.field, from: change.from, to: change.to },
      "operator changed a price setting",
    );
    return ctx.t("op-prices-saved");
  }

  async function ask(ctx: BotContext, input: PricesInput): Promise<void> {
    await leaveFlows(ctx);
    ctx.session.pricesInput = input;
    await answerQuietly(ctx);
    await showView(ctx, renderPricesQuestion(questionOf(ctx, input), tOf(ctx)), true);
  }

  op.command("prices", async (ctx) => {
    ctx.session.pricesInput = undefined;
    if (!deps.orders.prices) return;
    await show(ctx, false);
  });

  op.callbackQuery(MATCH.view, async (ctx) => {
    await answerQuietly(ctx);
    await show(ctx, true);
  });

  op.callbackQuery(MATCH.cancel, async (ctx) => {
    ctx.session.pricesInput = undefined;
    await answerQuietly(ctx);
    await show(ctx, true, ctx.t("op-prices-cancelled"));
  });

  op.callbackQuery(MATCH.markup, async (ctx) => {
    const kind = kindOf(ctx.match[1]);
    if (kind) await ask(ctx, { ask: "markup", kind, at: Date.now() });
  });
  op.callbackQuery(MATCH.item, (ctx) => ask(ctx, { ask: "item", at: Date.now() }));
  op.callbackQuery(MATCH.margin, (ctx) => ask(ctx, { ask: "margin", at: Date.now() }));

  op.callbackQuery(MATCH.toggle, async (ctx) => {
    const kind = kindOf(ctx.match[1]);
    if (!kind) return;
    ctx.session.pricesInput = undefined;
    const change = await store().setEnabled(ctx.from.id, kind, ctx.match[2] === "1");
    await answerQuietly(ctx, logged(ctx, change));
    await show(ctx, true);
  });

  op.callbackQuery(MATCH.rounding, async (ctx) => {
    const rounding = ROUNDINGS.find((r) => r === ctx.match[1]);
    if (!rounding) return;
    ctx.session.pricesInput = undefined;
    const change = await store().setRounding(ctx.from.id, rounding);
    await answerQuietly(ctx, logged(ctx, change));
    await show(ctx, true);
  });

  op.on("message:text", async (ctx, next) => {
    const input = ctx.session.pricesInput;
    if (!input || !deps.orders.prices) return next();
    const text = ctx.message.text;
    if (text.startsWith("/") || Date.now() - input.at > PRICES_INPUT_TTL_MS) {
      ctx.session.pricesInput = undefined;
      return next();
    }
    const t = tOf(ctx);
    const again = (rule: string) =>
      showView(
        ctx,
        renderPricesQuestion(questionOf(ctx, input), t, ctx.t(rule, { max: MAX_INPUT_CHARS })),
        false,
      );
    if (text.length > MAX_INPUT_CHARS) return again("rule-input-length");
    const by = ctx.from.id;
    let change: PriceChange | null;
    if (input.ask === "markup") {
      const r = parsePercent(text);
      if (!r.ok) return again(r.rule);
      change = await store().setMarkup(by, input.kind, r.value);
    } else if (input.ask === "margin") {
      const r = parseMarginRub(text);
      if (!r.ok) return again(r.rule);
      change = await store().setMinMargin(by, r.value);
    } else {
      const r = parseItemMarkup(text);
      if (!r.ok) return again(r.rule);
      // A mistyped item would be saved and never apply: setting one needs it in the catalog.
      if (r.value.percent !== null && !(await inCatalog(ctx.deps.catalog, r.value.ref)))
        return again("op-prices-rule-item-unknown");
      change = await store().setItemMarkup(by, r.value.ref, r.value.percent);
    }
    ctx.session.pricesInput = undefined;
    await show(ctx, false, logged(ctx, change));
  });
  // A sticker, photo or voice note while a value is awaited: the rule and the question again.
  op.on("message", async (ctx, next) => {
    const input = ctx.session.pricesInput;
    if (!input || !deps.orders.prices || ctx.message.text !== undefined || ctx.message.successful_payment)
      return next();
    if (Date.now() - input.at > PRICES_INPUT_TTL_MS) {
      ctx.session.pricesInput = undefined;
      return next();
    }
    await showView(
      ctx,
      renderPricesQuestion(questionOf(ctx, input), tOf(ctx), ctx.t("op-rule-text-only")),
      false,
    );
  });

  return root;
}

function questionOf(ctx: BotContext, input: PricesInput): string {
  if (input.ask === "markup") {
    return ctx.t("op-prices-ask-markup", { kind: ctx.t(`menu-${input.kind}`), max: MARKUP_LIMITS.max });
  }
  if (input.ask === "margin") return ctx.t("op-prices-ask-margin", { max: MAX_MIN_MARGIN_RUB });
  return ctx.t("op-prices-ask-item");
}
