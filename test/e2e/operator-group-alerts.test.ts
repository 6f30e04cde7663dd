import { Api } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser, GroupChat } from "../../sandbox/telegram/index.js";
import { createNotifier } from "../../src/bot/notifier.js";
import { createConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { ProductPausedError } from "../../src/orders/deposit-guard.js";
import type { Order } from "../../src/orders/types.js";
import { APP_OPERATOR_ID, type AppHarness, startAppHarness } from "../helpers/app-harness.js";
import { newOrderId, sampleItems } from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { uniquePrefix } from "../helpers/redis.js";

/**
 * Operator alerts in the operators' group (OPERATOR_CHAT_ID), end to end: the app as src/main.ts
 * composes it, the Telegram emulator's group and forum, the reseller sandbox. Orders are placed
 * through the orders engine with CHECKOUT=direct ("RUB" records a provider payment, which only an
 * operator can refund, for the Mark refunded button).
 */

const FORUM_ID = -1001000000101;
const PLAIN_ID = -1001000000202;
const STRANGER_ID = 7_555_001;
const T = { timeoutMs: 10_000 };
let userSeq = 651_000_000;
let chargeSeq = 0;

/**
 * A quote of 50 Stars. A pay refused for the deposit pauses Stars: a quote refused meanwhile has
 * the deposit checked again, and the next one goes through once the deposit covers it.
 */
async function quote(h: AppHarness): Promise<Order> {
  userSeq += 1;
  h.telegram.user({ id: userSeq, languageCode: "en" }).startChat();
  const customer = { userId: userSeq, chatId: userSeq, username: `client_${userSeq}`, locale: "en" as const };
  return eventually(
    () =>
      h.app.orders
        .quote({ orderId: newOrderId(), item: sampleItems().stars!, customer })
        .catch((err: unknown) => {
          if (err instanceof ProductPausedError) return undefined;
          throw err;
        }),
    15_000,
    "Stars on sale",
  );
}

async function pay(h: AppHarness, order: Order, currency: "NONE" | "RUB" = "NONE"): Promise<void> {
  chargeSeq += 1;
  if (currency === "NONE") {
    expect((await h.app.orders.confirm(order.id, order.customer.userId)).won).toBe(true);
    return;
  }
  await h.app.orders.markPaid(order.id, {
    userId: order.customer.userId,
    currency,
    totalAmount: order.priceKopecks!,
    telegramChargeId: `groupCharge${chargeSeq}`,
    providerChargeId: `groupProvider${chargeSeq}`,
  });
}

const alertsIn = (group: GroupChat, headline: string) =>
  group.messages().filter((m) => m.from === "bot" && m.text?.startsWith(headline));

function topicNamed(group: GroupChat, name: string) {
  return group.topics().find((t) => t.name === name && !t.deleted);
}

describe("alerts in an operators' forum", () => {
  let h: AppHarness;
  let group: GroupChat;
  let operator: ChatUser;
  let stranger: ChatUser;

  beforeAll(async () => {
    // No low-deposit alerts of the app's own: the deposit is set low on purpose below.
    h = await startAppHarness({
      CHECKOUT: "direct",
      OPERATOR_CHAT_ID: String(FORUM_ID),
      LOW_BALANCE_RUB: "0",
    });
    group = h.telegram.group({ id: FORUM_ID, title: "Shop operators", forum: true });
    operator = group.member({ id: APP_OPERATOR_ID, firstName: "Olga", languageCode: "en" });
    stranger = group.member({ id: STRANGER_ID, firstName: "Visitor", languageCode: "en" });
    h.telegram.user({ id: APP_OPERATOR_ID, languageCode: "en" }).startChat();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("puts each alert kind in its own topic, made once and again when an operator deleted it", async () => {
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "no such recipient" }));
    const [a, b] = [await quote(h), await quote(h)];
    await pay(h, a);
    await pay(h, b);
    await group.waitFor(() => alertsIn(group, "❌ Delivery failed").length === 2, 20_000);
    const failedTopic = topicNamed(group, "❌ Failed deliveries");
    expect(failedTopic).toBeDefined();
    for (const alert of alertsIn(group, "❌ Delivery failed"))
      expect(alert.threadId).toBe(failedTopic!.threadId);

    h.sandbox.setOutcome(() => ({ status: "delivered" }));
    const normal = h.sandbox.balanceRub();
    // The deposit runs low between the quote (which it covered) and the payment.
    const refused = await quote(h);
    h.sandbox.setBalanceRub(10);
    await pay(h, refused);
    const refusedAlert = await group.waitForBotMessage(/^⛔ Pay refused/, { timeoutMs: 20_000 });
    // The refusal paused Stars: that alert has a topic of its own.
    const pausedAlert = await group.waitForBotMessage(/^⏸ ⭐ Telegram Stars paused/, { timeoutMs: 20_000 });
    h.sandbox.setBalanceRub(normal);
    expect(refusedAlert.threadId).toBe(topicNamed(group, "⛔ Refused payments")?.threadId);
    expect(pausedAlert.threadId).toBe(topicNamed(group, "⏸ Paused products")?.threadId);
    expect(h.telegram.calls("createForumTopic")).toHaveLength(3);
    // Nothing in the operator's private chat: the group has it.
    expect(h.telegram.user({ id: APP_OPERATOR_ID }).botMessages()).toEqual([]);

    // An operator deletes the topic: the next alert of its kind gets a new one.
    group.deleteTopic(failedTopic!.threadId);
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "still no such recipient" }));
    const c = await quote(h);
    await pay(h, c);
    const again = await group.waitForBotMessage(/^❌ Delivery failed/, { timeoutMs: 20_000 });
    h.sandbox.setOutcome(() => ({ status: "delivered" }));
    const renewed = topicNamed(group, "❌ Failed deliveries");
    expect(renewed!.threadId).not.toBe(failedTopic!.threadId);
    expect(again.threadId).toBe(renewed!.threadId);
    expect(again.text).toContain(`#${c.id.slice(0, 8)}`);
    expect(h.telegram.calls("createForumTopic")).toHaveLength(4);
  });

  it("lets only operators use the alert's buttons in the group", async () => {
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient banned" }));
    const owed = await quote(h);
    await pay(h, owed, "RUB");
    const alert = await group.waitForBotMessage(/^💸 Refund needed/, { timeoutMs: 20_000 });
    h.sandbox.setOutcome(() => ({ status: "delivered" }));

    const refused = await stranger.pressButton("🔎 Open order", { messageId: alert.messageId, ...T });
    expect(refused.callbackAnswer?.text).toBe("Only the shop's operators can use this button.");
    // Forged: a stranger's "Mark refunded, confirmed" changes nothing.
    await stranger.pressCallbackData(`op:y:${owed.id}`, alert.messageId);

    await operator.pressButton("🔎 Open order", { messageId: alert.messageId, ...T });
    const card = await group.waitForBotMessage(owed.id, { threadId: alert.threadId! });
    expect(card.text).toContain("refund needed");
    expect((await h.app.orders.get(owed.id))?.refund).toBe("needed");

    const strangerTap = await stranger.pressButton("💸 Mark refunded", { messageId: card.messageId, ...T });
    expect(strangerTap.callbackAnswer?.text).toMatch(/Only the shop's operators/);
    expect((await h.app.orders.get(owed.id))?.refund).toBe("needed");

    await operator.pressButton("💸 Mark refunded", { messageId: card.messageId, ...T });
    await operator.pressButton("✅ Yes, it is refunded", { messageId: card.messageId, ...T });
    await eventually(async () => (await h.app.orders.get(owed.id))?.refund === "done", 10_000, "refunded");
  });

  it("tells an operator who types a private-only command in the group where it works; a stranger gets nothing", async () => {
    const answers = () =>
      group.messages().filter((m) => m.from === "bot" && m.text?.includes("works in a private chat"));
    await operator.sendText("/prices");
    const general = await group.waitForBotMessage(/^⚙️ \/prices works in a private chat/, T);
    expect(general.text).toContain("@shop_test_bot");
    const topic = group.topics().find((t) => !t.deleted)!;
    await operator.sendText(`/customer ${STRANGER_ID}`, { threadId: topic.threadId });
    const inTopic = await group.waitForBotMessage(/^⚙️ \/customer works in a private chat/, T);
    expect(inTopic.threadId).toBe(topic.threadId);
    await stranger.sendText("/export");
    // /balance still answers in the group, after the stranger's command: that got no answer.
    await operator.sendText("/balance");
    await group.waitForBotMessage(/Reseller deposit/, T);
    expect(answers()).toHaveLength(2);
  });

  it("makes each kind's topic once when two processes alert at the same moment", async () => {
    // Two notifiers as two processes have them: their own Bot API clients, one Redis.
    const config = createConfig({ ...h.env, REDIS_PREFIX: uniquePrefix("twoproc") });
    const logger = createLogger({ level: "silent" });
    const notifiers = [0, 1].map(() =>
      createNotifier({
        api: new Api(config.botToken, { apiRoot: config.telegramApiRoot }),
        config,
        logger,
        redis: h.app.redis,
      }),
    );
    const before = h.telegram.calls("createForumTopic").length;
    const low = { kind: "low_balance" as const, details: { balanceRub: 5, thresholdRub: 1000 } };
    const auth = {
      kind: "reseller_auth" as const,
      details: { endpoint: "balance", status: 401, message: "no" },
    };
    await Promise.all(notifiers.flatMap((n) => [n.alert(low), n.alert(auth), n.alert(low)]));
    expect(h.telegram.calls("createForumTopic").length - before).toBe(2);
    const lows = alertsIn(group, "🪫 Deposit low");
    const auths = alertsIn(group, "🔑 Reseller API key rejected");
    expect(lows).toHaveLength(4);
    expect(auths).toHaveLength(2);
    expect(new Set(lows.map((m) => m.threadId)).size).toBe(1);
    expect(new Set(auths.map((m) => m.threadId)).size).toBe(1);
    expect(lows[0]!.threadId).not.toBe(auths[0]!.threadId);
  });
});

