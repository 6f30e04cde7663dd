import { decodeMessage } from "../outgoing/messages.js";
import { sendOrderAlert } from "./alerts.js";
import type { EngineContext } from "./context.js";
import { NOTIFIED_STATES } from "./lifecycle.js";
import { tellReferrer } from "./referral-bonus.js";
import type { OrderStore } from "./store.js";
import type { Order } from "./types.js";

/**
 * The engine's messages, sent when the outgoing queue gives them their turn. Each is rendered
 * from the order as it is now (so a card that changed twice while waiting shows the latest
 * state) and what was sent is recorded on the order. `signal` aborts when the dispatcher lost
 * the message's lease: then nothing is sent (another process holds it now).
 */
export async function deliverMessage(
  ctx: EngineContext,
  member: string,
  signal?: AbortSignal,
): Promise<void> {
  const message = decodeMessage(member);
  if (!message) {
    ctx.log.error({ message: member }, "unknown outgoing message dropped");
    return;
  }
  if (message.kind === "topup") return ctx.topups?.deliver(message.topupId, signal);
  if (message.kind === "referral") {
    if (signal?.aborted) return;
    return tellReferrer(ctx, message.chatId, message.orderId);
  }
  if (message.kind === "bcast") return ctx.broadcasts?.deliver(message.chatId, message.broadcastId, signal);
  if (message.kind === "extra") {
    const order = await ctx.store.get(message.orderId);
    const charge = order?.extraCharges?.[message.index];
    if (!order || !charge || signal?.aborted) return;
    return ctx.notifier.extraPayment?.(order, charge);
  }
  // A settled order changes no more but for its final message's mark: the copy this process wrote
  // when the order settled (or read since) renders the final message while it shows none sent, and
  // a delivered order's card. Any other copy may be behind and is read again. Only a process that
  // held this message's lease sends it and marks it sent, and the lease is offered again only when
  // its holder died or stopped renewing it, so a copy without the mark is behind only then.
  const order = await ctx.store.latest(message.orderId, (o) =>
    message.kind === "card"
      ? o.state === "delivered"
      : message.kind === "final" && NOTIFIED_STATES.includes(o.state) && o.finalNotifiedAt === undefined,
  );
  // The lease was lost meanwhile: the process that holds the message now sends it.
  if (!order || signal?.aborted) return;
  switch (message.kind) {
    case "final":
      return sendFinal(ctx, order);
    case "card":
      return updateCard(ctx, order);
    case "alert":
      return sendOrderAlert(ctx, message.alert, order);
  }
}

async function updateCard(ctx: EngineContext, order: Order): Promise<void> {
  const messageId = await ctx.notifier.updateCard(order);
  if (messageId !== undefined && messageId !== order.cardMessageId) {
    await recordCardMessage(ctx.store, order.id, messageId);
  }
}

/** Remembers which chat message shows an order's card (edits go there). */
export async function recordCardMessage(
  store: OrderStore,
  orderId: string,
  messageId: number,
): Promise<void> {
  await store.update(orderId, (o) =>
    o.cardMessageId === messageId ? null : { next: { ...o, cardMessageId: messageId } },
  );
}

async function sendFinal(ctx: EngineContext, order: Order): Promise<void> {
  if (order.finalNotifiedAt || !NOTIFIED_STATES.includes(order.state)) return;
  await ctx.notifier.sendFinal(order);
  await ctx.store.markFinalNotified(order.id, ctx.now());
}
