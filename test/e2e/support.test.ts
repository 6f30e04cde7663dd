import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ChatUser, GroupChat } from "../../sandbox/telegram/index.js";
import {
  APP_OPERATOR_ID,
  type AppHarness,
  buyStars,
  newAppCustomer,
  quoteStars,
  startAppHarness,
} from "../helpers/app-harness.js";

/**
 * The support line end to end: a customer writes to support, the operators get it (in their
 * forum, their group, or each in private) with the customer's latest orders, an operator's
 * answer reaches the customer. The app as src/main.ts composes it, over the Telegram emulator.
 */

const FORUM_ID = -1001000000303;
const PLAIN_ID = -1001000000404;
const STRANGER_ID = 7_555_002;
const T = { timeoutMs: 10_000 };

const botTexts = (user: ChatUser) => user.botMessages().map((m) => m.text ?? "");

/** The order reference a customer sees on their card: `#` + 8 characters. */
const refOf = (delivered: ChatMessage) => /#([0-9a-f]{8})/.exec(delivered.text ?? "")![0];

async function writeToSupport(customer: ChatUser, text: string): Promise<void> {
  const sent = () => botTexts(customer).filter((t) => t.startsWith("✅ Sent to support")).length;
  const before = sent();
  await customer.sendText(text);
  await customer.waitFor(() => sent() > before);
}

describe("support in an operators' forum", () => {
  let h: AppHarness;
  let group: GroupChat;
  let operator: ChatUser;

  beforeAll(async () => {
    h = await startAppHarness({ OPERATOR_CHAT_ID: String(FORUM_ID) });
    group = h.telegram.group({ id: FORUM_ID, forum: true });
    operator = group.member({ id: APP_OPERATOR_ID, firstName: "Olga", languageCode: "en" });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("gives each customer a topic with their orders, and carries answers written there back", async () => {
    const customer = newAppCustomer(h.telegram);
    const ref = refOf(await buyStars(customer));
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "Where are my stars?");

    const header = await group.waitForBotMessage(/Support · Test @buyer_/);
    const topic = group.topics().find((t) => t.threadId === header.threadId)!;
    expect(topic.name).toBe(`Test @buyer_${customer.id} · ${customer.id}`);
    expect(header.text).toContain(`id ${customer.id}`);
    expect(header.text).toContain(ref);
    expect(header.text).toContain("⭐ Stars ×50");
    expect(header.text).toContain("delivered");
    await group.waitFor((msgs) =>
      msgs.some((m) => m.text === "Where are my stars?" && m.threadId === topic.threadId),
    );

    // Any message in the topic answers the customer (Telegram makes it a reply to the topic's start).
    await operator.sendText("They are on your account now.", { threadId: topic.threadId });
    const answer = await customer.waitForBotMessage(/Support:/);
    expect(answer.text).toBe("💬 Support: They are on your account now.");
    expect(customer.buttons(answer.messageId)).toEqual(["✉️ Contact support"]);
    await group.waitForBotMessage("✅ Sent to the customer.", { threadId: topic.threadId });

    // More from the customer: the same topic, no second header.
    await writeToSupport(customer, "Thanks!");
    await group.waitFor((msgs) => msgs.some((m) => m.text === "Thanks!" && m.threadId === topic.threadId));
    expect(group.topics().filter((t) => t.name === topic.name)).toHaveLength(1);
    expect(group.messages(topic.threadId).filter((m) => m.text?.includes("Support · "))).toHaveLength(1);

    // Someone in the group who is no operator cannot answer customers.
    const before = customer.botMessages().length;
    await group
      .member({ id: STRANGER_ID, languageCode: "en" })
      .sendText("hi from me", { threadId: topic.threadId });
    await group.waitForBotMessage(/Only the shop's operators/, { threadId: topic.threadId });
    expect(customer.botMessages()).toHaveLength(before);
  });

  it("refuses what cannot be passed on, and /cancel ends writing to support", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    const groupBefore = group.messages().length;
    await customer.sendUpdate({ message: { sticker: { file_id: "sticker-1", width: 512, height: 512 } } });
    await customer.waitForBotMessage(/Support takes text, photos and files/);
    expect(group.messages()).toHaveLength(groupBefore);

    await customer.sendText("/cancel");
    await customer.waitForBotMessage(/You stopped writing to support/);
    await customer.sendText("is anyone there?");
    await customer.waitFor(
      () => botTexts(customer).at(-1) !== "You stopped writing to support. /support to write again.",
    );
    expect(group.messages().some((m) => m.text === "is anyone there?")).toBe(false);
  });

  it("offers Contact support under a failed order, and /paysupport leads there too", async () => {
    h.sandbox.setOutcome(() => ({ status: "failed", errorMessage: "recipient not found" }));
    const customer = newAppCustomer(h.telegram);
    try {
      await quoteStars(customer);
      expect((await customer.payInvoice(T)).ok).toBe(true);
      await customer.pressButton("✉️ Contact support", { timeoutMs: 20_000 });
    } finally {
      h.sandbox.setOutcome(() => ({ status: "delivered" }));
    }
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "My order failed, what now?");
    const header = await group.waitForBotMessage(new RegExp(`id ${customer.id}`));
    expect(header.text).toContain("failed");

    const payer = newAppCustomer(h.telegram);
    await payer.sendText("/paysupport");
    const intro = await payer.waitForBotMessage(/Writing to support/);
    expect(intro.text).toContain("Payment help");
    await writeToSupport(payer, "I paid twice");
    await group.waitFor((msgs) => msgs.some((m) => m.text === "I paid twice"));
  });
});

