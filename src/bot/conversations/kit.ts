import type { I18n } from "@grammyjs/i18n";
import { InlineKeyboard } from "grammy";
import type { InlineKeyboardButton } from "grammy/types";
import type { CatalogService } from "../../catalog/service.js";
import type { Config, Locale, ProductKind } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import { ruleFor } from "../../orders/price-settings.js";
import { priceKopecks, rubToKopecks, starsForPrice } from "../../orders/pricing.js";
import type { Customer, OrderItem } from "../../orders/types.js";
import type { BotContext, FlowContext, FlowConversation, Translate } from "../context.js";
import { formatRub, formatStars } from "../format/money.js";
import { translator } from "../i18n.js";
import { FLOW_PREFIX } from "../keyboards/callbacks.js";
import { mainMenu, productsOnSale } from "../keyboards/main-menu.js";
import { isNotModified } from "../telegram-errors.js";
import { MAX_INPUT_CHARS } from "../validate.js";
import { quoteAndShow } from "./quote.js";
import type { Answer, Loaded, Question, Step } from "./steps.js";

/**
 * Building blocks shared by the product flows. A flow is a list of steps; each step asks one
 * question through {@link FlowRun.ask}, which handles Back, Cancel, paging, stale buttons and
 * bad input (the rule it broke, then the same question again). After the last step the flow
 * quotes through the orders service and shows the order card (quote.ts).
 *
 * Everything that differs between replays (catalog reads, quotes, ids, session writes) goes
 * through `conversation.external`; the number of waits per conversation is bounded. So does every
 * Bot API call, made with the outside context's Api (`octx.api`): a call through the flow's own
 * context would be a logged step of its own, repeated at every replay.
 */

/** Bump when a flow's questions, their order or what its steps log change: stored conversations of an older version are dropped. */
export const FLOWS_VERSION = 4;

/** A conversation never waits for more than this many updates (bounds the replay log). */
export const MAX_WAITS = 80;
/** Bad answers in a row to one question before the flow gives up. */
export const MAX_BAD_INPUTS = 5;

export interface FlowDeps {
  config: Config;
  logger: Logger;
  orders: OrdersApi;
  catalog: CatalogService;
  i18n: I18n<BotContext>;
}

/** Arguments given to `ctx.conversation.enter`. */
export interface FlowArgs {
  locale: Locale;
}

export class FlowRun {
  readonly t: Translate;
  /** The latest context (its `api` belongs to the current update). */
  ctx: FlowContext;
  /** Message the next question replaces (the one whose button was pressed). */
  private editId: number | undefined;

  /** The message the next `show` replaces, if any (the one whose button was pressed). */
  get replacing(): number | undefined {
    return this.editId;
  }
  /** A line shown above the next question (a broken rule, a refused quote…). */
  notice: string | undefined;
  private asks = 0;
  private waits = 0;
  /** The button press being handled; answered once its result is on screen. */
  private pendingAnswer: FlowContext | undefined;

  constructor(
    readonly conversation: FlowConversation,
    ctx: FlowContext,
    readonly deps: FlowDeps,
    readonly locale: Locale,
    readonly kind: ProductKind,
  ) {
    this.ctx = ctx;
    this.t = translator(deps.i18n, locale);
    // Entered from a main-menu button: the first question replaces the menu.
    this.editId = ctx.callbackQuery?.message?.message_id;
  }

  get chatId(): number {
    const id = this.ctx.chat?.id ?? this.ctx.from?.id;
    if (id === undefined) throw new Error("flow without a chat");
    return id;
  }

  /**
   * Sends (or edits into place) one message; falls back to sending when the edit is impossible.
   * The button press that led here is answered once the message is shown.
   */
  async show(text: string, keyboard?: InlineKeyboard): Promise<number> {
    const other = { parse_mode: "HTML" as const, reply_markup: keyboard };
    const target = this.editId;
    this.editId = undefined;
    const chatId = this.chatId;
    const logger = this.deps.logger;
    const answering = this.pendingAnswer?.callbackQuery?.id;
    this.pendingAnswer = undefined;
    // Sent outside the flow's replay log, which keeps only the message id (a whole Message in the
    // log is about a kilobyte, read and written back at every step); the press is answered in the
    // same step, so a replay of this question repeats one logged step, not two.
    return this.conversation.external(async (octx) => {
      try {
        if (target !== undefined) {
          try {
            await octx.api.editMessageText(chatId, target, text, other);
            return target;
          } catch (err) {
            if (isNotModified(err)) return target;
            logger.debug({ err }, "could not edit the flow message; sending a new one");
          }
        }
        const sent = await octx.api.sendMessage(chatId, text, other);
        return sent.message_id;
      } finally {
        if (answering !== undefined) await octx.api.answerCallbackQuery(answering).catch(() => undefined);
      }
    });
  }

