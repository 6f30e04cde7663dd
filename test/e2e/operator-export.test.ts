import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatUser } from "../../sandbox/telegram/index.js";
import { OrderArchive } from "../../src/orders/archive.js";
import { EXPORT_COLUMNS } from "../../src/orders/export.js";
import type { Order } from "../../src/orders/types.js";
import { APP_OPERATOR_ID, type AppHarness, startAppHarness } from "../helpers/app-harness.js";
import { newOrderId, sampleItems } from "../helpers/engine-harness.js";
import { eventually } from "../helpers/recording-notifier.js";

const DAY = 24 * 3600_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * /export end to end: the app as src/main.ts composes it uploads the CSV to the Telegram emulator
 * (multipart, as to Telegram), which keeps the file's bytes; orders come from Redis and from the
 * archive directory the app was configured with.
 */
describe("/export through the Telegram emulator", () => {
  let h: AppHarness;
  let dir: string;
  let operator: ChatUser;
  const live: Order[] = [];
  let archived: Order;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "e2e-export-"));
    h = await startAppHarness({ CHECKOUT: "direct", ARCHIVE_DIR: dir });
    for (const username of ["=SUM(A1:A9)", "plain_buyer"]) {
      const userId = 650_000_000 + live.length;
      const order = await h.app.orders.quote({
        orderId: newOrderId(),
        item: sampleItems().stars!,
        customer: { userId, chatId: userId, username, locale: "en" },
      });
      expect((await h.app.orders.confirm(order.id, userId)).won).toBe(true);
      live.push(order);
    }
    for (const [i, o] of live.entries()) {
      live[i] = await eventually(
        async () => {
          const x = await h.app.orders.get(o.id);
          return x?.state === "delivered" ? x : null;
        },
        20_000,
        "delivered",
      );
    }
    // An order that left Redis for the archive 20 days ago, with a Cyrillic title.
    const at = Date.now() - 20 * DAY;
    archived = {
      id: randomUUID(),
      state: "delivered",
      item: { kind: "gift", product: "gift", giftId: "1", title: "Плюшевый мишка", recipient: "-gift_fan" },
      customer: { userId: 99, chatId: 99, username: "old_buyer", locale: "ru" },
      currency: "XTR",
      amount: 20,
      priceKopecks: 3_000,
      wholesaleKopecks: 2_500,
      chargedKopecks: 2_500,
      telegramChargeId: "stxArchived",
      refund: "none",
      stuck: false,
      createdAt: at,
      updatedAt: at,
      times: { paid: at + 1000, pending: at + 2000, delivered: at + 3000 },
    };
    await new OrderArchive(dir).append([archived]);
    operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
    operator.startChat();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("uploads the last 30 days' orders, the archived one included, as a CSV Excel reads", async () => {
    await operator.sendText("/export");
    const menu = await operator.waitForBotMessage(/Export orders as CSV/);
    await operator.pressButton("Last 30 days", { messageId: menu.messageId });
    const doc = await operator.waitForBotMessage(/orders created/, 15_000);
    expect(doc.media).toBe("document");
    expect(doc.text).toContain(`3 orders created ${day(Date.now() - 29 * DAY)} – ${day(Date.now())}`);
    const file = doc.file!;
    expect(file.name).toBe(`orders-${day(Date.now() - 29 * DAY)}-${day(Date.now())}.csv`);
    expect([...file.data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);

    const rows = parse(file.data, { bom: true, columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual([...EXPORT_COLUMNS]);
    expect(rows.map((r) => r.id).sort()).toEqual([...live.map((o) => o.id), archived.id].sort());
    const old = rows.find((r) => r.id === archived.id)!;
    expect(old.item_title).toBe("Плюшевый мишка");
    expect(old.recipient).toBe("'-gift_fan");
    expect(old.margin_rub).toBe("5.00");
    const formula = rows.find((r) => r.id === live[0]!.id)!;
    expect(formula.customer_username).toBe("'=SUM(A1:A9)");
    expect(formula.rail).toBe("direct");
    expect(formula.paid_currency).toBe("");
    expect(formula.wholesale_rub).toBe((live[0]!.chargedKopecks! / 100).toFixed(2));
  });

  it("refuses a reversed period with the rule and sends no file", async () => {
    const documents = () => operator.botMessages().filter((m) => m.media === "document").length;
    const before = documents();
    await operator.sendText("/export 2026-11-23 2026-11-01");
    const answer = await operator.waitForBotMessage(/The first day is after the second/);
    expect(answer.text).toContain("/export 2026-11-01 2026-11-23");
    expect(documents()).toBe(before);
  });
});
