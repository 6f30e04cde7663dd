import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GAMES } from "../../sandbox/reseller/catalog.js";
import { type AppHarness, newAppCustomer, startAppHarness } from "../helpers/app-harness.js";

let h: AppHarness;
beforeAll(async () => {
  // Reseller titles are plain text: a game named with < or & must reach the customer as written.
  GAMES.push({
    key: "heroes_hd",
    title: "Heroes <HD> & Co",
    regions: [
      {
        code: "eu",
        title: "<EU & UK>",
        delivery: "topup",
        fields: ["nick<name>"],
        packages: [{ product_ref: "heroes-eu-100", title: "100 <Gold>", wholesale_price_rub: 100 }],
      },
    ],
  });
  h = await startAppHarness();
});
afterAll(async () => {
  GAMES.pop();
  await h.close();
});

const T = { timeoutMs: 10_000 };

describe("catalog titles with HTML's special characters", () => {
  it("are shown as written in the game flow's questions, and every message arrives", async () => {
    const c = newAppCustomer(h.telegram);
    await c.sendText("/start");
    await c.pressButton("🕹 Games", T);
    await c.pressButton("Heroes <HD> & Co", T);
    await c.waitForBotMessage("🌍 Heroes <HD> & Co: choose the region", 10_000);
    await c.pressButton("<EU & UK>", T);
    await c.waitForBotMessage("📦 Heroes <HD> & Co · <EU & UK>: choose a package", 10_000);
    await c.pressButton(/^100 <Gold>/, T);
    await c.pressButton("1", T);
    await c.waitForBotMessage(/^✏️ Nick<name>/, 10_000);
    expect(h.telegram.calls().filter((call) => !call.ok)).toEqual([]);
  });
});