  /** Stops the spinner of a button press that changed nothing on screen. */
  private async answerPending(): Promise<void> {
    const id = this.pendingAnswer?.callbackQuery?.id;
    this.pendingAnswer = undefined;
    if (id === undefined) return;
    await this.conversation.external(async (octx) => {
      await octx.api.answerCallbackQuery(id).catch(() => undefined);
    });
  }

  /** Asks one question and waits for a valid answer, Back, or Cancel. */
  async ask<T>(q: Question<T>): Promise<Answer<T>> {
    const nonce = ++this.asks;
    const choices = q.choices ?? [];
    const pageSize = q.pageSize ?? choices.length;
    const pages = Math.max(1, Math.ceil(choices.length / Math.max(1, pageSize)));
    let page = 0;
    let bad = 0;
    const cb = (action: string) => `${FLOW_PREFIX}${nonce}:${action}`;

    const render = async () => {
      const cols = Math.max(1, q.columns ?? 1);
      const start = page * pageSize;
      const rows: InlineKeyboardButton[][] = [];
      choices.slice(start, start + pageSize).forEach((c, i) => {
        if (i % cols === 0) rows.push([]);
        rows[rows.length - 1]?.push(InlineKeyboard.text(c.label, cb(`c${start + i}`)));
      });
      if (pages > 1) {
        rows.push([
          InlineKeyboard.text(page > 0 ? "‹" : "·", cb(page > 0 ? `p${page - 1}` : "n")),
          InlineKeyboard.text(`${page + 1}/${pages}`, cb("n")),
          InlineKeyboard.text(page < pages - 1 ? "›" : "·", cb(page < pages - 1 ? `p${page + 1}` : "n")),
        ]);
      }
      const nav = [InlineKeyboard.text(this.t("btn-cancel"), cb("x"))];
      if (q.back !== false) nav.unshift(InlineKeyboard.text(this.t("btn-back"), cb("b")));
      rows.push(nav);
      const kb = InlineKeyboard.from(rows);
      const text = this.notice ? `${this.notice}\n\n${q.text}` : q.text;
      this.notice = undefined;
      await this.show(text, kb);
    };

    await render();
    for (;;) {
      if (this.waits >= MAX_WAITS) {
        await this.show(this.t("flow-too-long"));
        return { type: "abort" };
      }
      const c = await this.conversation.wait();
      this.waits++;
      this.ctx = c;
      const data = c.callbackQuery?.data;
      if (data !== undefined) {
        const m = /^f:(\d+):(.*)$/.exec(data);
        // Buttons of other questions, cards and menus are handled outside the flow.
        if (!m || Number(m[1]) !== nonce) await this.conversation.skip({ next: true });
        this.pendingAnswer = c;
        const action = m?.[2] ?? "";
        this.editId = c.callbackQuery?.message?.message_id;
        if (action === "b") return { type: "back" };
        if (action === "x") return { type: "cancel" };
        if (action.startsWith("p")) {
          page = Math.min(pages - 1, Math.max(0, Number(action.slice(1)) || 0));
          await render();
          continue;
        }
        if (action.startsWith("c")) {
          const choice = choices[Number(action.slice(1))];
          if (choice) return { type: "value", value: choice.value };
        }
        // "n" (page counter) or an unknown choice: nothing to do.
        this.editId = undefined;
        await this.answerPending();
        continue;
      }
      const msg = c.message;
      if (!msg || msg.successful_payment) await this.conversation.skip({ next: true });
      this.editId = undefined;
      if (msg?.text !== undefined && msg.text.length > MAX_INPUT_CHARS) {
        // Refused before any parser sees it.
        this.notice = `⚠️ ${this.t("rule-input-length", { max: MAX_INPUT_CHARS })}`;
      } else if (msg?.text !== undefined && q.parse) {
        const r = q.parse(msg.text);
        if (r.ok) return { type: "value", value: r.value };
        this.notice = `⚠️ ${this.t(r.rule, r.vars)}`;
      } else {
        this.notice = `⚠️ ${this.t(msg?.text !== undefined ? "flow-use-buttons" : "flow-send-text")}`;
      }
      if (++bad >= MAX_BAD_INPUTS) {
        await this.show(`${this.notice}\n\n${this.t("flow-too-many-attempts")}`);
        return { type: "abort" };
      }
      await render();
    }
  }

