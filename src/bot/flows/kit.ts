import type { I18n } from "@grammyjs/i18n";
import type { InlineKeyboard } from "grammy";
import type { CatalogService } from "../../catalog/service.js";
import type { Config, Locale, ProductKind } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import { ruleFor } from "../../orders/price-settings.js";
import { priceKopecks, rubToKopecks, starsForPrice } from "../../orders/pricing.js";
import type { Customer, OrderItem } from "../../orders/types.js";
import type { BotContext, Translate } from "../context.js";
import { formatRub, formatStars } from "../format/money.js";
import { translator } from "../i18n.js";
import { mainMenu, productsOnSale } from "../keyboards/main-menu.js";
import { isNotModified } from "../telegram-errors.js";
import type { FlowRecord, Waiting } from "./flow-state.js";
import { questionKeyboard, readUpdate, signature } from "./question.js";
import { quoteAndShow } from "./quote.js";
import type { Answer, Question, Step } from "./steps.js";

/**
 * The product flows' engine. A flow is a list of steps; each step asks one question through
 * {@link FlowRun.ask}, which handles Back, Cancel, paging, stale buttons and bad input (the rule
 * it broke, then the same question again). After the last step the flow quotes through the
 * orders service and shows the order card (quote.ts).
 *
 * Where the flow is and what was answered live in the chat's session ({@link FlowRecord}). An
 * update that answers the question on screen runs the current step again from its start (its
 * catalog read comes from the catalog's cache), and `ask` hands the step the answer instead of
 * asking; the flow then goes on until the next question is shown, where `ask` stops it
 * ({@link Suspended}) and the record is written. Nothing else is kept: no log of updates to
 * replay, so an update inside a flow costs about what a menu button does. A question's keyboard
 * and the reading of an update against it are in question.ts.
 */

/**
 * A flow never takes more than this many updates: a bound on a session gone astray, far above
 * any customer's way through (bad answers included, which are always asked again).
 */
export const MAX_WAITS = 1000;
/** Catalog reads that fail in a row before a flow gives up on them. */
const MAX_LOAD_FAILS = 3;

export interface FlowDeps {
  config: Config;
  logger: Logger;
  orders: OrdersApi;
  catalog: CatalogService;
  i18n: I18n<BotContext>;
}

/** A product flow: its steps (which may depend on the answers so far), and the order item the answers make. */
export interface FlowDef<S> {
  kind: ProductKind;
  initial(): S;
  steps(state: S): Step<S>[];
  build(state: S): OrderItem;
}

/** Thrown by `ask` once its question is on screen: the flow stops here until the customer answers. */
export class Suspended extends Error {
  constructor() {
    super("the flow waits for the customer's answer");
  }
}
/** One instance, thrown at every question (no stack captured per update). */
const SUSPENDED = new Suspended();

export class FlowRun {
  readonly t: Translate;
  readonly locale: Locale;
  readonly kind: ProductKind;
  /** A line shown above the next question (a broken rule, a refused quote…). */
  notice: string | undefined;
  /** Message the next `show` replaces (the one whose button was pressed). */
  private editId: number | undefined;
  /** The update being answered, until a question takes it. */
  private incoming: BotContext | undefined;
  /** The button press being handled; answered once its result is on screen. */
  private pendingAnswer: string | undefined;

  constructor(
    readonly ctx: BotContext,
    readonly rec: FlowRecord,
    readonly def: FlowDef<unknown>,
    readonly deps: FlowDeps,
  ) {
    this.t = translator(deps.i18n, rec.locale);
    this.locale = rec.locale;
    this.kind = rec.kind;
  }

  /** The message the next `show` replaces, if any (the one whose button was pressed). */
  get replacing(): number | undefined {
    return this.editId;
  }

  get chatId(): number {
    const id = this.ctx.chat?.id ?? this.ctx.from?.id;
    if (id === undefined) throw new Error("flow without a chat");
    return id;
  }

  /** Starts the flow: its first question replaces the message whose button started it (the menu). */
  async start(): Promise<void> {
    this.editId = this.ctx.callbackQuery?.message?.message_id;
    await this.drive();
  }

