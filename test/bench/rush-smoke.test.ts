import { describe, expect, it } from "vitest";
import {
  floorRush,
  SHOP_CALLS_PER_UPDATE,
  SHOP_PACED_SENDS,
  SHOP_SIDE_CALLS,
  shopRush,
  UPDATES_PER_PURCHASE,
} from "../../bench/rush.js";

/**
 * The short form of `npm run bench`'s rush: the same harness at five customers, so that a change
 * to the shop or to the harness that breaks the benchmark shows here. It checks what the harness
 * counts, never how fast anything was.
 */
describe("the rush benchmark, five customers", () => {
  it("walks the shop's whole purchase and every floor, and counts what each did", async () => {
    const customers = 5;
    const updates = customers * UPDATES_PER_PURCHASE;

    const floor = await floorRush(customers);
    expect(floor.withoutAnswer).toBe(0);
    expect(floor.updates).toBe(updates);
    expect(floor.sends).toBe(updates);

    // The floor that makes the shop's Bot API calls: 13 messages per purchase, not 7.
    const calls = await floorRush(customers, { sendsPerUpdate: SHOP_CALLS_PER_UPDATE });
    expect(calls.withoutAnswer).toBe(0);
    expect(calls.updates).toBe(updates);
    expect(calls.sends).toBe(customers * 13);
    expect(calls.side).toBeUndefined();

    // The floor that also makes the shop's Redis commands and reseller round trips.
    const io = await floorRush(customers, {
      sendsPerUpdate: SHOP_CALLS_PER_UPDATE,
      sideCalls: SHOP_SIDE_CALLS,
    });
    expect(io.withoutAnswer).toBe(0);
    expect(io.sends).toBe(customers * 13);
    expect(io.side).toEqual({ redisCommands: customers * 21, httpRequests: customers * 4 });

    // The floor that also sends a purchase's last two messages later, at the shop's pace: its
    // figures run until they are sent, so all 13 messages a purchase are counted.
    const paced = await floorRush(customers, {
      sendsPerUpdate: SHOP_CALLS_PER_UPDATE,
      sideCalls: SHOP_SIDE_CALLS,
      pacedSends: SHOP_PACED_SENDS,
    });
    expect(paced.withoutAnswer).toBe(0);
    expect(paced.sends).toBe(customers * 13);
    expect(paced.cpuPerUpdateAnsweringMs).toBeLessThanOrEqual(paced.cpuPerUpdateMs);
    // The card goes a second after its final message, after the last answer.
    expect(paced.seconds).toBeGreaterThan(1);

    const shop = await shopRush(customers);
    expect(shop.withoutAnswer).toBe(0);
    expect(shop.updates).toBe(updates);
    expect(shop.paid).toBe(customers);
    expect(shop.completed).toBe(customers);
    expect(shop.cpuMs).toBeGreaterThan(0);
    expect(shop.redisCommandsPerOrder).toBeGreaterThan(0);
    expect(shop.clientRoundTripsPerOrder).toBeGreaterThan(0);
    expect(shop.peakRssBytes).toBeGreaterThan(0);
  }, 180_000);
});
