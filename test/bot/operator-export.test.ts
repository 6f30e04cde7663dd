import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrderArchive } from "../../src/orders/archive.js";
import type { OrdersEngine } from "../../src/orders/engine.js";
import { EXPORT_COLUMNS } from "../../src/orders/export.js";
import type { Customer, Order } from "../../src/orders/types.js";
import {
  type EngineHarness,
  newCustomer,
  newOrderId,
  sampleItems,
  startEngineHarness,
} from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";
import { button, CUSTOMER_ID, OPERATOR_ID, OperatorBot } from "./operator-harness.js";

const DAY = 24 * 3600_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const NOW = Date.now();

type Row = Record<(typeof EXPORT_COLUMNS)[number], string>;

/** A stored order record (written straight to Redis or the archive), created at `createdAt`. */
function record(createdAt: number, over: Partial<Order> = {}): Order {
  return {
    id: randomUUID(),
    state: "delivered",
    item: { kind: "stars", product: "stars", recipient: "someone", quantity: 50 },
    customer: { userId: 4242, chatId: 4242, username: "plain_user", locale: "en" },
    currency: "XTR",
    amount: 60,
    wholesaleKopecks: 7_500,
    chargedKopecks: 7_500,
    priceKopecks: 8_300,
    telegramChargeId: `ch_${randomUUID().slice(0, 8)}`,
    refund: "none",
    stuck: false,
    createdAt,
    updatedAt: createdAt,
    times: {
      quoted: createdAt,
      paid: createdAt + 1_000,
      pending: createdAt + 2_000,
      delivered: createdAt + 3_000,
    },
    ...over,
  };
}

