import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { DemoError, freePort, waitForExit } from "./util.js";

export interface DemoRedis {
  url: string;
  /** One line for the terminal. */
  description: string;
  /** The redis-server process, when the demo started one. */
  pid: number | undefined;
  /** Stops the private server and removes its directory; with a given REDIS_URL, deletes the demo's keys. */
  stop(): Promise<void>;
  /** Kills a private server at once (used when the launcher itself is going down hard). */
  kill(): void;
}

const MISSING_REDIS =
  "The demo needs Redis and redis-server was not found. Install it (Debian/Ubuntu: `sudo apt-get install redis-server`, " +
  "macOS: `brew install redis`) or set REDIS_URL to a Redis the demo may use (it writes only keys under its own prefix " +
  "and deletes them on stop).";

function redisServerVersion(): string | undefined {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return undefined;
  return /v=(\S+)/.exec(probe.stdout)?.[1] ?? "";
}

/** Resolves once Redis at `url` answers PING; fails early when `child` (its server) exits first. */
export async function waitForPing(
  url: string,
  child: ChildProcess | undefined,
  deadlineMs: number,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch (error) {
      client.disconnect();
      if (child && (child.exitCode !== null || child.signalCode !== null)) {
        throw new DemoError(
          `redis-server exited during start-up (code ${child.exitCode ?? child.signalCode})`,
        );
      }
      if (Date.now() > until) {
        throw new DemoError(
          `Redis at ${url} did not answer: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Deletes every key under `prefix` (the demo's own keys in a Redis it was given). */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  client.on("error", () => {});
  try {
    await client.connect();
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(
        cursor,
        "MATCH",
        `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
        "COUNT",
        500,
      );
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}

/**
 * A Redis for the demo: a given URL (keys under `prefix`, deleted on stop), or a private redis-server on a
 * free port with a temporary directory and no persistence, in its own process group so a terminal's Ctrl-C
 * reaches only the launcher, which stops the parts in order.
 */
export async function startDemoRedis(opts: { url?: string; prefix: string }): Promise<DemoRedis> {
  if (opts.url) {
    const url = opts.url;
    await waitForPing(url, undefined, 5000);
    return {
      url,
      description: `the Redis from REDIS_URL, keys under "${opts.prefix}" (deleted on stop)`,
      pid: undefined,
      stop: () => deleteKeys(url, opts.prefix).catch(() => undefined),
      kill: () => {},
    };
  }
  const version = redisServerVersion();
  if (version === undefined) throw new DemoError(MISSING_REDIS);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "shopbot-demo-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  // biome-ignore format: one flag and its value per line
  const args = [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--save", "",
    "--appendonly", "no",
    "--dir", dir,
    "--daemonize", "no",
    "--logfile", "",
    "--loglevel", "warning",
  ];
  const child = spawn("redis-server", args, { stdio: "ignore", detached: true });
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    await waitForPing(url, child, 10_000);
  } catch (error) {
    child.kill("SIGKILL");
    removeDir();
    throw error;
  }
  return {
    url,
    description: `private redis-server ${version} (pid ${child.pid}) on 127.0.0.1:${port} (temporary directory, nothing saved)`,
    pid: child.pid,
    async stop() {
      await waitForExit(child, "SIGTERM", 3000);
      removeDir();
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      removeDir();
    },
  };
}
