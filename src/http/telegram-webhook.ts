import type { IncomingMessage, ServerResponse } from "node:http";
import type { Update } from "grammy/types";
import type { Config } from "../config.js";
import { BodyTooLarge, readBody } from "./body.js";
import { safeEqual } from "./signature.js";

/** Updates are small; a larger body is refused with 413. */
export const TELEGRAM_BODY_LIMIT = 1024 * 1024;

/**
 * What takes the updates in (src/bot/webhook-intake.ts): `handled` and `recorded` are answered
 * 200, `refused` 503 so that Telegram sends the update again.
 */
export interface UpdateIntake {
  /** False before the bot started and once it began stopping. */
  readonly isAccepting: boolean;
  take(update: Update): Promise<"handled" | "recorded" | "refused">;
}

/** Records the payments a batch of updates carries (idempotent); rejects when they cannot be recorded. */
export type RecordPayments = (updates: Update[]) => Promise<void>;

/** Kinds of update whose object names its chat (`chat.id`), which the intake orders updates by. */
const WITH_CHAT = new Set([
  "message",
  "edited_message",
  "channel_post",
  "edited_channel_post",
  "business_message",
  "edited_business_message",
  "my_chat_member",
  "chat_member",
  "chat_join_request",
  "message_reaction",
  "message_reaction_count",
  "chat_boost",
  "removed_chat_boost",
]);

type Fields = Record<string, unknown>;
const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);
const hasId = (v: unknown) => isObject(v) && typeof v.id === "number";

/**
 * An update as Telegram shapes it, as far as the bot relies on before its handlers: a numeric
 * `update_id`, each other field an object, a chat where the kind has one (the callback's message
 * too), a numeric sender where one is named. Kinds and fields the bot does not know pass as they are.
 */
function parseUpdate(raw: Buffer): Update | undefined {
  let update: unknown;
  try {
    update = JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isObject(update) || typeof update.update_id !== "number") return undefined;
  for (const [kind, value] of Object.entries(update)) {
    if (kind === "update_id") continue;
    if (!isObject(value)) return undefined;
    if (WITH_CHAT.has(kind) && !hasId(value.chat)) return undefined;
    if (value.from !== undefined && !hasId(value.from)) return undefined;
    if (
      kind === "callback_query" &&
      value.message !== undefined &&
      !(isObject(value.message) && hasId(value.message.chat))
    )
      return undefined;
  }
  return update as unknown as Update;
}

/**
 * POST /webhooks/telegram: checks X-Telegram-Bot-Api-Secret-Token (401 otherwise) and answers 200
 * only once the update is handled, or recorded in Redis when handling takes longer (the intake
 * decides). A payment the update carries is recorded before anything else. 503 — Telegram
 * delivers the update again — while the bot is not taking updates (starting or stopping) and
 * when the update could be neither handled nor recorded (Redis unreachable).
 */
export function telegramWebhookHandler(
  intake: UpdateIntake,
  config: Pick<Config, "botWebhookSecret">,
  recordPayments?: RecordPayments,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const token = req.headers["x-telegram-bot-api-secret-token"];
    if (!safeEqual(typeof token === "string" ? token : undefined, config.botWebhookSecret)) {
      res.writeHead(401).end();
      req.resume();
      return;
    }
    if (!intake.isAccepting) {
      res.writeHead(503, { "retry-after": "1" }).end();
      req.resume();
      return;
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, TELEGRAM_BODY_LIMIT);
    } catch (err) {
      if (res.headersSent) return;
      if (err instanceof BodyTooLarge) res.writeHead(413, { connection: "close" }).end();
      else res.writeHead(400).end();
      return;
    }
    const update = parseUpdate(raw);
    if (!update) {
      res.writeHead(400).end();
      return;
    }
    // Telegram sends a payment only once: it is recorded before the 200 that confirms it.
    try {
      await recordPayments?.([update]);
    } catch {
      res.writeHead(503).end();
      return;
    }
    const outcome = await intake.take(update);
    if (outcome === "refused") res.writeHead(503, { "retry-after": "1" }).end();
    else res.writeHead(200, { "content-type": "application/json" }).end("{}");
  };
}