/** The CSV of a document: BOM checked and removed, parsed into rows by header. */
function readCsv(data: Buffer): { header: string[]; rows: Row[] } {
  expect([...data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = data.subarray(3).toString("utf8");
  const [header = []] = parse(text, { to_line: 1 }) as string[][];
  const rows = parse(text, { columns: true }) as Row[];
  return { header, rows };
}

describe("/export: the operators' CSV of a period", () => {
  let h: EngineHarness;
  let engine: OrdersEngine;
  let bot: OperatorBot;
  let dir: string;
  const paid: Order[] = [];
  const weird: Order[] = [];
  let archivedOnly: Order;
  let archivedTwice: Order;
  let inBoth: Order;
  let outside: Order;

  beforeAll(async () => {
    h = await startEngineHarness();
    dir = await mkdtemp(join(tmpdir(), "export-archive-"));
    // Reads Redis and the archive, as the app does with ORDER_RETENTION_DAYS (not started: no sweeps).
    engine = h.buildEngine({ retention: { days: 90, dir } });
    bot = new OperatorBot(h, { orders: engine, now: () => NOW });

    // Two orders bought through the engine and the reseller sandbox today; one customer's username
    // is a formula.
    const customers: Customer[] = [
      { ...newCustomer(), username: '=HYPERLINK("http://evil.example","x")' },
      newCustomer(),
    ];
    for (const [i, customer] of customers.entries()) {
      const order = await h.engine.quote({ orderId: newOrderId(), item: sampleItems().stars!, customer });
      await h.engine.markPaid(order.id, {
        userId: customer.userId,
        currency: "XTR",
        totalAmount: order.amount!,
        telegramChargeId: `stxExport${i}`,
      });
    }
    for (const o of await h.engine.listAll("all", 0, 10).then((p) => p.items)) {
      paid.push(
        await eventually(
          async () => {
            const x = await h.engine.get(o.id);
            return x?.state === "delivered" ? x : null;
          },
          15_000,
          "delivered",
        ),
      );
    }

    // Records whose customer-chosen texts start like formulas, and a negative margin.
    weird.push(
      record(NOW - 2 * DAY, {
        customer: { userId: 4243, chatId: 4243, username: "\tTAB", locale: "ru" },
        item: {
          kind: "game",
          product: "game",
          productRef: "pubg-global-60",
          title: "+PUBG · 60 UC",
          recipient: "=cmd|' /C calc'!A0",
          fields: { player_id: "-5123" },
        },
        telegramChargeId: "@charge",
        providerChargeId: "-provider",
      }),
      record(NOW - 3 * DAY, { state: "delivered", priceKopecks: 1_000, chargedKopecks: 2_250 }),
    );
    for (const o of weird) expect(await h.engine.store.create(o, [])).toBe(true);

    // The archive: an order only there (two lines, the last wins), one also in Redis (Redis wins),
    // one created before the period.
    const archive = new OrderArchive(dir);
    archivedOnly = record(NOW - 40 * DAY, {
      customer: { userId: 77, chatId: 77, username: "archived", locale: "ru" },
    });
    archivedTwice = record(NOW - 41 * DAY, { state: "pending", times: { paid: NOW - 41 * DAY } });
    inBoth = record(NOW - 5 * DAY, { state: "pending" });
    outside = record(NOW - 80 * DAY);
    await archive.append([archivedOnly, archivedTwice, { ...inBoth, state: "expired" }, outside]);
    archivedTwice = {
      ...archivedTwice,
      state: "failed",
      times: { ...archivedTwice.times, failed: NOW - 40 * DAY },
    };
    await archive.append([archivedTwice]);
    expect(await h.engine.store.create(inBoth, [])).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("sends one row per order of a typed period, Redis and the archive, as UTF-8 CSV with a BOM", async () => {
    const from = day(NOW - 60 * DAY);
    const to = day(NOW);
    const before = bot.documents.length;
    const calls = await bot.send(OPERATOR_ID, `/export ${from} ${to}`);
    const sent = calls.filter((c) => c.method === "sendDocument");
    expect(sent).toHaveLength(1);
    expect(String(sent[0]!.payload.caption)).toContain(`7 orders created ${from} – ${to}`);
    const doc = bot.documents[before]!;
    expect(doc.name).toBe(`orders-${from}-${to}.csv`);

    const { header, rows } = readCsv(doc.data);
    expect(header).toEqual([...EXPORT_COLUMNS]);
    const ids = rows.map((r) => r.id);
    expect(ids).toHaveLength(7);
    expect(new Set(ids)).toEqual(
      new Set([...paid, ...weird, inBoth, archivedOnly, archivedTwice].map((o) => o.id)),
    );
    expect(ids).not.toContain(outside.id);

    // Redis wins over the archive; the archive's last line wins over an earlier one.
    expect(rows.find((r) => r.id === inBoth.id)!.state).toBe("pending");
    expect(rows.find((r) => r.id === archivedTwice.id)!.state).toBe("failed");
    expect(rows.find((r) => r.id === archivedOnly.id)!.customer_username).toBe("archived");

    // A real order's money and times.
    const o = paid.find((x) => x.telegramChargeId === "stxExport1")!;
    const row = rows.find((r) => r.id === o.id)!;
    const rub = (k: number) => (k / 100).toFixed(2);
    expect(row).toMatchObject({
      created_at: new Date(o.createdAt).toISOString(),
      paid_at: new Date(o.times.paid!).toISOString(),
      final_at: new Date(o.times.delivered!).toISOString(),
      customer_id: String(o.customer.userId),
      customer_username: o.customer.username,
      product_kind: "stars",
      product: "stars",
      quantity: "50",
      recipient: "durov_fan",
      customer_price_rub: rub(o.priceKopecks!),
      wholesale_rub: rub(o.chargedKopecks!),
      margin_rub: rub(o.priceKopecks! - o.chargedKopecks!),
      rail: "stars",
      paid_currency: "XTR",
      paid_amount: String(o.amount),
      state: "delivered",
      refund: "none",
      payment_ids: "stxExport1",
    });
  });

  it("makes every text a customer chose harmless to a spreadsheet, and keeps numbers numbers", async () => {
    const before = bot.documents.length;
    await bot.send(OPERATOR_ID, `/export ${day(NOW - 7 * DAY)} ${day(NOW)}`);
    const { rows } = readCsv(bot.documents[before]!.data);

    const formula = paid.find((x) => x.customer.username?.startsWith("="))!;
    expect(rows.find((r) => r.id === formula.id)!.customer_username).toBe(
      `'=HYPERLINK("http://evil.example","x")`,
    );
    const w = rows.find((r) => r.id === weird[0]!.id)!;
    expect(w.customer_username).toBe("'\tTAB");
    expect(w.recipient).toBe("'=cmd|' /C calc'!A0");
    expect(w.item_title).toBe("'+PUBG · 60 UC");
    expect(w.parameters).toBe("player_id=-5123");
    expect(w.payment_ids).toBe("'@charge -provider");
    // A negative margin (charged more than the price) is a number, not a text.
    expect(rows.find((r) => r.id === weird[1]!.id)!.margin_rub).toBe("-12.50");

    const numeric = new Set([
      "customer_price_rub",
      "wholesale_rub",
      "margin_rub",
      "paid_amount",
      "promo_discount_rub",
      "customer_id",
      "quantity",
    ]);
    for (const r of rows) {
      for (const [column, value] of Object.entries(r)) {
        if (numeric.has(column)) expect(value, column).toMatch(/^(-?\d+(\.\d{2})?)?$/);
        else expect(value, `${column} of ${r.id}`).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
  });

  it("offers the preset periods as buttons and exports today's orders from one", async () => {
    const shown = OperatorBot.one(await bot.send(OPERATOR_ID, "/export"));
    expect(shown.keyboard.flat().map((b) => b.text)).toEqual([
      "Today",
      "Last 7 days",
      "Last 30 days",
      "This month",
      "Last month",
    ]);
    const before = bot.documents.length;
    const calls = await bot.press(OPERATOR_ID, button(shown.keyboard, "Today").data);
    expect(OperatorBot.callbackAnswer(calls)?.text).toBe("Preparing the file…");
    const doc = bot.documents[before]!;
    expect(doc.name).toBe(`orders-${day(NOW)}-${day(NOW)}.csv`);
    const { rows } = readCsv(doc.data);
    const today = Math.floor(NOW / DAY) * DAY;
    const expected = [...paid, ...weird, inBoth].filter((o) => o.createdAt >= today).map((o) => o.id);
    expect(rows.map((r) => r.id).sort()).toEqual(expected.sort());

    // Last month: the whole previous calendar month.
    const d = new Date(NOW);
    const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
    const last = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - DAY;
    await bot.press(OPERATOR_ID, button(shown.keyboard, "Last month").data);
    expect(bot.documents.at(-1)!.name).toBe(`orders-${day(first)}-${day(last)}.csv`);
  });

  it("sends a header-only file for a period without orders", async () => {
    const before = bot.documents.length;
    const calls = await bot.send(OPERATOR_ID, "/export 2020-02-29");
    expect(String(calls.find((c) => c.method === "sendDocument")!.payload.caption)).toContain("0 orders");
    const { header, rows } = readCsv(bot.documents[before]!.data);
    expect(header).toEqual([...EXPORT_COLUMNS]);
    expect(rows).toEqual([]);
  });

  it.each([
    ["/export 2026-13-01", "<code>2026-13-01</code> is not a date"],
    ["/export 2026-02-30 2026-03-01", "<code>2026-02-30</code> is not a date"],
    ["/export yesterday", "is not a date"],
    ["/export 2026-11-23 2026-11-01", "The first day is after the second"],
    ["/export 2025-01-01 2026-11-23", "at most 366 days"],
    ["/export 2026-11-01 2026-11-02 2026-11-03", "at most two days"],
  ])("answers %s with the rule and an example, and sends nothing", async (text, rule) => {
    const calls = await bot.send(OPERATOR_ID, text);
    expect(calls.some((c) => c.method === "sendDocument")).toBe(false);
    const shown = OperatorBot.one(calls);
    expect(shown.text).toContain(rule);
    expect(shown.text).toContain("<code>/export 2026-11-01 2026-11-23</code>");
  });

  it("answers Russian operators in Russian", async () => {
    const shown = OperatorBot.one(
      await bot.send(OPERATOR_ID, "/export 2026-11-23 2026-11-01", { language: "ru" }),
    );
    expect(shown.text).toContain("Первый день позже второго");
  });

  it("gives a customer nothing: /export is an unknown command and its buttons do nothing", async () => {
    const unknown = OperatorBot.one(await bot.send(CUSTOMER_ID, "/frobnicate"));
    const calls = await bot.send(CUSTOMER_ID, `/export ${day(NOW)}`);
    expect(OperatorBot.one(calls).text).toBe(unknown.text);
    const pressed = await bot.press(CUSTOMER_ID, "ox:today");
    expect(pressed.map((c) => c.method)).toEqual(["answerCallbackQuery"]);
    expect(OperatorBot.callbackAnswer(pressed)?.text).toBeUndefined();
    expect(bot.calls.filter((c) => c.method === "sendDocument" && c.payload.chat_id === CUSTOMER_ID)).toEqual(
      [],
    );
  });
});
