import { randomBytes } from "node:crypto";
import type { Composer } from "grammy";
import { resolveAudience } from "../../broadcast/audience.js";
import { contentFromMessage, sendContent } from "../../broadcast/content.js";
import type { Audience, BroadcastRecord } from "../../broadcast/types.js";
import { type Config, LOCALES, PRODUCT_KINDS } from "../../config.js";
import type { Logger } from "../../logger.js";
import type { BotContext, BroadcastDraft } from "../context.js";
import { FlatComposer } from "../flat-composer.js";
import {
  audienceCode,
  PRODUCT_DAYS,
  RECENT_DAYS,
  renderAskContent,
  renderAudiencePicker,
  renderPreview,
  renderProgress,
} from "../format/broadcast.js";
import { CB } from "../keyboards/callbacks.js";
import { answerQuietly, leaveFlows, localeOf, showView, tOf } from "./shared.js";

/** A draft is dropped when not touched for this long. */
export const BROADCAST_DRAFT_TTL_MS = 6 * 3600 * 1000;

const ID = "([0-9a-f]{12})";
const MATCH = {
  audience: new RegExp(`^${CB.broadcast}a:(all|l:[a-z]{2}|r:\\d{1,3}|p:[a-z]{1,16})$`),
  test: new RegExp(`^${CB.broadcast}t$`),
  go: new RegExp(`^${CB.broadcast}go:${ID}$`),
  back: new RegExp(`^${CB.broadcast}b$`),
  drop: new RegExp(`^${CB.broadcast}x$`),
  status: new RegExp(`^${CB.broadcast}([prc]):${ID}$`),
};

/** The audiences an operator may pick, for the shop's products. */
export function audiencesOf(config: Pick<Config, "products">): Audience[] {
  return [
    { kind: "all" },
    ...LOCALES.map((locale): Audience => ({ kind: "lang", locale })),
    ...RECENT_DAYS.map((days): Audience => ({ kind: "recent", days })),
    ...PRODUCT_KINDS.filter((p) => config.products.includes(p)).map(
      (product): Audience => ({ kind: "product", product, days: PRODUCT_DAYS }),
    ),
  ];
}

/**
 * `/broadcast` (OPERATOR_IDS, private chat): the operator sends the message (text with its
 * formatting, or a photo with a caption; trailing lines `Label - https://…` become URL buttons),
 * picks the audience, sees its size, may send a test to themself, then sends. The preview message
 * becomes the progress message, edited as it goes, with Pause/Resume and Cancel.
 */
