import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { deadline } from "../../sandbox/kit/http.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A server that takes requests and never answers them. */
async function silentServer() {
  const server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

describe("the sandboxes' request deadline", () => {
  it("ends a request nobody answers, even when garbage is collected while it waits", async () => {
    const silent = await silentServer();
    const collecting = setInterval(gc, 20);
    try {
      const limit = deadline(new AbortController().signal, 300);
      const started = Date.now();
      const outcome = await fetch(silent.url, { method: "POST", body: "{}", signal: limit.signal }).then(
        () => "answered",
        (err: Error) => err.name,
      );
      limit.clear();
      expect(outcome).toBe("TimeoutError");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      clearInterval(collecting);
      await silent.close();
    }
  });

  it("ends it at once when the sandbox stops (its own signal), and clear() leaves nothing pending", async () => {
    const silent = await silentServer();
    try {
      const stop = new AbortController();
      const limit = deadline(stop.signal, 60_000);
      const pending = fetch(silent.url, { method: "POST", body: "{}", signal: limit.signal }).then(
        () => "answered",
        (err: Error) => err.name,
      );
      stop.abort();
      expect(await pending).toBe("AbortError");
      limit.clear();
      expect(limit.signal.aborted).toBe(true);
    } finally {
      await silent.close();
    }
  });

  it("holds a thousand requests in flight on one signal without a listener warning, and lets go of each", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const stop = new AbortController();
      const limits = Array.from({ length: 1000 }, () => deadline(stop.signal, 60_000));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setTimeout(r, 10));
      for (const limit of limits) limit.clear();
      stop.abort();
      expect(limits.some((l) => l.signal.aborted)).toBe(false);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });
});
