import { describe, expect, it } from "vitest";
import { LOGIC_ACTIONS, logicPerUpdate } from "../../bench/logic.js";

/**
 * The short form of `npm run bench -- --only logic`: five customers, so that a change to the shop
 * or to the harness that breaks the walk shows here. It checks what the harness counts, never how
 * fast anything was.
 */
describe("the in-memory logic benchmark, five customers", () => {
  it("walks the shop and the bare bot to the price card and counts each action's CPU", async () => {
    const r = await logicPerUpdate(5, 2);
    expect(r.customers).toBe(5);
    expect(r.shop.completed).toBe(5);
    expect(r.floor.completed).toBe(5);
    for (const side of [r.shop, r.floor]) {
      expect(side.perActionMs).toHaveLength(LOGIC_ACTIONS.length);
      for (const ms of side.perActionMs) expect(ms).toBeGreaterThan(0);
    }
  }, 60_000);
});