export function broadcastFeature(deps: {
  config: Pick<Config, "operatorIds" | "products">;
  logger: Logger;
}): Composer<BotContext> {
  const log = deps.logger.child({ component: "broadcast" });
  const operators = new Set(deps.config.operatorIds);
  const audiences = audiencesOf(deps.config);
  const isOperator = (ctx: BotContext) =>
    ctx.from !== undefined && operators.has(ctx.from.id) && ctx.chat?.type === "private";

  const root = new FlatComposer<BotContext>();
  root.callbackQuery(new RegExp(`^${CB.broadcast}`), async (ctx, next) => {
    if (isOperator(ctx)) return next();
    log.warn({ userId: ctx.from.id }, "broadcast button from a non-operator");
    await answerQuietly(ctx);
  });
  const op = root.filter(isOperator);

  const draftOf = (ctx: BotContext): BroadcastDraft | undefined => {
    const d = ctx.session.broadcastDraft;
    if (d && Date.now() - d.at > BROADCAST_DRAFT_TTL_MS) {
      ctx.session.broadcastDraft = undefined;
      return undefined;
    }
    return d;
  };

  op.command("broadcast", async (ctx) => {
    if (!ctx.deps.broadcasts) {
      await ctx.reply(ctx.t("bc-not-available"), { parse_mode: "HTML" });
      return;
    }
    await leaveFlows(ctx);
    ctx.session.walletInput = undefined;
    ctx.session.broadcastDraft = { step: "content", at: Date.now(), id: randomBytes(6).toString("hex") };
    await showView(ctx, renderAskContent(tOf(ctx)), false);
  });

  op.on(["message:text", "message:photo"], async (ctx, next) => {
    const draft = draftOf(ctx);
    if (draft?.step !== "content" || ctx.message.text?.startsWith("/")) return next();
    const r = contentFromMessage(ctx.message);
    if (!r.ok) {
      await showView(ctx, renderAskContent(tOf(ctx), `⛔ ${ctx.t(r.rule)}`), false);
      return;
    }
    ctx.session.broadcastDraft = { ...draft, step: "audience", at: Date.now(), content: r.content };
    await showView(ctx, renderAudiencePicker(audiences, tOf(ctx)), false);
  });
  // Anything else sent while the message is awaited (a sticker, a voice note…) gets the rule.
  op.on("message", async (ctx, next) => {
    const m = ctx.message;
    if (draftOf(ctx)?.step !== "content" || m.successful_payment || m.text?.startsWith("/")) return next();
    await showView(ctx, renderAskContent(tOf(ctx), `⛔ ${ctx.t("bc-rule-kind")}`), false);
  });

  op.callbackQuery(MATCH.audience, async (ctx) => {
    const draft = draftOf(ctx);
    const audience = audiences.find((a) => audienceCode(a) === ctx.match[1]);
    if (!draft?.content || draft.step === "content" || !audience) {
      await answerQuietly(ctx, ctx.t("bc-outdated"), true);
      return;
    }
    await answerQuietly(ctx);
    const size = (await recipients(ctx, audience)).length;
    ctx.session.broadcastDraft = { ...draft, step: "preview", at: Date.now(), audience };
    const view = renderPreview(
      {
        id: draft.id,
        audience,
        size,
        buttons: draft.content.buttons.length,
        photo: draft.content.photo !== undefined,
      },
      tOf(ctx),
    );
    await showView(ctx, view, true);
  });

  op.callbackQuery(MATCH.back, async (ctx) => {
    const draft = draftOf(ctx);
    if (!draft?.content) {
      await answerQuietly(ctx, ctx.t("bc-outdated"), true);
      return;
    }
    ctx.session.broadcastDraft = { ...draft, step: "audience", at: Date.now(), audience: undefined };
    await answerQuietly(ctx);
    await showView(ctx, renderAudiencePicker(audiences, tOf(ctx)), true);
  });

  op.callbackQuery(MATCH.drop, async (ctx) => {
    ctx.session.broadcastDraft = undefined;
    await answerQuietly(ctx);
    await showView(ctx, { text: ctx.t("bc-dropped") }, true);
  });

  op.callbackQuery(MATCH.test, async (ctx) => {
    const draft = draftOf(ctx);
    if (!draft?.content || !ctx.chat) {
      await answerQuietly(ctx, ctx.t("bc-outdated"), true);
      return;
    }
    await sendContent(ctx.api, ctx.chat.id, draft.content);
    await answerQuietly(ctx, ctx.t("bc-test-sent"));
  });

  op.callbackQuery(MATCH.go, async (ctx) => {
    const draft = draftOf(ctx);
    const broadcasts = ctx.deps.broadcasts;
    const message = ctx.callbackQuery.message;
    if (
      !broadcasts ||
      !message ||
      draft?.step !== "preview" ||
      draft.id !== ctx.match[1] ||
      !draft.content ||
      !draft.audience
    ) {
      await answerQuietly(ctx, ctx.t("bc-outdated"), true);
      return;
    }
    const chats = await recipients(ctx, draft.audience);
    if (chats.length === 0) {
      await answerQuietly(ctx, ctx.t("bc-nobody"), true);
      return;
    }
    const record: BroadcastRecord = {
      id: draft.id,
      by: ctx.from.id,
      content: draft.content,
      audience: draft.audience,
      progress: { chatId: message.chat.id, messageId: message.message_id, locale: await localeOf(ctx) },
      createdAt: Date.now(),
    };
    ctx.session.broadcastDraft = undefined;
    const started = await broadcasts.begin(record, chats);
    await answerQuietly(ctx, started ? undefined : ctx.t("bc-outdated"));
    if (!started) return;
    log.info(
      { broadcast: record.id, operatorId: ctx.from.id, recipients: chats.length },
      "broadcast started",
    );
    const view = await broadcasts.get(record.id);
    if (view) await showView(ctx, renderProgress(view, tOf(ctx)), true);
  });

  op.callbackQuery(MATCH.status, async (ctx) => {
    const broadcasts = ctx.deps.broadcasts;
    if (!broadcasts) return answerQuietly(ctx);
    const to = ({ p: "paused", r: "running", c: "cancelled" } as const)[ctx.match[1] as "p" | "r" | "c"];
    const id = ctx.match[2] ?? "";
    const change = await broadcasts.setStatus(id, to);
    await answerQuietly(ctx, change.result === "refused" ? ctx.t("bc-outdated") : undefined);
    log.info({ broadcast: id, operatorId: ctx.from.id, to, result: change.result }, "broadcast status");
    const view = await broadcasts.get(id);
    if (view) await showView(ctx, renderProgress(view, tOf(ctx)), true);
  });

  return root;
}

async function recipients(ctx: BotContext, audience: Audience): Promise<number[]> {
  const customers = ctx.deps.registry;
  if (!customers) return [];
  return resolveAudience(audience, { customers, orders: ctx.deps.orders, now: Date.now() });
}
