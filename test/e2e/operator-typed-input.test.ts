import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { INCOMING_LIMIT } from "../../src/bot/index.js";
import { WalletLedger } from "../../src/wallet/ledger.js";
import { APP_OPERATOR_ID, type AppHarness, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

/**
 * The operator's typed answers (a customer note, a wallet correction's amount and reason, a markup)
 * end to end: a sticker or a photo instead of the text is answered with the rule and the question
 * again, changes nothing, and the question still waits for its text.
 */

let h: AppHarness;
let operator: ChatUser;

const STICKER = {
  sticker: {
    file_id: "stk-1",
    file_unique_id: "stk-u1",
    type: "regular",
    width: 512,
    height: 512,
    is_animated: false,
    is_video: false,
  },
};
const PHOTO = {
  photo: [{ file_id: "ph-1", file_unique_id: "ph-u1", width: 90, height: 90 }],
  caption: "+150",
};

/** Kept under the bot's limit on one user's updates (INCOMING_LIMIT): a dozen in its window. */
const pause = () => new Promise((r) => setTimeout(r, INCOMING_LIMIT.windowMs / INCOMING_LIMIT.updates + 50));

async function sendNonText(content: Record<string, unknown>): Promise<string> {
  await pause();
  const before = operator.botMessages().length;
  await operator.sendUpdate({ message: content });
  const [reply] = await operator
    .waitFor((msgs) => msgs.filter((m) => m.from === "bot").length > before, 10_000)
    .then(() => operator.botMessages().slice(before));
  return reply?.text ?? "";
}

async function say(text: string, expected: string | RegExp) {
  await pause();
  await operator.sendText(text);
  return operator.waitForBotMessage(expected, 10_000);
}

beforeAll(async () => {
  h = await startAppHarness({ CHECKOUT: "wallet,stars" });
  operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
  operator.startChat();
});

afterAll(async () => {
  await h?.close();
});

describe("an operator's typed answer", () => {
  it("a sticker or photo instead of a note, an amount, a reason or a markup gets the rule and the question again", async () => {
    const customer = newAppCustomer(h.telegram);
    await customer.sendText("/start");
    await customer.waitForBotMessage("What would you like to buy?", 10_000);

    await say(`/customer ${customer.id}`, `Customer id ${customer.id}`);
    await pause();
    await operator.pressButton("📝 Add note", { timeoutMs: 10_000 });
    await operator.waitForBotMessage("Send the note about customer", 10_000);
    const note = await sendNonText(STICKER);
    expect(note).toContain("Please answer with a text message");
    expect(note).toContain("Send the note about customer");
    await say("called about a refund", "Note saved");

    await say(`/wallet ${customer.id}`, `Wallet of customer ${customer.id}`);
    await pause();
    await operator.pressButton("✏️ Adjust", { timeoutMs: 10_000 });
    await operator.waitForBotMessage("Send the signed amount", 10_000);
    const amount = await sendNonText(PHOTO);
    expect(amount).toContain("Please answer with a text message");
    expect(amount).toContain("Send the signed amount");
    await say("+150", "Send the reason");
    const reason = await sendNonText(STICKER);
    expect(reason).toContain("Please answer with a text message");
    expect(reason).toContain("Send the reason");
    await say("goodwill", "Apply this correction?");
    expect(await new WalletLedger(h.app.redis, h.app.config.redisPrefix).balance(customer.id)).toBe(0);

    await say("/prices", "Prices and products");
    await pause();
    await operator.pressButton(/^⭐ Telegram Stars · /, { timeoutMs: 10_000 });
    await operator.waitForBotMessage("Send the markup of ⭐ Telegram Stars", 10_000);
    const markup = await sendNonText(STICKER);
    expect(markup).toContain("Please answer with a text message");
    expect(markup).toContain("Send the markup of ⭐ Telegram Stars");
    await say("12.5", "Saved");
    expect(operator.lastBotMessage()?.text).toContain("Telegram Stars: markup 12.5%");
  });
});
