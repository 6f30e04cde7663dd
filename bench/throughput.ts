import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { ChatUser } from "../sandbox/telegram/index.js";
import { commandStats, diffStats, mapLimit, percentile, sleep, sum, until } from "./lib.js";
import { BOT_TOKEN, nextUserId, startStack } from "./stack.js";

const DELIVERED = /Order #\S+ delivered/;
const STEP = { timeoutMs: 120_000 };

export interface ThroughputResult {
  customers: number;
  updates: number;
  updatesPerSecond: number;
  answerP50Ms: number;
  answerP95Ms: number;
  answerP99Ms: number;
  ordersPerSecond: number;
  redisCommandsPerOrder: number;
  peakRssBytes: number;
  failed: number;
}

/** Updates one Stars purchase sends: /start, four button taps, pre_checkout_query, successful_payment. */
const UPDATES_PER_ORDER = 7;
let lastAnswerAt = 0;

/**
 * One customer's Stars purchase; returns how long each step took to be answered (the payment
 * step covers pre_checkout_query and successful_payment).
 */
async function walkStarsFlow(c: ChatUser): Promise<number[]> {
  const times: number[] = [];
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  };
  await timed(async () => {
    await c.sendText("/start");
    await c.waitForBotMessage(/What would you like to buy/, STEP.timeoutMs);
  });
  await timed(() => c.pressButton("⭐ Telegram Stars", STEP));
  await timed(() => c.pressButton("50 ⭐", STEP));
  await timed(() => c.pressButton(/^🙋 To myself/, STEP));
  await timed(() => c.pressButton(/^💳 Pay/, STEP));
  await c.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), STEP.timeoutMs);
  // pre_checkout_query answered, then successful_payment answered by the card turning "paid".
  await timed(async () => {
    const paid = await c.payInvoice(STEP);
    if (!paid.ok) throw new Error(`payment refused: ${paid.error}`);
    await c.waitForBotMessage(/Payment received|Being delivered|delivered/, STEP.timeoutMs);
  });
  lastAnswerAt = Math.max(lastAnswerAt, performance.now());
  await c.waitForBotMessage(DELIVERED, STEP.timeoutMs);
  return times;
}

/** N customers buy Stars at once from the shop bot. `lifted` lifts the bot's own Telegram limiter. */
export async function shopThroughput(customers: number, lifted: boolean): Promise<ThroughputResult> {
  const stack = await startStack({
    webhooks: true,
    deliveryDelayMs: 200,
    // drill/bot-child.ts is the production startApp(); DRILL_LIFT_LIMITS lifts the bot's own send limiter.
    botArgs: lifted ? ["--import", "tsx", "drill/bot-child.ts"] : undefined,
    extraEnv: lifted ? { DRILL_LIFT_LIMITS: "1" } : undefined,
  });
  try {
    const users = Array.from({ length: customers }, () => {
      const id = nextUserId();
      return stack.emulator.user({ id, username: `bench_${id}`, languageCode: "en" });
    });
    const before = await commandStats(stack.client);
    const t0 = performance.now();
    lastAnswerAt = t0;
    let failed = 0;
    const times = await mapLimit(users, customers, (u) =>
      walkStarsFlow(u).catch((err) => {
        failed += 1;
        process.stderr.write(`customer ${u.id} failed: ${String(err).slice(0, 300)}\n`);
        return [] as number[];
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const answering = (lastAnswerAt - t0) / 1000;
    const after = await commandStats(stack.client);
    const all = times.flat();
    const completed = customers - failed;
    // Our own INFO calls are the only commands not from the bot.
    const commands = sum(diffStats(before, after).values()) - 2;
    return {
      customers,
      updates: completed * UPDATES_PER_ORDER,
      updatesPerSecond: (completed * UPDATES_PER_ORDER) / answering,
      answerP50Ms: percentile(all, 50),
      answerP95Ms: percentile(all, 95),
      answerP99Ms: percentile(all, 99),
      ordersPerSecond: completed / elapsed,
      redisCommandsPerOrder: commands / Math.max(1, completed),
      peakRssBytes: stack.bot.peakRss(),
      failed,
    };
  } finally {
    await stack.close();
  }
}

/** The same customers and the same number of updates against a bare grammY bot. */
export async function bareThroughput(
  customers: number,
  updatesPerCustomer = UPDATES_PER_ORDER,
): Promise<ThroughputResult> {
  const { startTelegramEmulator } = await import("../sandbox/telegram/index.js");
  const emulator = await startTelegramEmulator({ token: BOT_TOKEN });
  const child = spawn(process.execPath, ["--import", "tsx", "bench/bare-bot.ts"], {
    env: { PATH: process.env.PATH ?? "", BOT_TOKEN, TELEGRAM_API_ROOT: emulator.apiRoot },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      const m = readFileSync(`/proc/${child.pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/);
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // exited
    }
  }, 200);
  try {
    await until(() => emulator.calls("getUpdates").length > 0, 30_000, "the bare bot to poll");
    const users = Array.from({ length: customers }, () => {
      const id = nextUserId();
      return emulator.user({ id, username: `bare_${id}`, languageCode: "en" });
    });
    const t0 = performance.now();
    const times = await mapLimit(users, customers, async (u) => {
      const out: number[] = [];
      for (let i = 1; i <= updatesPerCustomer; i++) {
        const t = performance.now();
        await u.sendText(`message ${i}`);
        await u.waitFor((msgs) => msgs.some((m) => m.from === "bot" && m.text === `reply ${i}`), 60_000);
        out.push(performance.now() - t);
      }
      return out;
    });
    const elapsed = (performance.now() - t0) / 1000;
    const all = times.flat();
    return {
      customers,
      updates: all.length,
      updatesPerSecond: all.length / elapsed,
      answerP50Ms: percentile(all, 50),
      answerP95Ms: percentile(all, 95),
      answerP99Ms: percentile(all, 99),
      ordersPerSecond: Number.NaN,
      redisCommandsPerOrder: 0,
      peakRssBytes: peak,
      failed: 0,
    };
  } finally {
    clearInterval(sampler);
    child.kill("SIGTERM");
    await sleep(200);
    await emulator.close();
  }
}
