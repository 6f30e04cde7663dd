import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { type ResellerSandbox, startResellerSandbox } from "../sandbox/reseller/server.js";
import { startTelegramEmulator, type TelegramEmulator } from "../sandbox/telegram/index.js";
import type { RateLimits } from "../sandbox/telegram/types.js";
import { createLogger } from "../src/logger.js";
import { createOrdersEngine, type OrdersEngine } from "../src/orders/engine.js";
import type { Notifier } from "../src/orders/types.js";
import { createResellerClient } from "../src/reseller/client.js";
import { freePort, type PrivateRedis, startPrivateRedis } from "../test/helpers/private-redis.js";
import { sleep, until } from "./lib.js";
import type { RedisProbeCounts } from "./redis-probe.js";

export const BOT_TOKEN = "7000000001:BENCHbenchBENCHbenchBENCHbench";
export const API_KEY = "bench-api-key-5c1e";
export const WEBHOOK_SECRET = "bench-webhook-secret-a9";
export const OPERATOR_ID = 9001;
const PUBLIC_BASE = "https://bench.shop.invalid";

export interface Stack {
  redis: PrivateRedis;
  client: Redis;
  prefix: string;
  sandbox: ResellerSandbox;
  emulator: TelegramEmulator;
  httpPort: number;
  env: Record<string, string>;
  /** The bot as production runs it: `npm start`'s command line with the environment alone. */
  bot: BotProcess;
  /** An engine in this process on the same Redis for placing paid orders directly (its workers are not started). */
  orders: OrdersEngine;
  close(): Promise<void>;
}

export interface BotProcess {
  child: ChildProcess;
  logs: string[];
  /** Peak resident set size of the bot process (VmHWM), bytes. */
  peakRss(): number;
  /** What bench/redis-probe.ts counted in the process (started with `probe`); undefined without it. */
  redisProbe(): Promise<RedisProbeCounts | undefined>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StackOptions {
  webhooks: boolean;
  rateLimits?: RateLimits | false;
  deliveryDelayMs?: number;
  pollIntervalSeconds?: number;
  extraEnv?: Record<string, string>;
  appendonly?: boolean;
  /** Arguments of the bot process (default: the built production entry). */
  botArgs?: string[];
  /** Receives everything the bot process writes (stdout and stderr), e.g. for a log scan. */
  onBotOutput?: (chunk: string) => void;
  /**
   * Local port the reseller's delivery webhooks (to `PUBLIC_BASE_URL`) reach: a load balancer in
   * front of several bot processes. Default: the bot's own listener.
   */
  publicPort?: number;
  /**
   * Preload bench/redis-probe.ts into the bot (the production entry, `node dist/main.js`, unless
   * `botArgs` say otherwise) to count its Redis commands and round trips.
   */
  probe?: boolean;
}

export interface BotProcessOptions {
  /** Receives everything the process writes (stdout and stderr), unabridged, from its start. */
  onOutput?: (chunk: string) => void;
  /** Open an IPC channel for bench/redis-probe.ts (preloaded through `args`). */
  ipc?: boolean;
}

/**
 * The bot's command line as `npm start` runs it, read from package.json so the benchmarks and
 * drills measure what is deployed: the environment it sets (`VAR=value` before `node`), then
 * node's flags and dist/main.js (`exec`, which makes the shell npm runs scripts with become node, aside).
 */
const START_WORDS = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    scripts: { start: string };
  }
).scripts.start
  .split(/\s+/)
  .filter((w) => w !== "exec");
const NODE_AT = START_WORDS.indexOf("node");
export const PRODUCTION_ENV: Record<string, string> = Object.fromEntries(
  START_WORDS.slice(0, NODE_AT).map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]),
);
export const PRODUCTION_ARGS: string[] = START_WORDS.slice(NODE_AT + 1);

/** BENCH_BOT_ENV (JSON, e.g. `{"MALLOC_ARENA_MAX":"1"}`) adds to the bot's environment, to compare settings. */
function benchBotEnv(): Record<string, string> {
  return process.env.BENCH_BOT_ENV ? (JSON.parse(process.env.BENCH_BOT_ENV) as Record<string, string>) : {};
}

