import { randomUUID } from "node:crypto";
import { signWebhook } from "../sandbox/reseller/server.js";
import { mapLimit, percentile, sleep, until } from "./lib.js";
import { BOT_TOKEN, nextUserId, type Stack, startStack, WEBHOOK_SECRET } from "./stack.js";

interface Placed {
  orderId: string;
  userId: number;
}

/**
 * Places `count` paid Stars orders the way the bot would after a customer paid: each customer
 * has a chat with a status card, the order is quoted and marked paid. The bot process submits
 * them to the sandbox (paused, so they stay pending) and updates the cards.
 */
export async function placePaidOrder(stack: Stack): Promise<Placed> {
  const userId = nextUserId();
  const user = stack.emulator.user({ id: userId, username: `bench${userId}`, languageCode: "en" });
  user.startChat();
  const card = await fetch(`${stack.emulator.apiRoot}/bot${BOT_TOKEN}/sendMessage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chat_id: userId, text: "order card" }),
  }).then((r) => r.json() as Promise<{ result: { message_id: number } }>);
  const orderId = randomUUID();
  const order = await stack.orders.quote({
    orderId,
    item: { kind: "stars", product: "stars", recipient: `bench${userId}`, quantity: 50 },
    customer: { userId, chatId: userId, username: `bench${userId}`, locale: "en" },
  });
  await stack.orders.setCardMessage(orderId, card.result.message_id);
  await stack.orders.markPaid(orderId, {
    userId,
    currency: "XTR",
    totalAmount: order.amount!,
    telegramChargeId: `bench-${orderId}`,
  });
  return { orderId, userId };
}

export async function placePaidOrders(stack: Stack, count: number): Promise<Placed[]> {
  stack.sandbox.pauseDelivery(true);
  const placed = await mapLimit(Array.from({ length: count }), 25, () => placePaidOrder(stack));
  // The operators' "pending" list holds paid orders too: every one must have reached `pending`.
  await until(
    async () => {
      const page = await stack.orders.listAll("pending", 0, count);
      return page.total === count && page.items.every((o) => o.state === "pending");
    },
    120_000,
    `${count} orders to be pending`,
  );
  // Let the card updates ("paid", "being delivered") leave the outgoing queue (~29/s) so that what
  // follows measures only the delivery.
  await until(
    async () => (await stack.orders.outgoingDepth()) === 0,
    60_000 + ((count * 3) / 29) * 1000,
    "card updates to finish",
  );
  return placed;
}

/** When each order's final message (it carries the delivery's tx hash) reached the emulator. */
export function finalMessages(stack: Stack, placed: Placed[], since: number) {
  const sends = stack.emulator.calls("sendMessage").filter((c) => c.ok && c.at >= since);
  const byChat = new Map<number, { text: string; at: number }[]>();
  for (const c of sends) {
    const chat = Number(c.payload.chat_id);
    const list = byChat.get(chat) ?? [];
    list.push({ text: String(c.payload.text ?? ""), at: c.at });
    byChat.set(chat, list);
  }
  return placed.map((p) => {
    const hash = String(stack.sandbox.order(p.orderId)?.deliveredPayload?.tx_hash ?? "\u0000");
    const finals = (byChat.get(p.userId) ?? []).filter((m) => m.text.includes(hash));
    return { ...p, count: finals.length, at: finals[0]?.at };
  });
}

/** Signed webhooks fired at the bot's listener as fast as it takes them, with polling out of the way. */
export async function webhookIntake(count: number, concurrency = 32) {
  const stack = await startStack({ webhooks: true, pollIntervalSeconds: 3600 });
  try {
    const placed = await placePaidOrders(stack, count);
    stack.sandbox.setWebhooks("drop");
    stack.sandbox.pauseDelivery(false);
    stack.sandbox.deliverAllNow();
    const bodies = placed.map((p) => {
      const o = stack.sandbox.order(p.orderId)!;
      return JSON.stringify({
        event: o.status,
        custom_id: o.customId,
        status: o.status,
        product: o.product,
        recipient: o.request.recipient_username,
        quantity: o.request.quantity,
        delivered_payload: o.deliveredPayload,
        error_message: o.errorMessage,
        completed_at: o.completedAt,
      });
    });
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const t0 = Date.now();
    await mapLimit(placed, concurrency, async (p, i) => {
      const body = bodies[i]!;
      sentAt.set(p.orderId, Date.now());
      const res = await fetch(`http://127.0.0.1:${stack.httpPort}/webhooks/reseller`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": signWebhook(WEBHOOK_SECRET, body) },
        body,
      });
      await res.arrayBuffer();
      latencies.push(Date.now() - sentAt.get(p.orderId)!);
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    });
    const intakeSeconds = (Date.now() - t0) / 1000;
    await until(
      () => finalMessages(stack, placed, t0).every((f) => f.count > 0),
      120_000,
      "final messages after webhooks",
    ).catch(() => {});
    const finals = finalMessages(stack, placed, t0);
    const toMessage = finals.filter((f) => f.at).map((f) => f.at! - sentAt.get(f.orderId)!);
    return {
      webhooks: count,
      perSecond: count / intakeSeconds,
      answerP50Ms: percentile(latencies, 50),
      answerP99Ms: percentile(latencies, 99),
      toMessageP50Ms: percentile(toMessage, 50),
      toMessageP99Ms: percentile(toMessage, 99),
      lost: finals.filter((f) => f.count === 0).length,
    };
  } finally {
    await stack.close();
  }
}

/** From the sandbox completing an order to the customer's message, with and without webhooks. */
export async function webhookVersusPolling(count: number) {
  const out: Record<string, { p50Ms: number; p95Ms: number; maxMs: number; lost: number }> = {};
  for (const webhooks of [true, false]) {
    const stack = await startStack({ webhooks, pollIntervalSeconds: 3, deliveryDelayMs: 1000 });
    try {
      // Orders paid at an even pace over ~20 s, each delivered 1 s after its pay, as real deliveries would be.
      const t0 = Date.now();
      const placed = await mapLimit(Array.from({ length: count }), 1, async (_, i) => {
        await sleep(Math.max(0, t0 + (i * 20_000) / count - Date.now()));
        return placePaidOrder(stack);
      });
      await until(
        () => finalMessages(stack, placed, t0).every((f) => f.count > 0),
        180_000,
        "final messages",
      ).catch(() => {});
      const finals = finalMessages(stack, placed, t0);
      const lags = finals
        .filter((f) => f.at)
        .map((f) => f.at! - Date.parse(`${stack.sandbox.order(f.orderId)!.completedAt}Z`));
      out[webhooks ? "webhooks" : "polling"] = {
        p50Ms: percentile(lags, 50),
        p95Ms: percentile(lags, 95),
        maxMs: Math.max(...lags),
        lost: finals.filter((f) => f.count === 0).length,
      };
    } finally {
      await stack.close();
    }
  }
  return out;
}
