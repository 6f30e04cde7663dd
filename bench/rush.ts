/**
 * The rush: N customers start the Stars flow within one second (their /start spread evenly over
 * it), Telegram emulator limits off, the bot as deployed (`npm start`'s command line, its outgoing queue
 * pacing its own messages at ~29/s). Beside it the floor: a bare grammY + runner bot
 * (bench/bare-bot.ts) handling the same number of updates from the same number of customers.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startTelegramEmulator } from "../sandbox/telegram/index.js";
import { startPrivateRedis } from "../test/helpers/private-redis.js";
import { compileForNode } from "./compile.js";
import {
  commandStats,
  diffStats,
  logTally,
  mainThreadCpuMs,
  percentile,
  processCpuMs,
  processRssSampler,
  sleep,
  sum,
  until,
} from "./lib.js";
import { BOT_TOKEN, nextUserId, startStack } from "./stack.js";
import { type Walk, walkStarsFlow } from "./walk.js";

/** A customer is "without an answer" when any of their actions waited longer than this. */
export const ANSWER_GOAL_MS = 8_000;
/** How long a simulated customer waits for one answer before giving up. */
const PATIENCE_MS = 30_000;
/** Updates of one whole Stars purchase: /start, four taps, pre_checkout_query, successful_payment. */
export const UPDATES_PER_PURCHASE = 7;
/**
 * The shop's Bot API calls for each of those updates: the menu; an answer to the tap and the
 * next screen, four times (the last screen is the invoice); the pre-checkout answer; the card
 * saying paid, the final message and the card saying delivered. 13 in all.
 */
export const SHOP_CALLS_PER_UPDATE = [1, 2, 2, 2, 2, 1, 3];
/**
 * The shop's other calls for each of those updates, for a floor that makes all of the shop's
 * calls: Redis commands the shop sends (21 a purchase in the rush, table 1; scripts' insides are
 * Redis's work, not the bot's), and reseller round trips: `create` for the quote; then `pay`, the
 * delivery webhook and the order's re-read it triggers (the webhook, which the shop receives,
 * stands in as one more request it makes).
 */
export const SHOP_SIDE_CALLS = { redis: [3, 3, 3, 4, 3, 2, 3], http: [0, 0, 0, 1, 0, 0, 3] } as const;
/**
 * Of the last update's three calls, those the shop sends on its own through the outgoing queue,
 * paced after the rush: the final message and the card saying delivered.
 */
export const SHOP_PACED_SENDS = 2;

export interface RushResult {
  customers: number;
  /** Updates the customers sent. */
  updates: number;
  /** Customers with an action not answered within 8 s (or never). */
  withoutAnswer: number;
  /** Customers who never saw the order card with a price. */
  neverPriced: number;
  /** Customers whose payment went through. */
  paid: number;
  /** Orders whose final message arrived (and whose card said "Delivered.") within the wait. */
  completed: number;
  answerP50Ms: number;
  answerP95Ms: number;
  answerP99Ms: number;
  /** Bot CPU (user + system) over the whole rush, until every order was final and its card updated. */
  cpuMs: number;
  cpuPerUpdateMs: number;
  /** Bot CPU from the first /start until the last answer (payments taken), per update. */
  cpuPerUpdateAnsweringMs: number;
  /** Of `cpuMs`, the share of the main thread (JavaScript); the rest is V8's helper threads, mostly garbage collection. */
  mainThreadShare: number;
  peakRssBytes: number;
  /** INFO commandstats diff (commands inside Lua scripts included), our INFO calls excluded. */
  redisCommands: number;
  redisCommandsPerOrder: number;
  /** Commands the bot's clients sent / round trips they took, counted in the bot (bench/redis-probe.ts). */
  clientCommandsPerOrder: number;
  clientRoundTripsPerOrder: number;
  redisByCommandPerOrder: Record<string, number>;
  /** Payment → the card says "Payment received", p50 / p95 / max. */
  cardPaid: { p50Ms: number; p95Ms: number; maxMs: number };
  /** Payment → the final message, p50 / p95 / max. */
  final: { p50Ms: number; p95Ms: number; maxMs: number };
  /** Payment → the card says "Delivered.", max. */
  cardDeliveredMaxMs: number;
  /** From the first /start until the last answer / until all orders were done. */
  answeringSeconds: number;
  seconds: number;
  /** Where customers who did not get through stopped, by action. */
  stoppedAt: Record<string, number>;
  /** The bot's log lines at warn and error during the rush, and the most frequent. */
  log: { warnings: number; errors: number; top: string };
}

