import { PassThrough } from "node:stream";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import {
  EXPORT_COLUMNS,
  ExportTooLargeError,
  exportRow,
  formulaSafe,
  rubCell,
  writeOrdersCsv,
} from "../../src/orders/export.js";
import { exportFileName, parsePeriod, presetPeriod } from "../../src/orders/export-period.js";
import { order } from "../helpers/orders.js";

async function csvOf(
  chunks: AsyncIterable<unknown>,
  maxBytes?: number,
): Promise<{ rows: number; text: string }> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on("data", (b: Buffer) => parts.push(b));
  const rows = await writeOrdersCsv(chunks as AsyncIterable<never>, out, maxBytes);
  return { rows, text: Buffer.concat(parts).toString("utf8") };
}

async function* chunksOf<T>(...chunks: T[][]): AsyncGenerator<T[]> {
  for (const c of chunks) yield c;
}

describe("CSV cells", () => {
  it("prefixes text that a spreadsheet would run as a formula", () => {
    for (const bad of ["=1+1", "+7 999", "-x", "@SUM(A1)", "\tA", "\rB"])
      expect(formulaSafe(bad)).toBe(`'${bad}`);
    for (const ok of ["buyer", "", "a=b", " =x", "'quoted"]) expect(formulaSafe(ok)).toBe(ok);
  });

  it("writes kopecks as roubles with two decimals, negative ones as negative numbers", () => {
    expect(rubCell(11_000)).toBe("110.00");
    expect(rubCell(5)).toBe("0.05");
    expect(rubCell(-1_250)).toBe("-12.50");
    expect(rubCell(0)).toBe("0.00");
    expect(rubCell(undefined)).toBe("");
  });

  it("leaves money, times and the rail empty for an order nobody paid", () => {
    const row = exportRow(order({ state: "quoted", times: { quoted: 1 }, wholesaleKopecks: 10_000 }));
    const cell = (c: (typeof EXPORT_COLUMNS)[number]) => row[EXPORT_COLUMNS.indexOf(c)];
    expect(row).toHaveLength(EXPORT_COLUMNS.length);
    expect([
      cell("paid_at"),
      cell("final_at"),
      cell("rail"),
      cell("paid_currency"),
      cell("paid_amount"),
    ]).toEqual(["", "", "", "", ""]);
    expect(cell("wholesale_rub")).toBe("100.00");
    expect(cell("margin_rub")).toBe("");
    expect([cell("promo_code"), cell("promo_discount_rub")]).toEqual(["", ""]);
  });

  it("names the promo code of an order and its discount", () => {
    const row = exportRow(
      order({
        priceKopecks: 9_500,
        promo: { code: "SPRING", discountKopecks: 500, originalPriceKopecks: 10_000 },
      }),
    );
    const cell = (c: (typeof EXPORT_COLUMNS)[number]) => row[EXPORT_COLUMNS.indexOf(c)];
    expect([cell("customer_price_rub"), cell("promo_code"), cell("promo_discount_rub")]).toEqual([
      "95.00",
      "SPRING",
      "5.00",
    ]);
  });
});

describe("CSV file", () => {
  it("starts with a BOM and a header, then one CRLF line per order, with quoting csv-parse reads back", async () => {
    const a = order({ id: "a", item: { kind: "stars", product: "stars", title: 'say "hi", then\nbye' } });
    const b = order({ id: "b" });
    const { rows, text } = await csvOf(chunksOf([a], [b]));
    expect(rows).toBe(2);
    expect(text.startsWith("\uFEFFid,created_at,")).toBe(true);
    expect(text).toContain("\r\n");
    const parsed = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    expect(parsed.map((r) => r.id)).toEqual(["a", "b"]);
    expect(parsed[0]!.item_title).toBe('say "hi", then\nbye');
  });

  it("stops with ExportTooLargeError past the size limit", async () => {
    const many = Array.from({ length: 200 }, (_, i) => order({ id: `order-${i}` }));
    await expect(csvOf(chunksOf(many), 4_000)).rejects.toBeInstanceOf(ExportTooLargeError);
    await expect(csvOf(chunksOf(many), 1_000_000)).resolves.toMatchObject({ rows: 200 });
  });
});

describe("export periods", () => {
  const NOW = Date.UTC(2026, 2, 1, 10); // 1 March 2026, 10:00 UTC

  it("turns the presets into whole UTC days", () => {
    const days = (p: ReturnType<typeof presetPeriod>) => [p.from, p.to];
    expect(days(presetPeriod("today", NOW))).toEqual(["2026-03-01", "2026-03-01"]);
    expect(days(presetPeriod("7d", NOW))).toEqual(["2026-02-23", "2026-03-01"]);
    expect(days(presetPeriod("30d", NOW))).toEqual(["2026-01-31", "2026-03-01"]);
    expect(days(presetPeriod("this-month", NOW))).toEqual(["2026-03-01", "2026-03-01"]);
    expect(days(presetPeriod("last-month", NOW))).toEqual(["2026-02-01", "2026-02-28"]);
    expect(days(presetPeriod("last-month", Date.UTC(2026, 0, 15)))).toEqual(["2025-12-01", "2025-12-31"]);
    const today = presetPeriod("today", NOW);
    expect([today.fromMs, today.toMs]).toEqual([Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 2) - 1]);
    expect(exportFileName(today)).toBe("orders-2026-03-01-2026-03-01.csv");
  });

  it("reads one or two typed days and names what is wrong otherwise", () => {
    expect(parsePeriod("2026-11-01 2026-11-23")).toMatchObject({ from: "2026-11-01", to: "2026-11-23" });
    expect(parsePeriod(" 2024-02-29 ")).toMatchObject({ from: "2024-02-29", to: "2024-02-29" });
    expect(parsePeriod("2026-02-29")).toEqual({ error: "bad_date", value: "2026-02-29" });
    expect(parsePeriod("2026-11-01 23.11.2026")).toEqual({ error: "bad_date", value: "23.11.2026" });
    expect(parsePeriod("2026-11-23 2026-11-01")).toEqual({ error: "reversed" });
    expect(parsePeriod("2025-01-01 2025-12-31")).toMatchObject({ to: "2025-12-31" }); // 365 days
    expect(parsePeriod("2024-01-01 2024-12-31")).toMatchObject({ to: "2024-12-31" }); // 366 days
    expect(parsePeriod("2024-01-01 2025-01-01")).toEqual({ error: "too_long", days: 367 });
    expect(parsePeriod("a b c")).toEqual({ error: "too_many" });
  });
});