/** Starts the bot (`npm start`'s command line unless other arguments are given) and waits until it is ready. */
export async function startBotProcess(
  env: Record<string, string>,
  httpPort: number,
  args: string[] = PRODUCTION_ARGS,
  opts: BotProcessOptions = {},
): Promise<BotProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? "", ...PRODUCTION_ENV, ...env, ...benchBotEnv() },
    stdio: opts.ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    opts.onOutput?.(text);
    logs.push(text);
    if (logs.length > 5000) logs.splice(0, 1000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let peak = 0;
  const readHwm = () => {
    try {
      const m = readFileSync(`/proc/${child.pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/);
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // the process has exited
    }
    return peak;
  };
  const sampler = setInterval(readHwm, 200);
  sampler.unref();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`bot exited at start-up:\n${logs.join("")}`);
      return fetch(`http://127.0.0.1:${httpPort}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    30_000,
    "the bot to be ready",
  );
  return {
    child,
    logs,
    peakRss: readHwm,
    async redisProbe() {
      if (!opts.ipc || !child.connected) return undefined;
      return new Promise<RedisProbeCounts | undefined>((resolve) => {
        const timer = setTimeout(() => done(undefined), 5000);
        const onMessage = (m: unknown) => {
          const counts = (m as { redisProbe?: RedisProbeCounts } | null)?.redisProbe;
          if (counts) done(counts);
        };
        const done = (counts: RedisProbeCounts | undefined) => {
          clearTimeout(timer);
          child.off("message", onMessage);
          resolve(counts);
        };
        child.on("message", onMessage);
        child.send("redis-probe?");
      });
    },
    async kill(signal = "SIGTERM") {
      readHwm();
      clearInterval(sampler);
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const redis = await startPrivateRedis({ appendonly: opts.appendonly });
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  client.on("error", () => {});
  const prefix = "bench:";
  const httpPort = await freePort();
  const sandbox = await startResellerSandbox({
    apiKey: API_KEY,
    webhookSecret: WEBHOOK_SECRET,
    balanceRub: 100_000_000,
    deliveryDelayMs: opts.deliveryDelayMs ?? 200,
    webhookRetryDelayMs: 200,
    webhookRewrite: [{ from: PUBLIC_BASE, to: `http://127.0.0.1:${opts.publicPort ?? httpPort}` }],
  });
  const emulator = await startTelegramEmulator({ token: BOT_TOKEN, rateLimits: opts.rateLimits ?? false });
  const env: Record<string, string> = {
    BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.apiRoot,
    RESELLER_API_URL: sandbox.url,
    RESELLER_API_KEY: API_KEY,
    OPERATOR_IDS: String(OPERATOR_ID),
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: String(httpPort),
    POLL_INTERVAL_SECONDS: String(opts.pollIntervalSeconds ?? 3),
    LOW_BALANCE_RUB: "0",
    LOG_LEVEL: "warn",
    ...(opts.webhooks ? { RESELLER_WEBHOOK_SECRET: WEBHOOK_SECRET, PUBLIC_BASE_URL: PUBLIC_BASE } : {}),
    ...opts.extraEnv,
  };
  // Loaded only here: the TypeScript compiler is heavy and the drills never need it.
  // BENCH_BOT_NODE_FLAGS (e.g. "--cpu-prof --cpu-prof-dir=prof") profiles the bot under the same load.
  const profiling = (process.env.BENCH_BOT_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const base = [...profiling, ...(opts.botArgs ?? PRODUCTION_ARGS)];
  const args = opts.probe
    ? ["--import", (await import("./compile.js")).compileForNode("./redis-probe.ts"), ...base]
    : profiling.length > 0
      ? base
      : opts.botArgs;
  const bot = await startBotProcess(env, httpPort, args, { onOutput: opts.onBotOutput, ipc: opts.probe });
  const silent = createLogger({ level: "silent" });
  const reseller = createResellerClient({ baseUrl: sandbox.url, apiKey: API_KEY, logger: silent });
  const unused: Notifier = {
    updateCard: async () => undefined,
    sendFinal: async () => {},
    refundStars: async () => {},
    alert: async () => {},
  };
  const orders = createOrdersEngine({
    redis: client,
    prefix,
    reseller,
    notifier: unused, // never called: this engine's workers are not started
    logger: silent,
    config: {
      checkout: ["stars"],
      priceMarkupPercent: 10,
      starPriceRub: 1.5,
      quoteTtlSeconds: 900,
      pollIntervalSeconds: opts.pollIntervalSeconds ?? 3,
      trackingTimeoutHours: 24,
      lowBalanceRub: 0,
      resellerCallbackUrl: opts.webhooks ? `${PUBLIC_BASE}/webhooks/reseller` : undefined,
    },
  });
  return {
    redis,
    client,
    prefix,
    sandbox,
    emulator,
    httpPort,
    env,
    bot,
    orders,
    async close() {
      await bot.kill("SIGTERM");
      await sleep(50);
      await reseller.close();
      await emulator.close();
      await sandbox.close();
      client.disconnect();
      await redis.stop();
    },
  };
}

let userSeq = 2_000_000;
export function nextUserId(): number {
  userSeq += 1;
  return userSeq;
}