  /** Takes the customer's answer to the question on screen (the dispatcher checked it is one). */
  async resume(): Promise<void> {
    const query = this.ctx.callbackQuery;
    if (query) {
      this.pendingAnswer = query.id;
      this.editId = query.message?.message_id;
    }
    this.rec.waits++;
    if (this.rec.waits > MAX_WAITS) {
      await this.show(this.t("flow-too-long"));
      this.leave();
      return;
    }
    this.incoming = this.ctx;
    await this.drive();
  }

  /** Runs the steps from the current one until a question is on screen or the flow ends. */
  private async drive(): Promise<void> {
    try {
      await this.steps();
      this.leave();
    } catch (err) {
      // Any other error leaves the press unanswered, for the error boundary to answer it.
      if (!(err instanceof Suspended)) throw err;
      this.rec.at = Date.now();
      this.ctx.session.flow = this.rec;
    }
    // A press nothing on screen answered (the flow ended without showing anything).
    await this.answerPending();
  }

  private leave(): void {
    this.ctx.session.flow = undefined;
  }

  /** Whether the update in hand answers this step's question `key`. */
  resuming(key: string): boolean {
    const w = this.rec.ask;
    return this.incoming !== undefined && w !== undefined && w.step === this.rec.step && w.key === key;
  }

  private async steps(): Promise<void> {
    const rec = this.rec;
    const state = rec.state;
    for (;;) {
      const list = this.def.steps(state);
      if (rec.step < 0) return this.backToMenu();
      if (rec.step >= list.length) {
        const r = await quoteAndShow(this, this.def.build(state));
        if (r.type === "done" || r.type === "abort") return;
        if (r.type === "cancel") return this.cancelled();
        if (r.type === "back") rec.step = list.length - 1;
        else if (r.type === "field") {
          const root = r.field.split(".")[0] ?? "";
          const at = list.findIndex((s) => s.fields?.includes(r.field) || s.fields?.includes(root));
          rec.step = at >= 0 ? at : list.length - 1;
        }
        continue;
      }
      const step = list[rec.step];
      if (!step) return;
      // Checked when a step is reached, not again for each answer to it.
      const answering = this.incoming !== undefined && rec.ask?.step === rec.step;
      if (!answering && !(await this.onSale())) {
        await this.show(this.t("product-unavailable-flow"));
        return;
      }
      const res = await step.run(this, state);
      if (res === "next") rec.step++;
      else if (res === "back") rec.step--;
      else if (res === "cancel") return this.cancelled();
      else return;
    }
  }

  /**
   * Sends (or edits into place) one message; falls back to sending when the edit is impossible.
   * The button press that led here is answered once the message is shown (a message that could
   * not be shown leaves it to the error boundary, which says so on the button).
   */
  async show(text: string, keyboard?: InlineKeyboard): Promise<number> {
    const other = { parse_mode: "HTML" as const, reply_markup: keyboard };
    const target = this.editId;
    this.editId = undefined;
    const chatId = this.chatId;
    const api = this.ctx.api;
    let shown: number | undefined;
    if (target !== undefined) {
      try {
        await api.editMessageText(chatId, target, text, other);
        shown = target;
      } catch (err) {
        if (isNotModified(err)) shown = target;
        else this.deps.logger.debug({ err }, "could not edit the flow message; sending a new one");
      }
    }
    shown ??= (await api.sendMessage(chatId, text, other)).message_id;
    await this.answerPending();
    return shown;
  }

  /** Stops the spinner of a button press that changed nothing on screen. */
  private async answerPending(): Promise<void> {
    const id = this.pendingAnswer;
    this.pendingAnswer = undefined;
    if (id !== undefined) await this.ctx.api.answerCallbackQuery(id).catch(() => undefined);
  }

