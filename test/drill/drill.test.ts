import { describe, expect, it } from "vitest";
import { runDrills } from "../../drill/run.js";

describe("the short fault drill", () => {
  it("passes every check: kill -9 and resume time, Redis outage, reseller faults, fuzz, webhooks, two processes, Sentinel failover, provider and wallet payments killed before their record, and the log scan", async () => {
    const lines: string[] = [];
    const rows = await runDrills({ short: true, progress: (line) => lines.push(line) });
    const failed = rows.filter((r) => !r.pass).map((r) => `${r.id} ${r.check}: ${r.figure}`);
    expect(failed).toEqual([]);
    expect(rows.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        "1a",
        "1b",
        "1c",
        "1e",
        "2a",
        "2b",
        "2c",
        "3a",
        "3b",
        "3c",
        "4a",
        "4b",
        "4c",
        "4d",
        "5e",
        "7a",
        "7b",
        "6",
        "8a",
        "8b",
        "8c",
        "9a",
        "9b",
        "9c",
      ]),
    );
  }, 480_000);
});
