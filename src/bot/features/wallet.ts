import type { Composer, NextFunction } from "grammy";
import type { BotContext } from "../context.js";
import { WALLET_INPUT_TTL_MS } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { topUpRails } from "../format/rails.js";
import {
  renderTopUpAmounts,
  renderTopUpQuestion,
  renderTopUpRails,
  renderWallet,
  topUpBounds,
  WALLET_PAGE_SIZE,
} from "../format/wallet.js";
import { CB } from "../keyboards/callbacks.js";
import { LIMITS, MAX_INPUT_CHARS, parseWholeNumber } from "../validate.js";
import { answerQuietly, leaveFlows, localeOf, showView, tOf } from "./shared.js";

/**
 * The customer's wallet: /wallet shows the balance and the latest entries with paging, and
 * "Top up" leads to an amount (presets or a typed whole number of roubles) and then one button
 * per top-up rail (`tu:<rail>:<kopecks>`, handled by the payments). Buttons carry everything
 * they need, and the one typed question is remembered in the session (`walletInput`), so all of
 * it survives a restart and works on any process. Without a wallet in the deps (CHECKOUT does not
 * list `wallet`) /wallet says the wallet is not available and its buttons do nothing.
 */
export function walletFeature(): Composer<BotContext> {
  const c = new FlatComposer<BotContext>();
  const w = c.filter((ctx) => ctx.chat?.type === "private");

  w.command("wallet", async (ctx) => {
    if (!ctx.deps.wallet) {
      await ctx.reply(ctx.t("wallet-not-offered"), { parse_mode: "HTML" });
      return;
    }
    await showWallet(ctx, 0, false);
  });
  c.command("wallet", (ctx) => ctx.reply(ctx.t("wallet-private-only"), { parse_mode: "HTML" }));

  const walletButton = (pattern: string) => new RegExp(`^${CB.wallet}${pattern}$`);
  const buttons = w.filter((ctx) => ctx.deps.wallet !== undefined);

  // The main menu's "Wallet" button: the same view as /wallet, in a new message.
  buttons.callbackQuery(`${CB.menu}wallet`, async (ctx) => {
    await answerQuietly(ctx);
    await showWallet(ctx, 0, false);
  });

  // At most 7 digits, as the other lists: a forged huge offset is not a page.
  buttons.callbackQuery(walletButton("p:(\\d{1,7})"), async (ctx) => {
    await answerQuietly(ctx);
    await showWallet(ctx, Number(ctx.match[1]), true);
  });

  buttons.callbackQuery(walletButton("t"), async (ctx) => {
    await answerQuietly(ctx);
    await showView(ctx, renderTopUpAmounts(tOf(ctx), await localeOf(ctx)), true);
  });

  buttons.callbackQuery(walletButton("a:(\\d{1,9})"), async (ctx) => {
    const kopecks = Number(ctx.match[1]);
    const { min, max } = LIMITS.topUpRub;
    if (kopecks % 100 !== 0 || kopecks < min * 100 || kopecks > max * 100) {
      await answerQuietly(ctx, ctx.t("button-outdated"));
      return;
    }
    await answerQuietly(ctx);
    await showRails(ctx, kopecks, true);
  });

  buttons.callbackQuery(walletButton("o"), async (ctx) => {
    // A product flow in progress would take the typed answer: it is left first.
    await leaveFlows(ctx);
    ctx.session.walletInput = { ask: "topup", at: Date.now() };
    await answerQuietly(ctx);
    await showView(ctx, renderTopUpQuestion(tOf(ctx), await localeOf(ctx)), true);
  });

  buttons.callbackQuery(walletButton("x"), async (ctx) => {
    ctx.session.walletInput = undefined;
    await answerQuietly(ctx);
    await showWallet(ctx, 0, true);
  });

  buttons.on("message:text", async (ctx, next) => {
    if (ctx.session.walletInput?.ask !== "topup") return next();
    const locale = await localeOf(ctx);
    const text = ctx.message.text;
    const r =
      text.length > MAX_INPUT_CHARS
        ? ({ ok: false, rule: "rule-input-length", vars: { max: MAX_INPUT_CHARS } } as const)
        : parseWholeNumber(text, LIMITS.topUpRub.min, LIMITS.topUpRub.max);
    if (!r.ok) {
      const notice = ctx.t(r.rule, { ...r.vars, ...topUpBounds(locale) });
      await showView(ctx, renderTopUpQuestion(tOf(ctx), locale, notice), false);
      return;
    }
    ctx.session.walletInput = undefined;
    await showRails(ctx, r.value * 100, false);
  });
  // A sticker, photo or voice note instead of the amount: the rule and the question again.
  buttons.on("message", async (ctx, next) => {
    if (ctx.session.walletInput?.ask !== "topup" || ctx.message.text !== undefined) return next();
    if (ctx.message.successful_payment) return next();
    const notice = ctx.t("flow-send-text");
    await showView(ctx, renderTopUpQuestion(tOf(ctx), await localeOf(ctx), notice), false);
  });

  return c;
}

/** The customer's wallet page at `offset` (the last page when the offset is past the end). */
async function showWallet(ctx: BotContext, offset: number, edit: boolean): Promise<void> {
  const wallet = ctx.deps.wallet;
  const userId = ctx.from?.id;
  if (!wallet || userId === undefined) return;
  let page = await wallet.entries(userId, { offset, limit: WALLET_PAGE_SIZE });
  if (page.entries.length === 0 && page.total > 0 && offset > 0) {
    offset = Math.floor((page.total - 1) / WALLET_PAGE_SIZE) * WALLET_PAGE_SIZE;
    page = await wallet.entries(userId, { offset, limit: WALLET_PAGE_SIZE });
  }
  const canTopUp = topUpRails(ctx.deps.config.checkout).length > 0;
  await showView(
    ctx,
    renderWallet(page, offset, { t: tOf(ctx), locale: await localeOf(ctx), canTopUp }),
    edit,
  );
}

async function showRails(ctx: BotContext, amountKopecks: number, edit: boolean): Promise<void> {
  const { config } = ctx.deps;
  const view = renderTopUpRails(amountKopecks, topUpRails(config.checkout), {
    t: tOf(ctx),
    locale: await localeOf(ctx),
    starPriceRub: config.starPriceRub,
  });
  await showView(ctx, view, edit);
}

/**
 * Forgets a wallet question that is no longer being answered: after a command, a button other
 * than the wallet's, or when it is older than {@link WALLET_INPUT_TTL_MS}. Installed right after
 * the session, before anything that could take the update.
 */
export function forgetWalletInput(ctx: BotContext, next: NextFunction): Promise<void> {
  if (ctx.chat !== undefined) {
    const input = ctx.session.walletInput;
    if (input) {
      const data = ctx.callbackQuery?.data;
      const command =
        ctx.message?.entities?.[0]?.type === "bot_command" && ctx.message.entities[0].offset === 0;
      const otherButton =
        data !== undefined && !data.startsWith(CB.wallet) && !data.startsWith(CB.walletOperator);
      if (command || otherButton || Date.now() - input.at > WALLET_INPUT_TTL_MS) {
        ctx.session.walletInput = undefined;
      }
    }
  }
  return next();
}
