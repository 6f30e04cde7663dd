import { randomUUID } from "node:crypto";
import { OpenQuotesLimitError, ProductUnavailableError } from "../../orders/api.js";
import { ProductPausedError } from "../../orders/deposit-guard.js";
import type { OrderItem } from "../../orders/types.js";
import { ResellerApiError, ResellerValidationError } from "../../reseller/errors.js";
import { renderCard, shortId } from "../format/card.js";
import { escapeHtml } from "../format/html.js";
import { renderOpenQuotes } from "../format/open-quotes.js";
import { clip } from "../format/operator.js";
import type { FlowRun } from "./kit.js";
import type { Answer, QuoteOutcome } from "./steps.js";

/** The reseller's reasons for refusing an answer are cut to this many characters (Telegram takes 4096 in all). */
const MAX_REASONS = 500;

/*
 * The last step of every product flow (kit.ts `FlowRun.run`): the quote through the orders
 * service, and what the customer sees of it — the order card, the rule a field broke (asked
 * again), the open quotes to cancel one of, or Retry.
 */

/**
 * Quotes the item and shows the card. Returns "done" when the card is shown, the field the
 * reseller's rules rejected (to ask again), or "back"/"cancel"/"abort". When the quote cannot be
 * shown yet (too many open quotes, a refusal, a failure for now) it asks what to do and the flow
 * stops there; the answer comes back here first.
 */
export async function quoteAndShow(
  run: FlowRun,
  item: OrderItem,
): Promise<{ type: "done" } | { type: "field"; field: string } | Answer<never>> {
  const { deps, t, rec } = run;
  const customer = run.customer();
  const waiting = rec.ask;
  if (run.resuming("quote") && waiting?.q) {
    const a = await run.ask(waiting.q, "quote");
    if (a.type !== "value") return a;
    if (a.value === "retry") {
      // A refused quote is not retried under the same id; a transient failure is.
      if (waiting.refused) rec.orderId = randomUUID();
    } else if (a.value !== "") {
      // An older open quote to cancel; then the same order id is quoted again.
      const older = a.value;
      await deps.orders.cancel(older, customer.userId);
      if (run.ctx.session.lastQuoteId === older) run.ctx.session.lastQuoteId = undefined;
    }
  } else {
    // One id per customer intent; retries after a transient error reuse it.
    rec.orderId = randomUUID();
    rec.quotes = 0;
  }
  const orderId = rec.orderId ?? randomUUID();
  rec.quotes = (rec.quotes ?? 0) + 1;
  if (rec.quotes > MAX_QUOTE_ATTEMPTS) {
    await run.show(t("quote-gave-up"));
    return { type: "abort" };
  }
  // The card replaces the question whose button led here: recorded with the quote, it costs no
  // write of its own (one is made below when a new message had to be sent instead).
  const cardMessageId = run.replacing;
  const r = await attempt(run, item, orderId, cardMessageId);
  if (r.ok) {
    const card = renderCard(r.order, {
      t,
      locale: run.locale,
      supportContact: deps.config.supportContact,
      rails: deps.config.checkout,
    });
    const messageId = await run.show(card.text, card.keyboard);
    if (messageId !== r.order.cardMessageId) await deps.orders.setCardMessage(r.order.id, messageId);
    run.ctx.session.lastQuoteId = r.order.id;
    return { type: "done" };
  }
  if (r.kind === "unavailable") {
    await run.show(t("product-unavailable-flow"));
    return { type: "abort" };
  }
  if (r.kind === "validation") {
    const first = r.issues[0];
    run.notice = `⚠️ ${t("quote-invalid", {
      reasons: escapeHtml(clip(r.issues.map((i) => `${i.field}: ${i.message}`).join("; "), MAX_REASONS)),
    })}`;
    return { type: "field", field: first?.field ?? "" };
  }
  if (r.kind === "limit") {
    // Nothing was written for this order id: after the customer cancels an older quote, the
    // same id is quoted again.
    const q = {
      text: renderOpenQuotes(r.max, r.open, { t, locale: run.locale }),
      choices: [
        ...r.open.map((o) => ({ label: t("btn-cancel-quote", { id: shortId(o.id) }), value: o.id })),
        { label: t("btn-retry"), value: "" },
      ],
    };
    return run.present(q, "quote", { q });
  }
  const q = {
    text: r.kind === "transient" ? t("quote-unavailable") : t(r.reason),
    choices: [{ label: t("btn-retry"), value: "retry" }],
  };
  return run.present(q, "quote", { q, refused: r.kind === "refused" });
}

/** Quote attempts per customer intent before the flow gives up. */
const MAX_QUOTE_ATTEMPTS = 5;

/** One quote through the orders service, its failures sorted into what the customer is told. */
async function attempt(
  run: FlowRun,
  item: OrderItem,
  orderId: string,
  cardMessageId: number | undefined,
): Promise<QuoteOutcome> {
  const { deps } = run;
  try {
    return {
      ok: true,
      order: await deps.orders.quote({ orderId, item, customer: run.customer(), cardMessageId }),
    };
  } catch (err) {
    if (err instanceof OpenQuotesLimitError)
      return { ok: false, kind: "limit", max: err.max, open: err.open };
    if (err instanceof ProductPausedError) return { ok: false, kind: "refused", reason: "quote-paused" };
    if (err instanceof ProductUnavailableError) return { ok: false, kind: "unavailable" };
    if (err instanceof ResellerValidationError) return { ok: false, kind: "validation", issues: err.issues };
    if (err instanceof ResellerApiError && err.transient) {
      deps.logger.warn({ err, orderId }, "quote failed for now");
      return { ok: false, kind: "transient" };
    }
    deps.logger.error({ err, orderId }, "quote refused");
    // A create refused only on its repeat, after an attempt that got no answer (an "already
    // exists", a body without the price): nothing the customer entered was wrong, and a Retry
    // quotes under a new id.
    if (err instanceof ResellerApiError && err.repeated && !["insufficient_funds", "auth"].includes(err.kind))
      return { ok: false, kind: "refused", reason: "quote-unavailable" };
    const reason =
      err instanceof ResellerApiError && err.kind === "bad_request"
        ? "quote-refused-request"
        : "quote-refused-shop";
    return { ok: false, kind: "refused", reason };
  }
}
