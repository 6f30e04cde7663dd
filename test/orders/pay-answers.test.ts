import { describe, expect, it } from "vitest";
import { PayAnswers } from "../../src/orders/pay-answers.js";
import type { Order } from "../../src/orders/types.js";

const pending = (id: string) => ({ id, state: "pending" }) as Order;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function answers(maxAgeMs?: number) {
  const missed: string[] = [];
  const a = new PayAnswers((o) => missed.push(o.id), maxAgeMs);
  return { a, missed };
}

describe("answers to payments waiting for pay", () => {
  it("shows what pay wrote when it went through before the answer asked", async () => {
    const { a, missed } = answers();
    a.open("o1");
    expect(a.cover("o1")).toBe(true);
    a.settle("o1", pending("o1"));
    expect(await a.wait("o1", 1000)).toMatchObject({ id: "o1", state: "pending" });
    expect(missed).toEqual([]);
    expect(a.size).toBe(0);
  });

  it("shows what pay wrote when it goes through while the answer waits", async () => {
    const { a, missed } = answers();
    a.open("o1");
    const shown = a.wait("o1", 5000);
    expect(a.cover("o1")).toBe(true);
    a.settle("o1", pending("o1"));
    expect(await shown).toMatchObject({ state: "pending" });
    expect(missed).toEqual([]);
  });

  it("stops waiting at once when pay ends without writing pending (a retry, a refusal)", async () => {
    const { a } = answers();
    a.open("o1");
    const t = performance.now();
    const shown = a.wait("o1", 5000);
    a.release("o1");
    expect(await shown).toBeUndefined();
    expect(performance.now() - t).toBeLessThan(1000);
    // The retry that writes pending later is not covered: it queues its own card update.
    expect(a.cover("o1")).toBe(false);
  });

  it("leaves the card update to pending's own write when the answer gave up before pay got there", async () => {
    const { a, missed } = answers();
    a.open("o1");
    expect(await a.wait("o1", 20)).toBeUndefined();
    expect(a.cover("o1")).toBe(false);
    expect(missed).toEqual([]);
  });

  it("queues the card update when pending was written without it after the answer gave up", async () => {
    const { a, missed } = answers();
    a.open("o1");
    const shown = a.wait("o1", 20);
    expect(a.cover("o1")).toBe(true);
    expect(await shown).toBeUndefined();
    a.settle("o1", pending("o1"));
    expect(missed).toEqual(["o1"]);
    expect(a.size).toBe(0);
  });

  it("queues the card update when nobody asked for the answer", async () => {
    const { a, missed } = answers(30);
    a.open("o1");
    expect(a.cover("o1")).toBe(true);
    a.settle("o1", pending("o1"));
    await sleep(80);
    expect(missed).toEqual(["o1"]);
    expect(a.size).toBe(0);
  });

  it("covers nothing for a payment that was not new, and nothing twice", async () => {
    const { a } = answers();
    a.open("o1");
    a.close("o1");
    expect(a.cover("o1")).toBe(false);
    expect(await a.wait("o1", 1000)).toBeUndefined();
    a.open("o2");
    expect(a.cover("o2")).toBe(true);
    expect(a.cover("o2")).toBe(false);
  });

  it("answers without waiting when another writer got to pending first", async () => {
    const { a, missed } = answers();
    a.open("o1");
    const shown = a.wait("o1", 5000);
    expect(a.cover("o1")).toBe(true);
    a.settle("o1", null);
    expect(await shown).toBeUndefined();
    expect(missed).toEqual([]);
  });
});
