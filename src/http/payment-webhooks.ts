import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import type { ProviderRail } from "../orders/types.js";
import { parseCryptoPayUpdate, verifyCryptoPayUpdate } from "../payments/cryptopay/index.js";
import { parseNotification } from "../payments/yookassa/index.js";
import { RepeatedLog } from "../util/outage-log.js";
import { BodyTooLarge, readBody } from "./body.js";
import { WEBHOOK_BODY_LIMIT } from "./reseller-webhook.js";

/**
 * POST /webhooks/yookassa and POST /webhooks/cryptopay. Neither body is trusted: each only names
 * a payment, which is re-read from the provider before anything changes (`onHint`). YooKassa's
 * notifications are not signed; Crypto Pay's are (HMAC-SHA256 of the raw body keyed with
 * SHA-256 of the token) and a missing or wrong signature is refused with 401.
 */

export interface PaymentWebhookDeps {
  logger: Logger;
  /** Re-reads the payment and applies it (to its order or its top-up). */
  onHint(rail: ProviderRail, paymentId: string): Promise<unknown>;
  onOutcome?(rail: ProviderRail, outcome: string): void;
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The raw body, or null after answering 413. */
async function bodyOf(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
  try {
    return await readBody(req, WEBHOOK_BODY_LIMIT);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    res.setHeader("connection", "close");
    reply(res, 413, { ok: false, error: "body too large" });
    return null;
  }
}

/**
 * Applies the hint; a failure (the provider or Redis unreachable) is logged and still answered
 * 200: the payment was recorded before its link was shown, so the poll job finds it anyway.
 */
async function applyHint(deps: PaymentWebhookDeps, log: Logger, rail: ProviderRail, paymentId: string) {
  try {
    await deps.onHint(rail, paymentId);
    deps.onOutcome?.(rail, "accepted");
  } catch (err) {
    deps.onOutcome?.(rail, "deferred");
    log.warn({ err, paymentId }, "payment notification could not be applied now; polling will");
  }
}

export function yookassaWebhookHandler(deps: PaymentWebhookDeps) {
  const log = deps.logger.child({ component: "yookassa-webhook" });
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await bodyOf(req, res);
    if (!raw) return deps.onOutcome?.("yookassa", "too_large");
    const hint = parseNotification(raw);
    if (hint.kind === "malformed") {
      deps.onOutcome?.("yookassa", "malformed");
      return reply(res, 400, { ok: false, error: hint.reason });
    }
    if (hint.kind === "hint") await applyHint(deps, log, "yookassa", hint.paymentId);
    else deps.onOutcome?.("yookassa", "ignored");
    reply(res, 200, { ok: true });
  };
}

export function cryptopayWebhookHandler(deps: PaymentWebhookDeps & { token: string | undefined }) {
  const log = deps.logger.child({ component: "cryptopay-webhook" });
  const refused = new RepeatedLog(log, "Crypto Pay update with a missing or wrong signature refused");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await bodyOf(req, res);
    if (!raw) return deps.onOutcome?.("cryptopay", "too_large");
    const header = req.headers["crypto-pay-api-signature"];
    const signature = Array.isArray(header) ? header[0] : header;
    if (!deps.token || !verifyCryptoPayUpdate(raw, signature, deps.token)) {
      deps.onOutcome?.("cryptopay", "bad_signature");
      refused.seen({ bytes: raw.length });
      return reply(res, 401, { ok: false, error: "bad signature" });
    }
    const parsed = parseCryptoPayUpdate(raw);
    if (!parsed.ok) {
      deps.onOutcome?.("cryptopay", parsed.kind);
      return parsed.kind === "malformed"
        ? reply(res, 400, { ok: false, error: parsed.reason })
        : reply(res, 200, { ok: true });
    }
    await applyHint(deps, log, "cryptopay", String(parsed.update.invoiceId));
    reply(res, 200, { ok: true });
  };
}