export interface FloorResult {
  customers: number;
  updates: number;
  withoutAnswer: number;
  answerP50Ms: number;
  answerP95Ms: number;
  answerP99Ms: number;
  cpuMs: number;
  cpuPerUpdateMs: number;
  /** CPU per update until the last customer's last answer (the same as `cpuPerUpdateMs` unless sends are paced). */
  cpuPerUpdateAnsweringMs: number;
  /** Of `cpuMs`, the share of the main thread. */
  mainThreadShare: number;
  peakRssBytes: number;
  /** Messages the bare bot sent during the rush (with `pacedSends`, until the last paced one). */
  sends: number;
  /** Its Redis commands (get and set) and requests to the reseller-like server during the rush, with `sideCalls`. */
  side?: { redisCommands: number; httpRequests: number };
  seconds: number;
}

const spread = (i: number, n: number) => (n <= 1 ? 0 : (i * 1000) / n);

function spreadStats(values: number[]) {
  return {
    p50Ms: percentile(values, 50),
    p95Ms: percentile(values, 95),
    maxMs: values.length ? Math.max(...values) : Number.NaN,
  };
}

/** CPU samples of a process over time, so a reading can be taken for a moment after the fact. */
function cpuTimeline(pid: number | undefined, everyMs = 100) {
  const samples: { at: number; cpuMs: number }[] = [];
  const sample = () => {
    const cpuMs = processCpuMs(pid);
    if (Number.isFinite(cpuMs)) samples.push({ at: performance.now(), cpuMs });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    /** CPU used by `at` (the first sample at or after it). */
    at(at: number): number {
      return (samples.find((s) => s.at >= at) ?? samples.at(-1))?.cpuMs ?? Number.NaN;
    },
    stop(): number {
      sample();
      clearInterval(timer);
      return samples.at(-1)?.cpuMs ?? Number.NaN;
    },
  };
}

/**
 * `warmUp` customers walk the whole flow (to their final message) first, unmeasured: the rush then
 * meets a process that has run for a while (its code compiled and optimised), as in production
 * between deploys, instead of a freshly started one.
 */