  /**
   * Asks one question (`key` tells a step's questions apart): returns the answer when the update
   * in hand is one (a valid value, Back or Cancel);
   * otherwise shows the question and stops the flow until the next update. `keep` is stored with
   * the question on screen (a question the flow cannot build again keeps itself).
   */
  async ask<T>(q: Question<T>, key = "q", keep?: Pick<Waiting, "q" | "refused">): Promise<Answer<T>> {
    const w = this.rec.ask;
    if (this.resuming(key) && w) {
      const update = this.incoming;
      this.incoming = undefined;
      const a = await this.answer(q, w, update);
      if (a) return a;
      return this.render(q, w);
    }
    return this.present(q, key, keep);
  }

  /**
   * Shows a new question and stops the flow until the next update (an update in hand that has
   * not been taken was meant for a question the flow no longer asks).
   */
  present<T>(q: Question<T>, key = "q", keep?: Pick<Waiting, "q" | "refused">): Promise<never> {
    const rec = this.rec;
    const choices = q.choices ?? [];
    this.incoming = undefined;
    const fresh: Waiting = { step: rec.step, key, nonce: ++rec.nonce, page: 0, ...keep };
    if (choices.length > 0) fresh.sig = signature(choices);
    rec.ask = fresh;
    return this.render(q, fresh);
  }

  /** What an update says to the question on screen: an answer, or nothing (the question is shown again). */
  private async answer<T>(
    q: Question<T>,
    w: Waiting,
    update: BotContext | undefined,
  ): Promise<Answer<T> | undefined> {
    const data = update?.callbackQuery?.data;
    const r = readUpdate(q, w.sig, { data, text: update?.message?.text }, this.t);
    switch (r.type) {
      case "answer":
        return r.answer;
      case "page":
        w.page = r.page;
        return undefined;
      case "changed":
        w.sig = r.sig;
        w.page = 0;
        return undefined;
      case "none":
        this.editId = undefined;
        await this.answerPending();
        throw SUSPENDED;
      case "bad":
        this.editId = undefined;
        // The rule it broke and the question again, however many times: nothing else changes.
        this.notice = r.notice;
        return undefined;
    }
  }

  /** Shows the question (the page on screen, the notice above it) and stops the flow. */
  private async render<T>(q: Question<T>, w: Waiting): Promise<never> {
    const text = this.notice ? `${this.notice}\n\n${q.text}` : q.text;
    this.notice = undefined;
    await this.show(text, questionKeyboard(q, w.page, w.nonce, this.t));
    throw SUSPENDED;
  }

  /**
   * Reads a catalog (the catalog service keeps it for a moment, so a step that runs again reads
   * memory); on failure offers Retry (a few times) or gives up.
   */
  async load<T>(read: (catalog: CatalogService) => Promise<T>): Promise<T | undefined> {
    const rec = this.rec;
    const retry = (): Question<string> => ({
      text: this.t("catalog-unavailable"),
      choices: [{ label: this.t("btn-retry"), value: "retry" }],
      back: false,
    });
    // The answer to the Retry question on screen comes before reading again: Cancel is not a retry.
    if (this.resuming("retry")) {
      const a = await this.ask(retry(), "retry");
      if (a.type !== "value") {
        rec.loadFails = 0;
        if (a.type === "cancel") await this.cancelled();
        return undefined;
      }
    }
    for (;;) {
      try {
        // Picker prices follow the operators' settings (kept in memory for a moment).
        await this.deps.orders.prices?.cached();
        const value = await read(this.deps.catalog);
        rec.loadFails = 0;
        return value;
      } catch (err) {
        this.deps.logger.warn({ err }, "catalog unavailable in a flow");
      }
      rec.loadFails = (rec.loadFails ?? 0) + 1;
      if (rec.loadFails >= MAX_LOAD_FAILS) {
        rec.loadFails = 0;
        await this.show(this.t("catalog-unavailable-final"));
        return undefined;
      }
      await this.present(retry(), "retry");
    }
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
    return (await productsOnSale(config, orders)).includes(this.kind);
  }

  async cancelled(): Promise<void> {
    await this.show(this.t("flow-cancelled"));
  }

  async backToMenu(): Promise<void> {
    const { config, orders } = this.deps;
    const products = await productsOnSale(config, orders);
    const menu = mainMenu(
      { products, referralPercent: config.referralPercent, checkout: config.checkout },
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
}
