import type { IncomingMessage, ServerResponse } from "node:http";
import type { Update } from "grammy/types";
import type { Config } from "../config.js";
import { BodyTooLarge, readBody } from "./body.js";
import { safeEqual } from "./signature.js";

/** Updates are small; a larger body is refused with 413. */
export const TELEGRAM_BODY_LIMIT = 1024 * 1024;

/** What takes the updates in: the bot (grammY's `Bot`), started in webhook mode. */
export interface UpdateReceiver {
  handleUpdate(update: Update): Promise<void>;
}

/** Records the payments a batch of updates carries (idempotent); rejects when they cannot be recorded. */
export type RecordPayments = (updates: Update[]) => Promise<void>;

function parseUpdate(raw: Buffer): Update | undefined {
  try {
    const update = JSON.parse(raw.toString("utf8")) as Update | null;
    return typeof update?.update_id === "number" ? update : undefined;
  } catch {
    return undefined;
  }
}

/**
 * POST /webhooks/telegram: checks X-Telegram-Bot-Api-Secret-Token (401 otherwise), answers
 * 200 at once and processes the update in the background (per-chat order is kept by the
 * bot's sequentialize middleware). A payment the update carries is recorded before the 200
 * that confirms it (503 when it cannot be: Telegram delivers the update again later).
 */
export function telegramWebhookHandler(
  receiver: UpdateReceiver,
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
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
    // Errors are logged by the bot's error boundary; the bot tracks updates in progress itself.
    void receiver.handleUpdate(update).catch(() => undefined);
  };
}