export async function shopRush(customers: number, opts: { warmUp?: number } = {}): Promise<RushResult> {
  const log = logTally();
  const stack = await startStack({
    webhooks: true,
    deliveryDelayMs: 200,
    probe: true,
    onBotOutput: log.feed,
  });
  try {
    const pid = stack.bot.child.pid;
    const users = Array.from({ length: customers }, () => {
      const id = nextUserId();
      return stack.emulator.user({ id, username: `rush_${id}`, languageCode: "en" });
    });
    await sleep(500); // let start-up work (commands, catalog) settle before measuring
    if (opts.warmUp) {
      const warm = Array.from({ length: opts.warmUp }, () => {
        const id = nextUserId();
        return stack.emulator.user({ id, username: `warm_${id}`, languageCode: "en" });
      });
      const followMs = 60_000 + ((opts.warmUp * 4) / 29) * 1000;
      await Promise.all(
        warm.map(async (u, i) => {
          await sleep(spread(i, opts.warmUp ?? 1));
          await walkStarsFlow(u, { patienceMs: PATIENCE_MS, followMs }).catch(() => undefined);
        }),
      );
      await sleep(1000);
    }
    const statsBefore = await commandStats(stack.client);
    const probeBefore = await stack.bot.redisProbe();
    const rss = processRssSampler(pid);
    const cpu = cpuTimeline(pid);
    const cpuBefore = processCpuMs(pid);
    const mainBefore = mainThreadCpuMs(pid);
    const t0 = performance.now();
    // Patience after paying: every final message and card update goes through the ~29/s queue.
    const followMs = 60_000 + ((customers * 4) / 29) * 1000;
    const walks: Walk[] = await Promise.all(
      users.map(async (u, i) => {
        await sleep(spread(i, customers));
        const w = await walkStarsFlow(u, { patienceMs: PATIENCE_MS, followMs }).catch((err): Walk => {
          process.stderr.write(`rush customer ${u.id}: ${String(err).slice(0, 300)}\n`);
          return {
            answers: [Number.POSITIVE_INFINITY],
            updates: 0,
            gotPrice: false,
            paid: false,
            doneAnsweringAt: performance.now(),
          };
        });
        return w;
      }),
    );
    const end = performance.now();
    const cpuAfter = processCpuMs(pid);
    const mainAfter = mainThreadCpuMs(pid);
    cpu.stop();
    const peakRssBytes = rss.stop();
    const statsAfter = await commandStats(stack.client);
    const probeAfter = await stack.bot.redisProbe();

    const lastAnswer = Math.max(t0, ...walks.map((w) => w.doneAnsweringAt));
    const answers = walks.flatMap((w) => w.answers);
    const updates = sum(walks.map((w) => w.updates));
    const completed = walks.filter((w) => w.finalMs !== undefined && w.cardDeliveredMs !== undefined).length;
    const diff = diffStats(statsBefore, statsAfter);
    diff.delete("info");
    const redisCommands = sum(diff.values());
    const perOrder = (n: number) => n / Math.max(1, completed);
    const stoppedAt: Record<string, number> = {};
    for (const w of walks) if (w.stoppedAt) stoppedAt[w.stoppedAt] = (stoppedAt[w.stoppedAt] ?? 0) + 1;
    return {
      customers,
      updates,
      withoutAnswer: walks.filter((w) => w.answers.some((a) => !(a <= ANSWER_GOAL_MS))).length,
      neverPriced: walks.filter((w) => !w.gotPrice).length,
      paid: walks.filter((w) => w.paid).length,
      completed,
      answerP50Ms: percentile(answers, 50),
      answerP95Ms: percentile(answers, 95),
      answerP99Ms: percentile(answers, 99),
      cpuMs: cpuAfter - cpuBefore,
      cpuPerUpdateMs: (cpuAfter - cpuBefore) / Math.max(1, updates),
      cpuPerUpdateAnsweringMs: (cpu.at(lastAnswer) - cpuBefore) / Math.max(1, updates),
      mainThreadShare: (mainAfter - mainBefore) / (cpuAfter - cpuBefore),
      peakRssBytes,
      redisCommands,
      redisCommandsPerOrder: perOrder(redisCommands),
      clientCommandsPerOrder:
        probeBefore && probeAfter ? perOrder(probeAfter.commands - probeBefore.commands) : Number.NaN,
      clientRoundTripsPerOrder:
        probeBefore && probeAfter ? perOrder(probeAfter.roundTrips - probeBefore.roundTrips) : Number.NaN,
      redisByCommandPerOrder: Object.fromEntries([...diff].map(([c, n]) => [c, perOrder(n)])),
      cardPaid: spreadStats(walks.flatMap((w) => (w.cardPaidMs === undefined ? [] : [w.cardPaidMs]))),
      final: spreadStats(walks.flatMap((w) => (w.finalMs === undefined ? [] : [w.finalMs]))),
      cardDeliveredMaxMs: spreadStats(
        walks.flatMap((w) => (w.cardDeliveredMs === undefined ? [] : [w.cardDeliveredMs])),
      ).maxMs,
      answeringSeconds: (lastAnswer - t0) / 1000,
      seconds: (end - t0) / 1000,
      stoppedAt,
      log: log.summary(),
    };
  } finally {
    await stack.close();
  }
}

/**
 * The floor: the same customers, each sending 7 messages one after another to the bare bot
 * (`warmUp` other customers first, unmeasured, as for the shop).
 */
