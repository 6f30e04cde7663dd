import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../../sandbox/demo/util.js";

const range = (() => {
  try {
    return readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  } catch {
    return undefined;
  }
})();

describe("freePort", () => {
  it("gives a port one can listen on, outside the range outgoing connections take theirs from", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      if (range?.[0]) expect(port).toBeLessThan(range[0]);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(new Set(ports).size).toBeGreaterThan(1);
  });
});
