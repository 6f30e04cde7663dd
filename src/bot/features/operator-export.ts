import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Composer, InlineKeyboard, InputFile } from "grammy";
import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { OrdersApi } from "../../orders/api.js";
import { ExportTooLargeError, writeOrdersCsv } from "../../orders/export.js";
import {
  EXPORT_MAX_DAYS,
  EXPORT_PRESETS,
  type ExportPeriod,
  type ExportPreset,
  exportFileName,
  type PeriodError,
  parsePeriod,
  presetPeriod,
} from "../../orders/export-period.js";
import type { BotContext, Translate } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import { escapeHtml } from "../format/html.js";
import { formatNumber } from "../format/money.js";
import { clip } from "../format/operator.js";
import { CB } from "../keyboards/callbacks.js";
import { answerQuietly, localeOf, tOf } from "./shared.js";

const PRESET_MATCH = new RegExp(`^${CB.operatorExport}(${EXPORT_PRESETS.join("|")})$`);

/** The period buttons: Today / Last 7 days / Last 30 days / This month / Last month. */
export function exportKeyboard(t: Translate): InlineKeyboard {
  const b = (preset: ExportPreset) =>
    InlineKeyboard.text(t(`op-export-${preset}`), CB.operatorExport + preset);
  return InlineKeyboard.from([[b("today")], [b("7d"), b("30d")], [b("this-month"), b("last-month")]]);
}

/** The rule an operator's typed period broke, with an example. */
function periodRule(err: PeriodError, t: Translate): string {
  switch (err.error) {
    case "bad_date":
      return t("op-export-bad-date", { value: escapeHtml(clip(err.value, 40)) });
    case "too_many":
      return t("op-export-too-many");
    case "reversed":
      return t("op-export-reversed");
    case "too_long":
      return t("op-export-too-long", { max: EXPORT_MAX_DAYS });
  }
}

/**
 * `/export`: the orders created in a period as a CSV document (see orders/export.ts for the
 * columns). `/export` alone offers preset periods as buttons; `/export 2026-11-01 2026-11-23`
 * names whole UTC days, both included. A bad date, a reversed or too long period gets the rule
 * and an example, and nothing is sent.
 *
 * The file is written to a temporary file first (bounded memory: the orders are read a few
 * hundred at a time, see orders/period-orders.ts), then uploaded and deleted; past Telegram's
 * 50 MB upload limit the operator is asked for a shorter period. One export per operator at a
 * time in this process: a second tap meanwhile is told to wait.
 *
 * Only OPERATOR_IDS, in a private chat: anyone else's `/export` goes on to the unknown-command
 * answer, and their `ox:` buttons are answered with nothing done.
 */
export function operatorExportFeature(deps: {
  config: Pick<Config, "operatorIds" | "defaultLocale">;
  logger: Logger;
  orders: Pick<OrdersApi, "streamCreatedBetween">;
  now?: () => number;
  /** Where the file is written before the upload (default: the system's temporary directory). */
  tmpDir?: string;
}): Composer<BotContext> {
  const log = deps.logger.child({ component: "operator-export" });
  const now = deps.now ?? Date.now;
  const operators = new Set(deps.config.operatorIds);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";
  const running = new Set<number>();

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.operatorExport}`), async (ctx, next) => {
    if (isOperator(ctx)) return next();
    log.warn(
      { userId: ctx.from.id, data: ctx.callbackQuery.data.slice(0, 64) },
      "export button from a non-operator",
    );
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);

  async function send(ctx: BotContext, period: ExportPeriod): Promise<void> {
    const operatorId = ctx.from?.id ?? 0;
    if (running.has(operatorId)) {
      await ctx.reply(ctx.t("op-export-busy"));
      return;
    }
    running.add(operatorId);
    const file = join(deps.tmpDir ?? tmpdir(), `shopbot-export-${randomUUID()}.csv`);
    const started = now();
    try {
      await ctx.replyWithChatAction("upload_document").catch(() => undefined);
      const rows = await writeOrdersCsv(
        deps.orders.streamCreatedBetween(period.fromMs, period.toMs),
        createWriteStream(file),
      );
      const { size } = await stat(file);
      const locale = await localeOf(ctx, deps.config.defaultLocale);
      await ctx.replyWithDocument(new InputFile(file, exportFileName(period)), {
        caption: ctx.t("op-export-caption", {
          rows: formatNumber(rows, locale),
          from: period.from,
          to: period.to,
        }),
        parse_mode: "HTML",
      });
      log.info(
        { operatorId, from: period.from, to: period.to, rows, bytes: size, ms: now() - started },
        "orders exported",
      );
    } catch (err) {
      if (!(err instanceof ExportTooLargeError)) throw err;
      log.warn({ operatorId, from: period.from, to: period.to }, "export over the upload limit");
      await ctx.reply(ctx.t("op-export-too-large", { from: period.from, to: period.to }), {
        parse_mode: "HTML",
      });
    } finally {
      running.delete(operatorId);
      await rm(file, { force: true }).catch(() => undefined);
    }
  }

  op.command("export", async (ctx) => {
    const arg = ctx.match.trim();
    if (arg === "") {
      await ctx.reply(ctx.t("op-export-choose", { max: EXPORT_MAX_DAYS }), {
        parse_mode: "HTML",
        reply_markup: exportKeyboard(tOf(ctx)),
      });
      return;
    }
    const period = parsePeriod(arg);
    if ("error" in period) {
      await ctx.reply(periodRule(period, tOf(ctx)), { parse_mode: "HTML" });
      return;
    }
    await send(ctx, period);
  });

  op.callbackQuery(PRESET_MATCH, async (ctx) => {
    const preset = ctx.match[1] as ExportPreset;
    await answerQuietly(ctx, ctx.t("op-export-preparing"));
    await send(ctx, presetPeriod(preset, now()));
  });

  // An old or crafted `ox:` payload: stop the spinner, nothing else.
  op.callbackQuery(new RegExp(`^${CB.operatorExport}`), (ctx) => answerQuietly(ctx));

  return root;
}