  /** Reads a catalog through `external`; on failure offers Retry (a few times) or gives up. */
  async load<T>(read: (catalog: CatalogService) => Promise<T>): Promise<T | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await this.conversation.external(async (): Promise<Loaded<T>> => {
        try {
          // Picker prices follow the operators' settings (kept in memory for a moment).
          await this.deps.orders.prices?.cached();
          return { ok: true, value: await read(this.deps.catalog) };
        } catch (err) {
          this.deps.logger.warn({ err }, "catalog unavailable in a flow");
          return { ok: false };
        }
      });
      if (r.ok) return r.value;
      const a = await this.ask({
        text: this.t("catalog-unavailable"),
        choices: [{ label: this.t("btn-retry"), value: "retry" }],
        back: false,
      });
      if (a.type !== "value") {
        if (a.type === "cancel") await this.cancelled();
        return undefined;
      }
    }
    await this.show(this.t("catalog-unavailable-final"));
    return undefined;
  }

  /**
   * Customer price of a wholesale amount, in the first rail's currency (for pickers): the flow's
   * product kind, or the catalog item `ref` when it has its own markup (see orders/price-settings.ts).
   * Uses the settings {@link load} refreshed; the quote computes the price charged afresh.
   */
  price(wholesaleRub: number, ref?: string): string {
    const { config, orders } = this.deps;
    const rule = orders.prices
      ? ruleFor(orders.prices.peek(), this.kind, ref)
      : { markupPercent: config.priceMarkupPercent, minMarginKopecks: 0, rounding: "rub" as const };
    const kopecks = priceKopecks(rubToKopecks(wholesaleRub), rule);
    if (this.deps.config.checkout[0] === "stars")
      return formatStars(starsForPrice(kopecks, this.deps.config.starPriceRub), this.locale);
    return formatRub(kopecks, this.locale);
  }

  /** Whether the operators still sell this flow's product (read through the short cache). */
  private async onSale(): Promise<boolean> {
    const { config, orders } = this.deps;
    return this.conversation.external(async () => (await productsOnSale(config, orders)).includes(this.kind));
  }

  async cancelled(): Promise<void> {
    await this.show(this.t("flow-cancelled"));
  }

  async backToMenu(): Promise<void> {
    const { config, orders } = this.deps;
    const products = await this.conversation.external(() => productsOnSale(config, orders));
    const menu = mainMenu(
      { products, referralPercent: this.deps.config.referralPercent, checkout: this.deps.config.checkout },
      this.t,
    );
    await this.show(menu.text, menu.keyboard);
  }

  customer(): Customer {
    const from = this.ctx.from;
    if (!from) throw new Error("flow without a user");
    return {
      userId: from.id,
      chatId: this.chatId,
      username: from.username,
      firstName: from.first_name,
      locale: this.locale,
    };
  }

  /** Runs the steps with Back/Cancel navigation, then quotes. */
  async run<S>(state: S, steps: (s: S) => Step<S>[], build: (s: S) => OrderItem): Promise<void> {
    let i = 0;
    for (;;) {
      const list = steps(state);
      if (i < 0) return this.backToMenu();
      if (i >= list.length) {
        const r = await quoteAndShow(this, build(state));
        if (r.type === "done" || r.type === "abort") return;
        if (r.type === "cancel") return this.cancelled();
        if (r.type === "back") i = list.length - 1;
        else if (r.type === "field") {
          const root = r.field.split(".")[0] ?? "";
          const at = list.findIndex((s) => s.fields?.includes(r.field) || s.fields?.includes(root));
          i = at >= 0 ? at : list.length - 1;
        }
        continue;
      }
      const step = list[i];
      if (!step) return;
      if (!(await this.onSale())) {
        await this.show(this.t("product-unavailable-flow"));
        return;
      }
      const res = await step.run(this, state);
      if (res === "next") i++;
      else if (res === "back") i--;
      else if (res === "cancel") return this.cancelled();
      else return;
    }
  }
}
