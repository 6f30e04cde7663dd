import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A start-up problem the person running the demo can fix; shown as one message, without a stack trace. */
export class DemoError extends Error {
  override name = "DemoError";
}

/** A port nobody listens on right now (another process may still take it before we do). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Sends `signal`, waits up to `graceMs` for the process to exit, then kills it. */
export function waitForExit(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
