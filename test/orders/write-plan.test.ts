import { describe, expect, it } from "vitest";
import { orderKeys } from "../../src/orders/keys.js";
import type { Order } from "../../src/orders/types.js";
import { planWrite } from "../../src/orders/write-plan.js";
import { order as sampleOrder } from "../helpers/orders.js";

const keys = orderKeys("p:");
const NOW = 1_000_000;

/** The plan's operations as readable strings: "add idx:inflight <id>", "rem jobs expire:<id>"… */
function readable(
  prev: Order | null,
  next: Order,
  opts: { maxOpen?: number; holdJobsMs?: number } = {},
  effects = [],
) {
  const plan = planWrite(keys, prev, next, effects, { now: NOW, ...opts });
  const out: string[] = [];
  for (let i = 0; i < plan.ops.length; i += 4) {
    const [op, k, , member] = plan.ops.slice(i, i + 4);
    out.push(`${op} ${String(plan.keys[Number(k) - 1]).slice(2)} ${member}`);
  }
  return { ops: out, plan };
}

describe("the plan of an order write", () => {
  it("lists a new quote by its chat and expiry only, checking the open-quote cap first", () => {
    const draft = sampleOrder({ state: "draft", expiresAt: NOW + 900_000 });
    const { ops, plan } = readable(null, draft, { maxOpen: 3 });
    const chat = draft.customer.chatId;
    expect(plan.keys[0]).toBe(keys.order(draft.id));
    expect(ops).toEqual([
      `add idx:all ${draft.id}`,
      `add idx:chat:${chat} ${draft.id}`,
      `cap idx:open:${chat} 3`,
      `add idx:open:${chat} ${draft.id}`,
    ]);
  });

  it("leaves a paid quote's entry in its chat's open index, and takes out a cancelled one", () => {
    const quoted = sampleOrder({ state: "quoted", expiresAt: NOW + 900_000 });
    const chat = quoted.customer.chatId;
    expect(readable(quoted, { ...quoted, state: "paid" }).ops).toEqual([`add idx:inflight ${quoted.id}`]);
    expect(readable(quoted, { ...quoted, state: "cancelled" }).ops).toEqual([
      `add idx:state:cancelled ${quoted.id}`,
      `rem idx:open:${chat} ${quoted.id}`,
    ]);
  });

  it("writes no index while an order moves within one (paid → pending), and moves it when it settles", () => {
    const paid = sampleOrder({ state: "paid" });
    const pending = { ...paid, state: "pending" as const };
    expect(readable(paid, pending).ops).toEqual([]);
    const delivered = { ...pending, state: "delivered" as const };
    expect(readable(pending, delivered).ops).toEqual([
      `rem idx:inflight ${paid.id}`,
      `add idx:state:delivered ${paid.id}`,
    ]);
  });

  it("drops the final message's sent mark when the record no longer carries its time, and only then", () => {
    const sent = sampleOrder({ state: "delivered", finalNotifiedAt: NOW });
    const again = { ...sent, finalNotifiedAt: undefined };
    expect(readable(sent, again).ops).toEqual([`del ord:${sent.id}:fn `]);
    expect(readable(sent, { ...sent, updatedAt: NOW + 1 }).plan.ops).toEqual([]);
    expect(readable(again, again).plan.ops).toEqual([]);
  });

  it("writes a job to run here already leased to this process, when the store holds jobs", () => {
    const paid = sampleOrder({ state: "paid" });
    const effects = [{ member: `submit:${paid.id}`, dueAt: NOW, runHere: true }];
    const held = planWrite(keys, paid, paid, effects, { now: NOW, holdJobsMs: 10_000 });
    expect(held.held).toEqual([{ member: `submit:${paid.id}`, lease: NOW + 10_000 }]);
    expect(held.ops).toEqual(["add", 2, NOW + 10_000, `submit:${paid.id}`]);
    const plain = planWrite(keys, paid, paid, effects, { now: NOW });
    expect(plain.held).toEqual([]);
    expect(plain.ops).toEqual(["add", 2, NOW, `submit:${paid.id}`]);
  });
});