describe("support in an operators' group that is no forum", () => {
  let h: AppHarness;
  let group: GroupChat;
  let operator: ChatUser;

  beforeAll(async () => {
    h = await startAppHarness({ OPERATOR_CHAT_ID: String(PLAIN_ID) });
    group = h.telegram.group({ id: PLAIN_ID });
    operator = group.member({ id: APP_OPERATOR_ID, languageCode: "en" });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("posts the customer's messages in the chat; a reply to one answers the customer", async () => {
    const customer = newAppCustomer(h.telegram);
    const ref = refOf(await buyStars(customer));
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "Is my order done?");
    const header = await group.waitForBotMessage(/Support · /);
    expect(header.threadId).toBeUndefined();
    expect(header.text).toContain(ref);
    await group.waitFor((msgs) => msgs.some((m) => m.text === "Is my order done?"));
    const copied = group.messages().find((m) => m.text === "Is my order done?")!;

    // Talk among operators (no reply) stays in the group.
    await operator.sendText("who takes this one?");
    await operator.sendText("Yes, delivered.", { replyTo: copied.messageId });
    const answer = await customer.waitForBotMessage(/Support:/);
    expect(answer.text).toBe("💬 Support: Yes, delivered.");
    expect(botTexts(customer).some((t) => t.includes("who takes this one?"))).toBe(false);

    // A reply to the header answers the same customer.
    await operator.sendText("Anything else?", { replyTo: header.messageId });
    await customer.waitForBotMessage("💬 Support: Anything else?");
    expect(h.telegram.calls("createForumTopic")).toEqual([]);
  });
});

describe("support without an operators' group", () => {
  let h: AppHarness;
  let operator: ChatUser;

  beforeAll(async () => {
    h = await startAppHarness();
    operator = h.telegram.user({ id: APP_OPERATOR_ID, languageCode: "en" });
    operator.startChat();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("brings the customer's message to each operator in private; a reply answers the customer", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "Do you sell gift cards?");
    const header = await operator.waitForBotMessage(/Support · /);
    expect(header.text).toContain("No orders yet.");
    const [copy] = (
      await operator.waitFor((msgs) => msgs.some((m) => m.text === "Do you sell gift cards?"))
    ).filter((m) => m.text === "Do you sell gift cards?");

    await operator.sendText("Not yet, soon.", { replyTo: copy!.messageId });
    const answer = await customer.waitForBotMessage(/Support:/);
    expect(answer.text).toBe("💬 Support: Not yet, soon.");
    await operator.waitForBotMessage("✅ Sent to the customer.");

    // The customer writes back with the button under the answer.
    await customer.pressButton("✉️ Contact support", { messageId: answer.messageId, ...T });
    await writeToSupport(customer, "Great, thanks");
    await operator.waitFor((msgs) => msgs.some((m) => m.text === "Great, thanks"));
  });
  it("carries an answer as long as Telegram allows: the label first, then the answer whole", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "Tell me everything");
    const [copy] = (
      await operator.waitFor((msgs) => msgs.some((m) => m.text === "Tell me everything"))
    ).filter((m) => m.text === "Tell me everything");

    const long = `${"All <about> & more. ".repeat(204)}ending`;
    expect(long.length).toBeLessThanOrEqual(4096);
    await operator.sendText(long, { replyTo: copy!.messageId });
    const answer = await customer.waitForBotMessage(/ending$/);
    expect(answer.text).toBe(long);
    expect(customer.buttons(answer.messageId)).toEqual(["✉️ Contact support"]);
    expect(customer.botMessages().at(-2)?.text).toBe("💬 Support:");
    await operator.waitForBotMessage("✅ Sent to the customer.");
    expect(h.telegram.calls().filter((call) => !call.ok)).toEqual([]);
  });
});

describe("support to an operator who never chose a language", () => {
  let h: AppHarness;
  afterAll(async () => {
    await h?.close();
  });

  it("heads the customer's message in the language the bot answers that operator in, not DEFAULT_LOCALE", async () => {
    h = await startAppHarness({ DEFAULT_LOCALE: "ru" });
    const operator = h.telegram.user({ id: APP_OPERATOR_ID, languageCode: "en" });
    await operator.sendText("/start");
    await operator.waitFor((msgs) => msgs.some((m) => m.from === "bot"));
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/support");
    await customer.waitForBotMessage(/Writing to support/);
    await writeToSupport(customer, "Hello?");
    const header = await operator.waitForBotMessage(/Support · /);
    expect(header.text).toContain("No orders yet.");
  });
});
