import type { ResellerOrder } from "../reseller/types.js";
import { type EngineContext, transition } from "./context.js";
import { alertMessage, TRACKED_STATES } from "./lifecycle.js";
import { FINAL_STATES, type Order } from "./types.js";

/**
 * Statuses the spec does not show that say the order ended undelivered: a cancellation or a refund
 * ("any cancellation or refund: not shown"), a rejection, an expiry. They end the order as failed
 * (the customer told and refunded, the operators alerted with the status), where they would keep
 * it "being delivered" until flagged stuck a day later.
 */
const ENDED_UNDELIVERED = /cancel|refund|reject|expire|declin/i;

/**
 * What the reseller says about an order (GET /order, the source of truth) applied to ours:
 * delivered and failed end it, and so do statuses that say it ended undelivered; any other
 * status is only remembered.
 */
export async function applyResellerOrder(
  ctx: EngineContext,
  orderId: string,
  remote: ResellerOrder,
): Promise<Order | null> {
  if (remote.status === "delivered") {
    const res = await transition(ctx, orderId, TRACKED_STATES, "delivered", () => ({
      resellerStatus: remote.status,
      deliveredPayload: remote.deliveredPayload ?? {},
      stuck: false,
    }));
    return res.order;
  }
  if (remote.status === "failed" || ENDED_UNDELIVERED.test(remote.status)) {
    const res = await transition(ctx, orderId, TRACKED_STATES, "failed", () => ({
      resellerStatus: remote.status,
      errorMessage: remote.errorMessage ?? undefined,
      stuck: false,
    }));
    return res.order;
  }
  const res = await ctx.store.update(orderId, (order) =>
    order.resellerStatus === remote.status || FINAL_STATES.includes(order.state)
      ? null
      : { next: { ...order, resellerStatus: remote.status } },
  );
  return res.order;
}

/** Operator's Re-check: reads the order from the reseller now and applies what it says. */
export async function recheck(ctx: EngineContext, orderId: string): Promise<Order | null> {
  const order = await ctx.store.get(orderId);
  if (!order) return null;
  if (!TRACKED_STATES.includes(order.state)) return order;
  const remote = await ctx.reseller.getOrder(orderId);
  return (await applyResellerOrder(ctx, orderId, remote)) ?? (await ctx.store.get(orderId));
}

/** Flags a paid order the reseller has not finished within TRACKING_TIMEOUT_HOURS, once. */
export async function flagStuckIfLate(ctx: EngineContext, order: Order): Promise<void> {
  const since = order.times.paid ?? order.createdAt;
  if (order.stuck || ctx.now() - since < ctx.config.trackingTimeoutHours * 3600_000) return;
  await ctx.store.update(order.id, (o) =>
    o.stuck || FINAL_STATES.includes(o.state)
      ? null
      : {
          next: { ...o, stuck: true },
          jobs: [alertMessage("stuck", o)],
        },
  );
}
