import { randomUUID } from "node:crypto";
import type { Composer } from "grammy";
import type { Config, Locale } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { WalletResult } from "../../wallet/types.js";
import type { BotContext, Translate, WalletInput } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { formatRub } from "../format/money.js";
import { formatSignedRub, WALLET_PAGE_SIZE } from "../format/wallet.js";
import {
  renderAdjustAmount,
  renderAdjustConfirm,
  renderAdjustNote,
  renderOperatorWallet,
} from "../format/wallet-operator.js";
import { CB } from "../keyboards/callbacks.js";
import { MAX_INPUT_CHARS, parseAdjustNote, parseSignedRub } from "../validate.js";
import { answerQuietly, hasWritten, leaveFlows, localeOf, showView, tOf } from "./shared.js";

const USER_ID = "(\\d{1,15})";
const UUID = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
const MATCH = {
  page: new RegExp(`^${CB.walletOperator}p:${USER_ID}:(\\d{1,7})$`),
  adjust: new RegExp(`^${CB.walletOperator}a:${USER_ID}$`),
  confirm: new RegExp(`^${CB.walletOperator}y:${USER_ID}:${UUID}$`),
  cancel: new RegExp(`^${CB.walletOperator}x$`),
};

/**
 * The operators' side of the wallet: `/wallet <user id>` shows that customer's balance and
 * entries, and Adjust asks for a signed amount in roubles, then a reason, then shows both for
 * confirmation. The adjustment's ref (`adjust:<uuid>`) is fixed when the confirmation is shown,
 * so a double tap on Confirm (or two processes handling it) adjusts once. Only OPERATOR_IDS, in
 * a private chat: a customer's `/wallet <anything>` goes on to their own wallet, and their `ow:`
 * buttons (crafted or not) are answered with nothing done.
 */
