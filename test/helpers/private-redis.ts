import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitForPing } from "../../sandbox/demo/redis.js";
import { freePort } from "../../sandbox/demo/util.js";

export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
  /** Kills the process at once (as a crash would) without removing its directory. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and directory. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing is answered, as with a hung Redis. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

export { freePort };

function hasRedisServer(): boolean {
  const r = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  return r.status === 0;
}

/**
 * Starts a private redis-server on a free port with no persistence to disk (unless
 * `appendonly` is asked for, as crash drills need data that outlives a restart).
 * Falls back to TEST_REDIS_URL; stops with a clear message when neither exists.
 */
export async function startPrivateRedis(opts: { appendonly?: boolean } = {}): Promise<PrivateRedis> {
  if (!hasRedisServer()) {
    const given = process.env.TEST_REDIS_URL;
    if (given) {
      const none = async () => {};
      const refuse = () => {
        throw new Error("a Redis given by TEST_REDIS_URL cannot be paused");
      };
      return { url: given, port: 0, stop: none, kill: none, restart: none, pause: refuse, resume: refuse };
    }
    throw new Error(
      "Tests need Redis: install redis-server (apt-get install redis-server) or set TEST_REDIS_URL to a Redis the tests may use.",
    );
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "shopbot-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    opts.appendonly ? "yes" : "no",
    "--appendfsync",
    "always",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--logfile",
    "",
    "--loglevel",
    "warning",
  ];
  const start = async () => {
    child = spawn("redis-server", args, { stdio: "ignore" });
    await waitForPing(url, child, 10_000);
  };
  const waitExit = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once("exit", () => resolve());
      c.kill(signal);
    });
  await start();
  return {
    url,
    port,
    stop: async () => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
      const t = setTimeout(() => child?.kill("SIGKILL"), 3000);
      await waitExit("SIGTERM");
      clearTimeout(t);
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => waitExit("SIGKILL"),
    restart: start,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}
