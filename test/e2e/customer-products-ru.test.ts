import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { type AppHarness, startAppHarness } from "../helpers/app-harness.js";

/** The product kinds again, for a Russian-speaking customer (DEFAULT_LOCALE=ru, no language_code). */
let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness({ DEFAULT_LOCALE: "ru" });
});
afterAll(async () => {
  await h.close();
});

const T = { timeoutMs: 10_000 };
let nextId = 650_000_000;
const customer = (): ChatUser => {
  nextId += 1;
  return h.telegram.user({ id: nextId, username: `pokupatel_${nextId}` });
};

async function payAndWait(c: ChatUser) {
  await c.waitForBotMessage(/Заказ #/, 10_000);
  await c.pressButton(/^💳 Оплатить/, T);
  await c.waitFor((msgs) => msgs.some((m) => m.invoice), 10_000);
  expect((await c.payInvoice(T)).ok).toBe(true);
  return c.waitForBotMessage(/Заказ #\S+ доставлен/, 20_000);
}

describe("each product kind in Russian", () => {
  it("buys Premium for 6 months for themselves", async () => {
    const c = customer();
    await c.sendText("/start");
    await c.pressButton("💎 Telegram Premium", T);
    await c.pressButton("6 месяцев", T);
    await c.pressButton(/^🙋 Себе/, T);
    const final = await payAndWait(c);
    expect(final.text).toContain("💎 Telegram Premium на 6 месяцев");
  });

  it("sends a gift to a friend", async () => {
    const c = customer();
    await c.sendText("/start");
    await c.pressButton("🎁 Подарки", T);
    await c.pressButton(/^🧸/, T);
    await c.sendText("@drug_s_podarkom");
    const final = await payAndWait(c);
    expect(final.text).toContain("Кому: @drug_s_podarkom");
  });

  it("tops up Steam with a typed amount", async () => {
    const c = customer();
    await c.sendText("/start");
    await c.pressButton("🎮 Пополнение Steam", T);
    await c.waitForBotMessage(/Ваш логин Steam/, 10_000);
    await c.sendText("steam_login_ru");
    await c.waitForBotMessage(/На какую сумму/, 10_000);
    await c.sendText("1 500");
    const final = await payAndWait(c);
    expect(final.text?.replace(/\s/g, " ")).toContain("Пополнение Steam на 1 500 ₽");
  });

  it("buys an AI service", async () => {
    const c = customer();
    await c.sendText("/start");
    await c.pressButton("🤖 ИИ-сервисы", T);
    await c.pressButton(/^✳️ Claude Pro/, T);
    await payAndWait(c);
  });

  it("buys a game code", async () => {
    const c = customer();
    await c.sendText("/start");
    await c.pressButton("🕹 Игры", T);
    await c.pressButton("PUBG Mobile", T);
    await c.pressButton("Russia", T);
    await c.pressButton(/^60 UC code/, T);
    await c.pressButton("1", T);
    const final = await payAndWait(c);
    expect(final.text).toContain("Ваш код:");
  });
});
