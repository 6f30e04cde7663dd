import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { starsForPrice } from "../../src/orders/pricing.js";
import { discountOn } from "../../src/promo/discount.js";
import {
  APP_OPERATOR_ID,
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  orderIdOf,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

/**
 * Promo codes end to end: the operator makes a code with /promo in the Telegram emulator, a
 * customer applies it on the order card, pays the discounted Stars invoice and gets the delivery.
 */

let h: AppHarness;
let operator: ChatUser;

beforeAll(async () => {
  h = await startAppHarness();
  operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
  operator.startChat();
});

afterAll(async () => {
  await h?.close();
});

describe("promo codes end to end", () => {
  it("a bad /promo line is answered with its rule and creates nothing", async () => {
    await operator.sendText("/promo new SPRING 250%");
    await operator.waitForBotMessage("The discount is a percent", 10_000);
    expect(await h.app.orders.promos!.get("SPRING")).toBeNull();
  });

  it("an unknown option is named as typed, < and > included", async () => {
    await operator.sendText("/promo new AUTUMN 10% <uses>=5");
    await operator.waitForBotMessage("⛔ Unknown option <uses>=5: use for=", 10_000);
    expect(await h.app.orders.promos!.get("AUTUMN")).toBeNull();
  });

  it("apply → pay → delivered with the discounted amount charged", async () => {
    await operator.sendText("/promo new SAVE5 5% for=stars limit=10");
    await operator.waitForBotMessage("Code created", 10_000);

    const customer = newAppCustomer(h.telegram);
    const card = await starsCard(customer);
    const orderId = /cx:([0-9a-f-]{36})/.exec(JSON.stringify(card.replyMarkup))?.[1];
    expect(orderId).toBeDefined();
    const before = (await h.app.orders.get(orderId!))!;

    await customer.pressButton("🎟 Promo code", { timeoutMs: 10_000 });
    await customer.waitForBotMessage("Send your promo code", 10_000);
    await customer.sendText("nosuchcode");
    await customer.waitForBotMessage("There is no such promo code", 10_000);
    // A sticker instead of the code: the rule and the question again, and the code still awaited.
    await customer.sendUpdate({
      message: {
        sticker: {
          file_id: "s1",
          file_unique_id: "s1u",
          type: "regular",
          width: 512,
          height: 512,
          is_animated: false,
          is_video: false,
        },
      },
    });
    const again = await customer.waitForBotMessage("Please answer with a text message", 10_000);
    expect(again.text).toContain("Send your promo code");
    await customer.sendText("save5");
    await customer.waitForBotMessage("Code SAVE5 applied", 10_000);

    const after = (await h.app.orders.get(orderId!))!;
    const expected = discountOn(
      { type: "percent", value: 5 },
      before.priceKopecks!,
      before.wholesaleKopecks!,
    );
    expect(after.priceKopecks).toBe(expected.priceKopecks);
    const stars = starsForPrice(expected.priceKopecks, 1.5);
    expect(after.amount).toBe(stars);
    expect(after.promo).toMatchObject({ code: "SAVE5", discountKopecks: expected.discountKopecks });
    // The card now shows the old price struck and the new one, and no promo button.
    const edited = customer.messages().find((m) => m.messageId === card.messageId)!;
    expect(edited.html).toContain("<s>");
    expect(edited.html).toContain("SAVE5");
    expect(customer.buttons(card.messageId)).not.toContain("🎟 Promo code");

    await customer.pressButton(/^💳 Pay/, { messageId: card.messageId, timeoutMs: 10_000 });
    const [invoice] = await customer.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), 10_000);
    const inv = customer.messages().find((m) => m.invoice !== undefined) ?? invoice!;
    expect(orderIdOf(inv)).toBe(orderId);
    expect(inv.invoice?.totalAmount).toBe(stars);
    expect(inv.invoice?.currency).toBe("XTR");
    const paid = await customer.payInvoice({ timeoutMs: 10_000 });
    expect(paid.ok).toBe(true);
    await customer.waitForBotMessage(DELIVERED, 20_000);
    const done = await eventually(
      async () => {
        const o = await h.app.orders.get(orderId!);
        return o?.state === "delivered" ? o : null;
      },
      20_000,
      "delivered",
    );
    expect(done.amount).toBe(stars);
    expect(done.currency).toBe("XTR");
    expect((await h.app.orders.promos!.get("SAVE5"))?.used).toBe(1);
  });

  it("an invoice sent before the code was applied is refused with the way to pay the new price", async () => {
    await operator.sendText("/promo new LATE7 7% limit=10");
    await operator.waitForBotMessage("Code created", 10_000);
    const customer = newAppCustomer(h.telegram);
    const card = await starsCard(customer);
    await customer.pressButton(/^💳 Pay/, { messageId: card.messageId, timeoutMs: 10_000 });
    await customer.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), 10_000);
    await customer.pressButton("🎟 Promo code", { timeoutMs: 10_000 });
    await customer.sendText("LATE7");
    await customer.waitForBotMessage("Code LATE7 applied", 10_000);
    const refused = await customer.payInvoice({ timeoutMs: 10_000 });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/price changed/);
    expect(refused.error).toMatch(/buttons on the order's card/);
    expect(refused.error).not.toMatch(/\/start/);
  });

  it("a batch of one-time codes is listed for copying; each is used once", async () => {
    await operator.sendText("/promo batch 3 10");
    const list = await operator.waitForBotMessage("one-time codes", 10_000);
    const codes = [...(list.html ?? "").matchAll(/<code>([A-Z0-9]{10})<\/code>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(3);
    for (const c of codes) expect(c).toMatch(/^[ACDEFGHJKMNPQRTUVWXY34679]{10}$/);
    const first = codes[0]!;
    const a = newAppCustomer(h.telegram);
    await starsCard(a);
    await a.pressButton("🎟 Promo code", { timeoutMs: 10_000 });
    await a.sendText(first);
    await a.waitForBotMessage(`Code ${first} applied`, 10_000);
    const b = newAppCustomer(h.telegram);
    await starsCard(b);
    await b.pressButton("🎟 Promo code", { timeoutMs: 10_000 });
    await b.sendText(first);
    await b.waitForBotMessage("has been used up", 10_000);
  });
});
