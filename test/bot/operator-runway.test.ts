import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRub } from "../../src/bot/format/money.js";
import { renderAlert } from "../../src/bot/format/operator-alerts.js";
import { renderBalance, runwayLine } from "../../src/bot/format/operator-stats.js";
import type { Order } from "../../src/orders/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { OPERATOR_ID, OperatorBot, translatorFor } from "./operator-harness.js";

const DAY = 24 * 3600_000;

/** Quotes 50 Stars for a new customer, pays it in Stars and waits until the reseller delivered it. */
async function buy(h: EngineHarness, n: number): Promise<Order> {
  const customer = newCustomer();
  const order = await h.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
  await h.engine.markPaid(order.id, {
    userId: customer.userId,
    currency: "XTR",
    totalAmount: order.amount!,
    telegramChargeId: `runwayCharge${n}`,
  });
  return eventually(
    async () => {
      const o = await h.engine.get(order.id);
      return o?.state === "delivered" ? o : null;
    },
    15_000,
    `order ${n} delivered`,
  );
}

describe("the deposit's runway in /balance and the low-balance alert", () => {
  let h: EngineHarness;
  let bot: OperatorBot;

  beforeAll(async () => {
    h = await startEngineHarness();
    bot = new OperatorBot(h);
  }, 30_000);

  afterAll(async () => {
    await h?.close();
  });

  it("says there is nothing to forecast from before anything was spent", async () => {
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance"));
    expect(shown.text).toContain("No spending in 7 days");
    const ru = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance", { language: "ru" }));
    expect(ru.text).toContain("За 7 дней трат не было");
  });

  it("forecasts from what pay charged once orders were paid, and says it in the low-balance alert", async () => {
    const orders = [await buy(h, 1), await buy(h, 2)];
    const spent = orders.reduce((sum, o) => sum + o.chargedKopecks!, 0);
    expect(spent).toBeGreaterThan(0);

    // A deposit as large as the last 7 days' spending lasts about a week (6 days and today so far).
    h.sandbox.setBalanceRub(spent / 100);
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance"));
    expect(shown.text).toMatch(
      new RegExp(
        `At the last 7 days' pace \\(${escapeRegExp(formatRub(spent, "en"))} spent\\) it lasts about [67] days\\.`,
      ),
    );
    const ru = OperatorBot.one(await bot.send(OPERATOR_ID, "/balance", { language: "ru" }));
    expect(ru.text.replace(/\s/g, " ")).toMatch(/хватит примерно на [67] (дней|дня)/);

    // A deposit a tenth of that lasts hours; a large one more than a year.
    h.sandbox.setBalanceRub(spent / 1000);
    expect(OperatorBot.one(await bot.send(OPERATOR_ID, "/balance")).text).toMatch(/lasts about 1\d hours\./);
    h.sandbox.setBalanceRub(1_000_000);
    expect(OperatorBot.one(await bot.send(OPERATOR_ID, "/balance")).text).toContain("lasts more than a year");

    // The deposit falls under LOW_BALANCE_RUB with the next order: the alert carries the runway.
    h.sandbox.setBalanceRub(500);
    const third = await buy(h, 3);
    const alert = await eventually(() => h.notifier.alertsOf("low_balance")[0], 15_000, "low balance alert");
    // The first check under the threshold may be an earlier one (the checks pulled forward by the
    // first orders can run while the test lowered the deposit): it counted the first two orders then.
    expect([spent, spent + third.chargedKopecks!]).toContain(alert.details.spentKopecks);
    expect(Number(alert.details.spendWindowMs)).toBeGreaterThanOrEqual(6 * DAY);
    const text = renderAlert(alert, undefined, translatorFor("en")).text;
    expect(text).toContain("Deposit low:");
    expect(text).toMatch(/At the last 7 days' pace \(.+ spent\) it lasts about \d+ (days?|hours?)\./);
    expect(text).not.toContain("spentKopecks"); // not listed again as an unknown detail
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("the runway line", () => {
  const WEEK = 7 * DAY;
  const line = (balanceKopecks: number, spentKopecks: number, locale: "en" | "ru") =>
    runwayLine(balanceKopecks, { spentKopecks, windowMs: WEEK }, translatorFor(locale), locale).replace(
      /\s/g,
      " ",
    );

  it("speaks of days and hours in both languages, with their plural forms", () => {
    expect(line(10_000, 70_000, "en")).toContain("lasts about 1 day.");
    expect(line(30_000, 70_000, "en")).toContain("(₽700 spent) it lasts about 3 days.");
    expect(line(3_000, 70_000, "en")).toContain("lasts about 7 hours.");
    expect(line(10_000, 70_000, "ru")).toContain("примерно на 1 день");
    expect(line(30_000, 70_000, "ru")).toContain("(потрачено 700 ₽) его хватит примерно на 3 дня");
    expect(line(50_000, 70_000, "ru")).toContain("примерно на 5 дней");
    expect(line(3_000, 70_000, "ru")).toContain("примерно на 7 часов");
    expect(line(0, 70_000, "en")).toContain("Nothing left to spend");
    expect(line(0, 70_000, "ru")).toContain("Тратить больше нечего");
    expect(line(1e15, 70_000, "ru")).toContain("больше чем на год");
  });

  it("is in /balance only when the spending could be read", () => {
    const t = translatorFor("en");
    const result = { ok: true as const, balanceRub: 300, checkedAt: 0 };
    expect(renderBalance(result, 1000, t, "en").text).not.toContain("⏳");
    expect(renderBalance(result, 1000, t, "en", { spentKopecks: 70_000, windowMs: WEEK }).text).toContain(
      "lasts about 3 days",
    );
  });
});