export async function floorRush(
  customers: number,
  opts: {
    warmUp?: number;
    updatesPerCustomer?: number;
    /** Messages the bare bot sends for each update of a customer (bench/bare-bot.ts `BARE_SENDS`); default one. */
    sendsPerUpdate?: readonly number[];
    /** Redis commands (`BARE_REDIS_OPS`, on a private Redis) and reseller-like JSON POSTs (`BARE_HTTP_CALLS`) per update. */
    sideCalls?: { redis: readonly number[]; http: readonly number[] };
    /** Bot API calls through the shop's own transport (dist/bot/telegram-transport.js) instead of grammY's. */
    shopTransport?: boolean;
    /**
     * Of a purchase's last update's messages, how many go out later at the shop's pace (bench/bare-bot.ts
     * `BARE_PACED`): the shop's final message and card update. The figures then run until the last is sent.
     */
    pacedSends?: number;
  } = {},
): Promise<FloorResult> {
  const updatesPerCustomer = opts.updatesPerCustomer ?? UPDATES_PER_PURCHASE;
  const sendsPerUpdate = opts.sendsPerUpdate ?? [1];
  const sendsPerCustomer = sum(
    Array.from({ length: updatesPerCustomer }, (_, i) => sendsPerUpdate[i % sendsPerUpdate.length] ?? 0),
  );
  const emulator = await startTelegramEmulator({ token: BOT_TOKEN });
  const side = opts.sideCalls ? await startSideServices() : undefined;
  // BENCH_FLOOR_NODE_FLAGS profiles the floor the way BENCH_BOT_NODE_FLAGS profiles the shop.
  const flags = (process.env.BENCH_FLOOR_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...flags, fileURLToPath(compileForNode("./bare-bot.ts"))], {
    env: {
      PATH: process.env.PATH ?? "",
      BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.apiRoot,
      BARE_SENDS: sendsPerUpdate.join(","),
      ...(opts.shopTransport ? { BARE_TRANSPORT: "1" } : {}),
      ...(opts.pacedSends ? { BARE_PACED: String(opts.pacedSends) } : {}),
      ...(side && opts.sideCalls
        ? {
            BARE_REDIS_URL: side.redis.url,
            BARE_REDIS_OPS: opts.sideCalls.redis.join(","),
            BARE_HTTP_URL: side.httpUrl,
            BARE_HTTP_CALLS: opts.sideCalls.http.join(","),
          }
        : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const newUsers = (n: number) =>
    Array.from({ length: n }, () => {
      const id = nextUserId();
      return emulator.user({ id, username: `bare_${id}`, languageCode: "en" });
    });
  /** Everyone sends their messages, their first within one second of each other; answer times per customer. */
  const rush = (users: ReturnType<typeof newUsers>) =>
    Promise.all(
      users.map(async (u, i) => {
        await sleep(spread(i, users.length));
        const out: number[] = [];
        for (let n = 1; n <= updatesPerCustomer; n++) {
          const t = performance.now();
          await u.sendText(`message ${n}`);
          const ok = await u
            .waitFor((msgs) => msgs.some((m) => m.from === "bot" && m.text === `reply ${n}`), PATIENCE_MS)
            .then(
              () => true,
              () => false,
            );
          out.push(ok ? performance.now() - t : Number.POSITIVE_INFINITY);
          if (!ok) break;
        }
        return out;
      }),
    );
  try {
    await until(() => emulator.calls("getUpdates").length > 0, 30_000, "the bare bot to poll");
    const pid = child.pid;
    await sleep(500);
    /** Every message of `n` customers' purchases sent since `before` (paced ones come after the answers). */
    const allSent = (before: number, n: number) =>
      until(
        () => emulator.calls("sendMessage").length - before >= n * sendsPerCustomer,
        10_000 + ((n * (opts.pacedSends ?? 0)) / 25) * 1000,
        "the bare bot's paced sends",
      );
    if (opts.warmUp) {
      const before = emulator.calls("sendMessage").length;
      await rush(newUsers(opts.warmUp));
      await allSent(before, opts.warmUp);
      await sleep(1000);
    }
    const users = newUsers(customers);
    const rss = processRssSampler(pid);
    const sendsBefore = emulator.calls("sendMessage").length;
    const sideBefore = await side?.count();
    const cpuBefore = processCpuMs(pid);
    const mainBefore = mainThreadCpuMs(pid);
    const t0 = performance.now();
    const times = await rush(users);
    const answeringCpuMs = processCpuMs(pid) - cpuBefore;
    if (opts.pacedSends) await allSent(sendsBefore, customers);
    const seconds = (performance.now() - t0) / 1000;
    const cpuMs = processCpuMs(pid) - cpuBefore;
    const mainThreadShare = (mainThreadCpuMs(pid) - mainBefore) / cpuMs;
    const peakRssBytes = rss.stop();
    const sideAfter = await side?.count();
    const all = times.flat();
    return {
      customers,
      updates: all.length,
      withoutAnswer: times.filter((t) => t.some((a) => !(a <= ANSWER_GOAL_MS))).length,
      answerP50Ms: percentile(all, 50),
      answerP95Ms: percentile(all, 95),
      answerP99Ms: percentile(all, 99),
      cpuMs,
      cpuPerUpdateMs: cpuMs / Math.max(1, all.length),
      cpuPerUpdateAnsweringMs: answeringCpuMs / Math.max(1, all.length),
      mainThreadShare,
      peakRssBytes,
      sends: emulator.calls("sendMessage").length - sendsBefore,
      ...(sideBefore && sideAfter
        ? {
            side: {
              redisCommands: sideAfter.redisCommands - sideBefore.redisCommands,
              httpRequests: sideAfter.httpRequests - sideBefore.httpRequests,
            },
          }
        : {}),
      seconds,
    };
  } finally {
    child.kill("SIGTERM");
    await sleep(200);
    await emulator.close();
    await side?.close();
  }
}

/** A private Redis and a JSON server answering like the reseller's create, for the bare bot's side calls. */
async function startSideServices() {
  const redis = await startPrivateRedis();
  const answer = JSON.stringify({ success: true, custom_id: "x", status: "created", total_to_pay_rub: 65 });
  let httpRequests = 0;
  const server = createServer((req, res) => {
    httpRequests += 1;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const client = new Redis(redis.url);
  return {
    redis,
    httpUrl: `http://127.0.0.1:${port}`,
    async count() {
      const stats = await commandStats(client);
      return { redisCommands: (stats.get("get") ?? 0) + (stats.get("set") ?? 0), httpRequests };
    },
    async close() {
      client.disconnect();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await redis.stop();
    },
  };
}

export interface QuoteToFinalResult {
  customers: number;
  /** Customers who reached the recipient question (the quote's step) before the measurement. */
  atQuote: number;
  /** Orders whose final message and "delivered" card arrived. */
  completed: number;
  /** Redis commands (incl. inside Lua) from the quotes asked for to the last final message and card, per completed order. */
  redisCommandsPerOrder: number;
  /** Of those, the commands the bot's clients sent / the round trips they took (bench/redis-probe.ts). */
  clientCommandsPerOrder: number;
  clientRoundTripsPerOrder: number;
  redisByCommandPerOrder: Record<string, number>;
  /** What the bot sent per order by command, a script call by its file (`evalsha writeOrder`). */
  clientByCommandPerOrder?: Record<string, number>;
  /**
   * Of `redisCommandsPerOrder`, the idle looks of the processes' job worker and dispatcher that
   * fell within the count (one ZRANGE each every 2 s whatever the orders, bench/redis-probe.ts) and
   * the connections' watchdog PINGs (one a second on a connection that read nothing since the
   * last look, src/redis/connect.ts; none while commands flow): the rest is the orders' own.
   */
  idleLooksPerOrder: number;
  seconds: number;
}

/**
 * Redis commands per order from the quote to the final message, as issue #12 counts them: the
 * customers first walk to the recipient question (unmeasured: /start, the menu, the amount), and
 * once all are there they ask for their quotes within one second of each other (🙋 To myself),
 * pay, and wait for the final message and the card's last update. The Redis server's own
 * counts (INFO commandstats, so commands run inside Lua count too) are read before the first
 * quote and after the last card, less nothing: the bot's background loops over that time count
 * against the orders, as at any load.
 */
/** Script file names by the SHA-1 ioredis sends them under (`evalsha`). */
function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  const src = fileURLToPath(new URL("../src/", import.meta.url));
  for (const dir of readdirSync(src, { recursive: true, encoding: "utf8" })) {
    if (!dir.endsWith(".lua")) continue;
    const sha = createHash("sha1")
      .update(readFileSync(`${src}${dir}`, "utf8"))
      .digest("hex");
    names.set(sha, basename(dir, ".lua").replace(/-\d+$/, ""));
  }
  return names;
}

function perOrderByName(
  before: Record<string, number>,
  after: Record<string, number>,
  perOrder: (n: number) => number,
): Record<string, number> {
  const names = scriptNames();
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(after)) {
    const d = n - (before[k] ?? 0);
    if (d === 0) continue;
    const name = k.startsWith("evalsha ") ? `evalsha ${names.get(k.slice(8)) ?? k.slice(8, 16)}` : k;
    out[name] = (out[name] ?? 0) + perOrder(d);
  }
  return out;
}

export async function quoteToFinal(customers: number): Promise<QuoteToFinalResult> {
  const stack = await startStack({ webhooks: true, deliveryDelayMs: 200, probe: true });
  try {
    const users = Array.from({ length: customers }, () => {
      const id = nextUserId();
      return stack.emulator.user({ id, username: `quote_${id}`, languageCode: "en" });
    });
    await sleep(500);
    let atQuote = 0;
    let settled = 0;
    let allSettled!: () => void;
    const everyoneThere = new Promise<void>((r) => {
      allSettled = r;
    });
    const settle = () => {
      settled += 1;
      if (settled === customers) allSettled();
    };
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const followMs = 60_000 + ((customers * 4) / 29) * 1000;
    const walks = users.map(async (u, i) => {
      await sleep(spread(i, customers));
      let arrived = false;
      const w = await walkStarsFlow(u, {
        patienceMs: PATIENCE_MS,
        followMs,
        beforeQuote: async () => {
          arrived = true;
          atQuote += 1;
          settle();
          await gate;
          await sleep(spread(i, customers));
        },
      }).catch((err): undefined => {
        process.stderr.write(`quote customer ${u.id}: ${String(err).slice(0, 300)}\n`);
        return undefined;
      });
      if (!arrived) settle();
      return w;
    });
    await everyoneThere;
    // The last flow steps' session writes land before the count starts.
    await sleep(1000);
    const before = await commandStats(stack.client);
    const probeBefore = await stack.bot.redisProbe();
    const t0 = performance.now();
    open();
    const done = await Promise.all(walks);
    // Acknowledgements of the last sends go out within 100 ms of them.
    await sleep(500);
    const after = await commandStats(stack.client);
    const probeAfter = await stack.bot.redisProbe();
    const seconds = (performance.now() - t0) / 1000;
    const completed = done.filter((w) => w?.finalMs !== undefined && w.cardDeliveredMs !== undefined).length;
    const diff = diffStats(before, after);
    diff.delete("info");
    const perOrder = (n: number) => n / Math.max(1, completed);
    const byName =
      probeBefore && probeAfter
        ? perOrderByName(probeBefore.byCommand, probeAfter.byCommand, perOrder)
        : undefined;
    return {
      customers,
      atQuote,
      completed,
      redisCommandsPerOrder: perOrder(sum(diff.values())),
      clientCommandsPerOrder:
        probeBefore && probeAfter ? perOrder(probeAfter.commands - probeBefore.commands) : Number.NaN,
      clientRoundTripsPerOrder:
        probeBefore && probeAfter ? perOrder(probeAfter.roundTrips - probeBefore.roundTrips) : Number.NaN,
      clientByCommandPerOrder: byName,
      idleLooksPerOrder: byName
        ? sum(
            Object.entries(byName).flatMap(([c, k]) => (c.startsWith("zrange ") || c === "ping" ? [k] : [])),
          )
        : Number.NaN,
      redisByCommandPerOrder: Object.fromEntries([...diff].map(([c, n]) => [c, perOrder(n)])),
      seconds,
    };
  } finally {
    await stack.close();
  }
}
