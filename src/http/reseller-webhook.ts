import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import { RepeatedLog } from "../util/outage-log.js";
import { BodyTooLarge, readBody } from "./body.js";
import { verifySignature } from "./signature.js";

export const WEBHOOK_BODY_LIMIT = 64 * 1024;

export type WebhookOutcome =
  | "accepted"
  | "unknown_order"
  | "bad_signature"
  | "too_large"
  | "malformed"
  | "unavailable";

export interface ResellerWebhookDeps {
  /** Without a secret nothing can be verified, so every request is refused. */
  secret: string | undefined;
  logger: Logger;
  /** Re-read hint for an order; resolves false for orders that are unknown or not awaiting delivery. */
  onDeliveryHint(orderId: string): Promise<boolean>;
  onOutcome?(outcome: WebhookOutcome): void;
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * POST /webhooks/reseller. The body is only a hint: it makes the engine re-read the order with
 * GET /order/{custom_id} (the source of truth) before anything changes, so a replayed or stale
 * webhook cannot move an order.
 */
export function resellerWebhookHandler(deps: ResellerWebhookDeps) {
  const log = deps.logger.child({ component: "reseller-webhook" });
  const refused = new RepeatedLog(log, "delivery webhook with a missing or wrong signature refused");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const outcome = (o: WebhookOutcome) => deps.onOutcome?.(o);
    let raw: Buffer;
    try {
      raw = await readBody(req, WEBHOOK_BODY_LIMIT);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        outcome("too_large");
        res.setHeader("connection", "close");
        return reply(res, 413, { ok: false, error: "body too large" });
      }
      throw err;
    }
    const signature = req.headers["x-signature"];
    if (
      !deps.secret ||
      !verifySignature(deps.secret, raw, Array.isArray(signature) ? signature[0] : signature)
    ) {
      outcome("bad_signature");
      refused.seen({ bytes: raw.length });
      return reply(res, 401, { ok: false, error: "bad signature" });
    }
    let customId: unknown;
    try {
      customId = (JSON.parse(raw.toString("utf8")) as { custom_id?: unknown } | null)?.custom_id;
    } catch {
      outcome("malformed");
      return reply(res, 400, { ok: false, error: "malformed JSON" });
    }
    if (typeof customId !== "string" || customId.length === 0 || customId.length > 128) {
      // Signed and well-formed, but naming no order of this shop (a test ping, an event of
      // another kind): nothing to re-read. 200 (the contract's answer to anything signed and
      // well-formed), so the sender does not retry it.
      outcome("unknown_order");
      log.info({ bytes: raw.length }, "signed delivery webhook names no custom_id; ignored");
      return reply(res, 200, { ok: true, ignored: "no custom_id" });
    }
    try {
      const known = await deps.onDeliveryHint(customId);
      outcome(known ? "accepted" : "unknown_order");
      log.debug({ orderId: customId, known }, "delivery webhook received");
      return reply(res, 200, { ok: true });
    } catch (err) {
      // Redis unreachable: a non-2xx makes the reseller send it again later.
      outcome("unavailable");
      log.error({ err, orderId: customId }, "delivery webhook could not be recorded");
      return reply(res, 503, { ok: false, error: "try again later" });
    }
  };
}
