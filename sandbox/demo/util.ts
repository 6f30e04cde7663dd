import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A start-up problem the person running the demo can fix; shown as one message, without a stack trace. */
export class DemoError extends Error {
  override name = "DemoError";
}

/**
 * A port nobody listens on right now (another process may still take it before we do).
 *
 * Chosen below the kernel's ephemeral range (`ip_local_port_range`, where outgoing connections
 * get their local ports): a port from `listen(0)` lies inside it, and a connection opened between
 * picking the port and listening on it (to Redis, to an emulator) may be given the same port,
 * which the listener then finds in use. Falls back to `listen(0)` where the range is unknown.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const low = ephemeralLow();
  const from = 10_000;
  if (low !== undefined && low - from > 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = from + Math.floor(Math.random() * (low - from));
      if (await canListen(port, host)) return port;
    }
  }
  return listenOnce(0, host);
}

function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

async function canListen(port: number, host: string): Promise<boolean> {
  try {
    await listenOnce(port, host);
    return true;
  } catch {
    return false;
  }
}

/** Listens on `port` (0: any), closes, and gives the port that was bound. */
function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(bound));
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
