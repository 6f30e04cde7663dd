import { describe, expect, it } from "vitest";
import { Sleeper } from "../../src/util/timers.js";

const elapsed = async (p: Promise<boolean>) => {
  const t0 = Date.now();
  await p;
  return Date.now() - t0;
};

describe("Sleeper", () => {
  it("ends a sleep early when woken, and tells a wake from the time running out", async () => {
    const s = new Sleeper();
    const sleeping = s.sleep(5000);
    setTimeout(() => s.wake(), 20);
    expect(await elapsed(sleeping)).toBeLessThan(1000);
    expect(await sleeping).toBe(true);
    expect(await s.sleep(10)).toBe(false);
  });

  it("keeps a wake that came while nobody slept, for the next sleep only", async () => {
    const s = new Sleeper();
    s.wake();
    expect(await elapsed(s.sleep(5000))).toBeLessThan(50);
    expect(await elapsed(s.sleep(100))).toBeGreaterThanOrEqual(90);
  });

  it("drops a kept wake when a look starts (forget)", async () => {
    const s = new Sleeper();
    s.wake();
    s.forget();
    expect(await elapsed(s.sleep(100))).toBeGreaterThanOrEqual(90);
  });
});