export function walletOperatorFeature(deps: {
  config: Pick<Config, "operatorIds">;
  logger: Logger;
}): Composer<BotContext> {
  const log = deps.logger.child({ component: "wallet-operator" });
  const operators = new Set(deps.config.operatorIds);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.walletOperator}`), async (ctx, next) => {
    if (isOperator(ctx)) return next();
    log.warn(
      { userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) },
      "wallet operator button from a non-operator",
    );
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);

  op.command("wallet", async (ctx, next) => {
    const arg = ctx.match.trim();
    if (arg === "") return next(); // the operator's own wallet, as any customer's
    if (!ctx.deps.wallet) {
      await ctx.reply(ctx.t("op-wallet-not-offered"), { parse_mode: "HTML" });
      return;
    }
    const m = /^\d{1,15}$/.exec(arg);
    const userId = Number(arg);
    if (!m || !Number.isSafeInteger(userId) || userId <= 0) {
      await ctx.reply(ctx.t("op-wallet-usage"), { parse_mode: "HTML" });
      return;
    }
    await showWallet(ctx, userId, 0, false);
  });

  const withWallet = op.filter((ctx) => ctx.deps.wallet !== undefined);

  withWallet.callbackQuery(MATCH.page, async (ctx) => {
    await answerQuietly(ctx);
    await showWallet(ctx, Number(ctx.match[1]), Number(ctx.match[2]), true);
  });

  withWallet.callbackQuery(MATCH.adjust, async (ctx) => {
    const userId = Number(ctx.match[1]);
    await leaveFlows(ctx);
    ctx.session.walletInput = { ask: "adjust-amount", at: Date.now(), userId };
    await answerQuietly(ctx);
    const balance = await wallet(ctx).balance(userId);
    await showView(ctx, renderAdjustAmount(userId, balance, tOf(ctx), await localeOf(ctx)), true);
  });

  withWallet.callbackQuery(MATCH.cancel, async (ctx) => {
    ctx.session.walletInput = undefined;
    await answerQuietly(ctx);
    await showView(ctx, { text: ctx.t("op-wallet-cancelled") }, true);
  });

  withWallet.callbackQuery(MATCH.confirm, async (ctx) => {
    const userId = Number(ctx.match[1]);
    const ref = `adjust:${ctx.match[2]}`;
    const input = ctx.session.walletInput;
    const t = tOf(ctx);
    const locale = await localeOf(ctx);
    if (input?.ask !== "adjust-confirm" || input.ref !== ref || input.userId !== userId) {
      // Already applied (a second tap, once the first cleared the question) or abandoned.
      const done = await wallet(ctx).entryByRef(userId, ref);
      await answerQuietly(ctx, ctx.t(done ? "op-wallet-already" : "op-wallet-outdated"), true);
      return;
    }
    const result = await wallet(ctx).adjust(userId, {
      amountKopecks: input.amountKopecks,
      note: input.note,
      by: ctx.from.id,
      ref,
    });
    ctx.session.walletInput = undefined;
    log.info(
      {
        userId,
        operatorId: ctx.from.id,
        amountKopecks: input.amountKopecks,
        ref,
        outcome: outcomeOf(result),
      },
      "operator adjusted a wallet",
    );
    const notice = resultNotice(result, input.amountKopecks, t, locale);
    await answerQuietly(ctx, result.ok && !result.applied ? ctx.t("op-wallet-already") : undefined);
    await showWallet(ctx, userId, 0, true, notice);
  });

  withWallet.on("message:text", async (ctx, next) => {
    const input = ctx.session.walletInput;
    if (!input || input.ask === "topup" || input.ask === "adjust-confirm") return next();
    const t = tOf(ctx);
    const locale = await localeOf(ctx);
    const text = ctx.message.text;
    const tooLong =
      text.length > MAX_INPUT_CHARS ? ctx.t("rule-input-length", { max: MAX_INPUT_CHARS }) : undefined;
    if (input.ask === "adjust-amount") {
      const r = parseSignedRub(text);
      let notice = tooLong ?? (r.ok ? undefined : ctx.t(r.rule));
      const balance = await wallet(ctx).balance(input.userId);
      if (!notice && r.ok && r.value < 0 && -r.value > balance) {
        notice = ctx.t("op-wallet-insufficient", {
          balance: formatRub(balance, locale),
          amount: formatSignedRub(r.value, locale),
        });
      }
      if (notice || !r.ok) {
        await showView(ctx, renderAdjustAmount(input.userId, balance, t, locale, notice), false);
        return;
      }
      ctx.session.walletInput = { ...input, ask: "adjust-note", at: Date.now(), amountKopecks: r.value };
      await showView(ctx, renderAdjustNote(input.userId, r.value, t, locale), false);
      return;
    }
    const r = parseAdjustNote(text);
    if (tooLong || !r.ok) {
      const notice = tooLong ?? (r.ok ? "" : ctx.t(r.rule));
      await showView(ctx, renderAdjustNote(input.userId, input.amountKopecks, t, locale, notice), false);
      return;
    }
    const uuid = randomUUID();
    const confirm: WalletInput = {
      ask: "adjust-confirm",
      at: Date.now(),
      userId: input.userId,
      amountKopecks: input.amountKopecks,
      note: r.value,
      ref: `adjust:${uuid}`,
    };
    ctx.session.walletInput = confirm;
    const balanceKopecks = await wallet(ctx).balance(input.userId);
    const view = renderAdjustConfirm(
      { userId: input.userId, amountKopecks: input.amountKopecks, note: r.value, uuid, balanceKopecks },
      t,
      locale,
    );
    await showView(ctx, view, false);
  });
  // A sticker, photo or voice note while the amount or reason is awaited: the rule and the question again.
  withWallet.on("message", async (ctx, next) => {
    const input = ctx.session.walletInput;
    if (!input || input.ask === "topup" || input.ask === "adjust-confirm") return next();
    if (ctx.message.text !== undefined || ctx.message.successful_payment) return next();
    const t = tOf(ctx);
    const locale = await localeOf(ctx);
    const notice = ctx.t("op-rule-text-only");
    if (input.ask === "adjust-amount") {
      const balance = await wallet(ctx).balance(input.userId);
      await showView(ctx, renderAdjustAmount(input.userId, balance, t, locale, notice), false);
      return;
    }
    await showView(ctx, renderAdjustNote(input.userId, input.amountKopecks, t, locale, notice), false);
  });

  return root;
}

function wallet(ctx: BotContext) {
  const w = ctx.deps.wallet;
  if (!w) throw new Error("wallet operator tools without a wallet");
  return w;
}

async function showWallet(
  ctx: BotContext,
  userId: number,
  offset: number,
  edit: boolean,
  notice?: string,
): Promise<void> {
  let page = await wallet(ctx).entries(userId, { offset, limit: WALLET_PAGE_SIZE });
  if (page.entries.length === 0 && page.total > 0 && offset > 0) {
    offset = Math.floor((page.total - 1) / WALLET_PAGE_SIZE) * WALLET_PAGE_SIZE;
    page = await wallet(ctx).entries(userId, { offset, limit: WALLET_PAGE_SIZE });
  }
  const unknown = !(await hasWritten(ctx, userId));
  const view = renderOperatorWallet(userId, page, offset, tOf(ctx), await localeOf(ctx), notice, unknown);
  await showView(ctx, view, edit);
}

function outcomeOf(r: WalletResult): string {
  return r.ok ? (r.applied ? "applied" : "repeat") : r.refusal;
}

/** What a confirmed adjustment did, as a line above the wallet. */
function resultNotice(r: WalletResult, amountKopecks: number, t: Translate, locale: Locale): string {
  const amount = formatSignedRub(amountKopecks, locale);
  const balance = formatRub(r.balanceKopecks, locale);
  if (r.ok) return t(r.applied ? "op-wallet-done" : "op-wallet-already-done", { amount, balance });
  if (r.refusal === "insufficient") return t("op-wallet-insufficient", { amount, balance });
  if (r.refusal === "balance_limit") return t("op-wallet-limit");
  return t("op-wallet-conflict");
}