describe("alerts in an operators' group that is no forum", () => {
  let h: AppHarness;
  let group: GroupChat;

  beforeAll(async () => {
    h = await startAppHarness({ CHECKOUT: "direct", OPERATOR_CHAT_ID: String(PLAIN_ID) });
    group = h.telegram.group({ id: PLAIN_ID, title: "Shop operators" });
    group.member({ id: APP_OPERATOR_ID, languageCode: "en" });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("posts them plainly in the chat, with their buttons working for an operator", async () => {
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "no such recipient" }));
    const order = await quote(h);
    await pay(h, order);
    const alert: ChatMessage = await group.waitForBotMessage(/^❌ Delivery failed/, { timeoutMs: 20_000 });
    expect(alert.threadId).toBeUndefined();
    expect(h.telegram.calls("createForumTopic")).toEqual([]);
    await group
      .member({ id: APP_OPERATOR_ID })
      .pressButton("🔎 Open order", { messageId: alert.messageId, ...T });
    await group.waitForBotMessage(order.id);
  });
});

describe("alerts when the operators' group cannot be written to", () => {
  let h: AppHarness;

  beforeAll(async () => {
    // The bot is in no group with this id (never added, or removed).
    h = await startAppHarness({ CHECKOUT: "direct", OPERATOR_CHAT_ID: "-1001000000909" });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("reach each operator in private instead", async () => {
    const operator = h.telegram.user({ id: APP_OPERATOR_ID, languageCode: "en" });
    operator.startChat();
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "no such recipient" }));
    const order = await quote(h);
    await pay(h, order);
    const alert = await operator.waitForBotMessage(/^❌ Delivery failed/, 20_000);
    expect(alert.text).toContain(`#${order.id.slice(0, 8)}`);
  });
});
