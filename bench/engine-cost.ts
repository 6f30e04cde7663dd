import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { startResellerSandbox } from "../sandbox/reseller/server.js";
import { resellerWebhookHandler } from "../src/http/reseller-webhook.js";
import { startHttpServer } from "../src/http/server.js";
import { createLogger } from "../src/logger.js";
import { createOrdersEngine } from "../src/orders/engine.js";
import type { Notifier, Order } from "../src/orders/types.js";
import { createResellerClient } from "../src/reseller/client.js";
import { startPrivateRedis } from "../test/helpers/private-redis.js";
import { commandStats, diffStats, sum, until } from "./lib.js";

/**
 * Counts the commands one ioredis client sends and the round trips they take (a pipeline or
 * MULTI block is one write); Redis's INFO cannot tell them from commands run inside Lua scripts.
 */
function countClient(redis: Redis) {
  const counts = { commands: 0, roundTrips: 0 };
  const pipelines = new WeakSet<object>();
  type Send = (command: unknown, stream?: { isPipeline?: boolean }, node?: unknown) => unknown;
  const target = redis as unknown as { sendCommand: Send };
  const original = target.sendCommand.bind(redis);
  target.sendCommand = (command, stream, node) => {
    counts.commands += 1;
    if (!stream?.isPipeline) counts.roundTrips += 1;
    else if (!pipelines.has(stream)) {
      pipelines.add(stream);
      counts.roundTrips += 1;
    }
    return original(command, stream, node);
  };
  return counts;
}

/**
 * Redis commands the orders engine spends on one order from quote to final notification
 * (quote, payment, pay, webhook-triggered read, card updates, final message), with Telegram
 * replaced by a counting notifier, the idle poll of the job schedule slowed right down and the
 * outgoing queue's pace lifted (its waits would add idle takes), so only the order's own work is
 * counted. Orders run one after another.
 */
export async function engineCommandsPerOrder(orders: number) {
  const redisServer = await startPrivateRedis();
  const redis = new Redis(redisServer.url);
  const logger = createLogger({ level: "silent" });
  const finals = new Set<string>();
  const notifier: Notifier = {
    updateCard: async (o: Order) => o.cardMessageId ?? 1,
    sendFinal: async (o: Order) => {
      finals.add(o.id);
    },
    refundStars: async () => {},
    alert: async () => {},
  };
  let engine: ReturnType<typeof createOrdersEngine> | undefined;
  const http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    resellerWebhook: resellerWebhookHandler({
      secret: "cost-secret",
      logger,
      onDeliveryHint: (id) => engine!.onDeliveryHint(id),
    }),
    ready: async () => true,
  });
  const sandbox = await startResellerSandbox({
    apiKey: "cost-key",
    webhookSecret: "cost-secret",
    deliveryDelayMs: 20,
    webhookRewrite: [{ from: "https://cost.invalid", to: http.url }],
  });
  const reseller = createResellerClient({ baseUrl: sandbox.url, apiKey: "cost-key", logger });
  engine = createOrdersEngine({
    redis,
    prefix: "cost:",
    reseller,
    notifier,
    logger,
    idleDelayMs: 60_000,
    pace: { globalPerSecond: 100_000, chatPerSecond: 10_000 },
    balanceCheckIntervalMs: 3_600_000,
    config: {
      checkout: ["stars"],
      priceMarkupPercent: 10,
      starPriceRub: 1.5,
      quoteTtlSeconds: 900,
      pollIntervalSeconds: 60,
      trackingTimeoutHours: 24,
      lowBalanceRub: 0,
      resellerCallbackUrl: "https://cost.invalid/webhooks/reseller",
    },
  });
  engine.start();
  try {
    await until(async () => (await redis.zcard("cost:jobs")) > 0, 5000, "the engine to start");
    await until(
      async () => (await redis.zrangebyscore("cost:jobs", "-inf", Date.now())).length === 0,
      5000,
      "idle",
    );
    const client = countClient(redis);
    const before = await commandStats(redis);
    const clientBefore = { ...client };
    for (let i = 0; i < orders; i++) {
      const id = randomUUID();
      const order = await engine.quote({
        orderId: id,
        item: { kind: "stars", product: "stars", recipient: "cost_buyer", quantity: 50 },
        customer: { userId: 1000 + i, chatId: 1000 + i, locale: "en" },
      });
      await engine.setCardMessage(id, 77);
      await engine.markPaid(id, {
        userId: 1000 + i,
        currency: "XTR",
        totalAmount: order.amount!,
        telegramChargeId: `c${i}`,
      });
      await until(() => finals.has(id), 10_000, "the final message");
    }
    const after = await commandStats(redis);
    const diff = diffStats(before, after);
    diff.delete("info"); // ours
    const byCommand = Object.fromEntries([...diff].map(([k, v]) => [k, v / orders]));
    return {
      orders,
      perOrder: sum(diff.values()) / orders,
      // The second INFO call is ours.
      clientCommandsPerOrder: (client.commands - clientBefore.commands - 1) / orders,
      roundTripsPerOrder: (client.roundTrips - clientBefore.roundTrips - 1) / orders,
      byCommand,
    };
  } finally {
    await engine.stop(2000);
    await http.close();
    await sandbox.close();
    await reseller.close();
    redis.disconnect();
    await redisServer.stop();
  }
}
