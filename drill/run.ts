/**
 * The fault drills, in order: kill -9, Redis outage, reseller faults, fuzz, webhooks, two processes,
 * with one killed, Sentinel failover, provider and wallet payments killed before their record, and
 * the log scan over everything the bots wrote meanwhile. Each drill starts its own private Redis,
 * reseller sandbox, Telegram emulator and bot process (all on 127.0.0.1) and stops them after.
 */

import { PAYMENT_START_WINDOW_MS } from "../src/orders/provider-checkout.js";
import { failoverDrill } from "./failover.js";
import { fuzzDrill } from "./fuzz.js";
import { killDrill } from "./kill.js";
import { LEASE_MS, LogBook, type LogSink, type Row, SECRETS } from "./lib.js";
import { providerKillDrill } from "./provider-kill.js";
import { redisOutageDrill } from "./redis-outage.js";
import { resellerFaultDrill } from "./reseller-faults.js";
import { twoProcessDrill } from "./two-processes.js";
import { webhookDrill } from "./webhooks.js";

export type { Row } from "./lib.js";

export interface DrillOptions {
  /** Small sizes for CI (about 4 minutes). */
  short?: boolean;
  /** Progress lines (default: stderr). */
  progress?: (line: string) => void;
  /** Run only these drills ("1".."5", "7".."9"); the log scan covers whatever ran. Default: all. */
  only?: string[];
}

/** Sizes of a full run and of the short (CI) run. */
export function drillSizes(short: boolean) {
  return {
    kill: short
      ? {
          customers: 20,
          kills: 5,
          spreadMs: 3_000,
          uptimeMs: [1_500, 3_500] as [number, number],
          maxMs: 120_000,
          settleMs: 60_000,
          stepMs: 12_000,
          paymentKills: 3,
          resumeKills: 2,
          resumeOrders: 2,
        }
      : {
          customers: 200,
          kills: 20,
          spreadMs: 30_000,
          uptimeMs: [3_000, 7_000] as [number, number],
          maxMs: 360_000,
          settleMs: 120_000,
          stepMs: 20_000,
          paymentKills: 6,
          resumeKills: 6,
          resumeOrders: 3,
        },
    // The short outage lasts 4 s, not 3: while Redis is away, ioredis fails the commands waiting
    // for it every third failed reconnect (maxRetriesPerRequest 2), about 0.6 s and 3 s after the
    // connection dropped, so a message that came in between got its "try again" at 3 s — the very
    // moment a 3 s outage ends, and on a loaded machine the restart sometimes won.
    redis: short ? { customers: 5, outageMs: 4_000 } : { customers: 20, outageMs: 10_000 },
    reseller: short
      ? {
          payersPerMode: 1,
          stretchMs: {
            "500": { minMs: 3_000, maxMs: 10_000 },
            hang: { minMs: 3_000, maxMs: 10_000 },
            reset: { minMs: 3_000, maxMs: 10_000 },
          },
          settleMs: 90_000,
        }
      : {
          payersPerMode: 5,
          stretchMs: {
            "500": { minMs: 8_000, maxMs: 30_000 },
            hang: { minMs: 8_000, maxMs: 60_000 },
            reset: { minMs: 8_000, maxMs: 30_000 },
          },
          settleMs: 150_000,
        },
    twoProcesses: short
      ? { heldOrders: 3, customers: 8, spreadMs: 4_000, stepMs: 12_000, settleMs: 60_000 }
      : { heldOrders: 10, customers: 40, spreadMs: 20_000, stepMs: 15_000, settleMs: 120_000 },
    fuzz: short
      ? { inputs: 500, customers: 14, maxMs: 120_000, requireEveryStep: false }
      : { inputs: 10_000, customers: 40, maxMs: 900_000, requireEveryStep: true },
    providers: short
      ? { yookassa: 2, cryptopay: 2, pageKills: 2, wallet: 2, stepMs: 12_000, settleMs: 60_000 }
      : { yookassa: 6, cryptopay: 6, pageKills: 4, wallet: 6, stepMs: 15_000, settleMs: 120_000 },
    failover: short
      ? { customers: 6, spreadMs: 3_000, killAtMs: 1_500, settleMs: 60_000 }
      : { customers: 30, spreadMs: 10_000, killAtMs: 4_000, settleMs: 120_000 },
  };
}

/** What the table's figures rest on, printed under it. */
export function drillNotes(short: boolean, only?: string[]): string[] {
  const s = drillSizes(short);
  const notes = [
    `The bot runs as drill/bot-child.ts: production startApp() with the production leases (${LEASE_MS / 1000} s for a claimed job and a taken outgoing message, renewed every third of it); LOG_LEVEL=debug.`,
    `1: ${s.kill.customers} customers buy 50 Stars (webhooks on, polling every 1 s); ${s.kill.kills} SIGKILLs, each after ${s.kill.uptimeMs[0] / 1000}–${s.kill.uptimeMs[1] / 1000} s of uptime, restart at once; a customer starts again when a step is not answered in ${s.kill.stepMs / 1000} s (at most 8 tries); settle ≤ ${s.kill.settleMs / 1000} s. 1d: ${s.kill.paymentKills} more kills, each as soon as the bot has fetched a customer's successful_payment (the update left the emulator's queue), then a restart. 1e: ${s.kill.resumeKills} kills, each once ${s.kill.resumeOrders} customers' pay calls hang at the reseller (no delivery webhooks), restart at once; timed from the kill to each final message (delivery 0.3 s after pay, polled every 1 s).`,
    `2: redis-server with appendonly (fsync always) SIGKILLed for ${s.redis.outageMs / 1000} s, then started on the same port and directory; ${s.redis.customers} orders pending across it (sandbox delivery paused).`,
    `3: sandbox.fail("*", mode, Infinity) for 500, hang, reset in turn; each mode lasts until its quote probe is answered (${s.reseller.stretchMs.hang.minMs / 1000}–${s.reseller.stretchMs.hang.maxMs / 1000} s for hang); ${s.reseller.payersPerMode} customer(s) pay during each. The reseller client gives up on a hanging request after 10 s, 4 attempts.`,
    `4: ${s.fuzz.inputs} inputs from ${s.fuzz.customers} customers, at most one per ${Math.ceil(4_000 / 10)} ms each (incoming limit 12 per 4 s); an input counts as answered by a new message, an edit or a callback answer within 10 s. The bot's own Telegram send limiter is lifted for this drill only.`,
    "5: webhooks POSTed to the bot's listener; 'nothing changed' compares order states and each customer's message count and edits 3 s after the last one.",
    `7: two bot processes in webhook mode behind a round-robin balancer (drill/balancer.ts), one Redis; the reseller holds every pay call until the kill. ${s.twoProcesses.heldOrders} customers pay while only the first process runs, then ${s.twoProcesses.customers} buy through both, starting over ${s.twoProcesses.spreadMs / 1000} s; the first process is SIGKILLed half-way and not restarted. Take-over is timed from the kill to the survivor's pay and to the final message of the orders the killed process held.`,
    `8: a primary, one replica and three Sentinels (quorum 2, down-after 1 s) on loopback, the bot on REDIS_SENTINELS; ${s.failover.customers} customers start buying 50 Stars over ${s.failover.spreadMs / 1000} s (sandbox delivery takes 1 s) and the primary is SIGKILLed ${s.failover.killAtMs / 1000} s in, not restarted; order writes wait for the replica (WAIT 1) until then. A probe customer starting at the kill walks to an invoice.`,
    `9: the bot on CHECKOUT=yookassa,cryptopay,wallet with the YooKassa and Crypto Pay emulators, its Redis behind a relay (drill/redis-tap.ts) that stops the bot's writes at an exact point before each SIGKILL, restart at once. ${s.providers.yookassa} YooKassa and ${s.providers.cryptopay} Crypto Pay payments made on the emulator (every other one with its notifications lost), each kill as the bot is about to write the payment onto the order; ${s.providers.pageKills} kills after the emulator made a payment page and before the bot recorded it, the customer tapping again ${PAYMENT_START_WINDOW_MS / 1000 + 1} s after the first tap; ${s.providers.wallet} kills after the wallet debit reached Redis and before the order's record.`,
    `6: every line the bot processes wrote in drills 1–5 and 7–9 is searched for: ${SECRETS.map((x) => x.label).join(", ")}.`,
  ];
  return notes.filter((n) => !/^[1-5789]:/.test(n) || !only || only.includes(n[0] ?? ""));
}

async function guarded(id: string, name: string, sink: LogSink, run: () => Promise<Row[]>): Promise<Row[]> {
  try {
    return await run();
  } catch (err) {
    sink.flush();
    const message = (err instanceof Error ? err.message : String(err)).split("\n")[0]?.slice(0, 200);
    return [{ id, check: `${name}: the drill ran to its end`, pass: false, figure: `failed: ${message}` }];
  }
}

/** Runs every drill and returns one row per check. */
export async function runDrills(opts: DrillOptions = {}): Promise<Row[]> {
  const short = opts.short ?? false;
  const progress = opts.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sizes = drillSizes(short);
  const book = new LogBook();
  const rows: Row[] = [];
  const step = async (id: string, name: string, run: (sink: LogSink) => Promise<Row[]>) => {
    if (opts.only && !opts.only.includes(id)) return;
    const t = Date.now();
    progress(`drill ${id}: ${name}…`);
    const sink = book.sink(name);
    const out = await guarded(id, name, sink, () => run(sink));
    rows.push(...out);
    progress(
      `drill ${id}: ${out.every((r) => r.pass) ? "passed" : "FAILED"} in ${((Date.now() - t) / 1000).toFixed(0)} s`,
    );
  };

  await step("1", "kill -9", (sink) => killDrill(sizes.kill, sink));
  await step("2", "Redis outage", (sink) => redisOutageDrill(sizes.redis, sink));
  await step("3", "reseller faults", (sink) => resellerFaultDrill(sizes.reseller, sink));
  await step("4", "fuzz", (sink) => fuzzDrill(sizes.fuzz, sink));
  await step("5", "webhooks", (sink) => webhookDrill(sink));
  await step("7", "two processes", (sink) => twoProcessDrill(sizes.twoProcesses, sink));
  await step("8", "Sentinel failover", (sink) => failoverDrill(sizes.failover, sink));
  await step("9", "provider and wallet payments under kill -9", (sink) =>
    providerKillDrill(sizes.providers, sink),
  );

  // 6. The log scan over every bot process of the drills that ran.
  const lines = book.sinks.reduce((n, s) => n + s.lines, 0);
  const bytes = book.sinks.reduce((n, s) => n + s.bytes, 0);
  const debug = book.sinks.reduce((n, s) => n + s.debugLines, 0);
  const processes = book.sinks.reduce((n, s) => n + s.processes, 0);
  const hits = SECRETS.map((x) => ({
    label: x.label,
    n: book.sinks.reduce((n, s) => n + (s.secretHits.get(x.label) ?? 0), 0),
  }));
  rows.push({
    id: "6",
    check: "log scan: no secret in any line the bot wrote",
    pass: lines > 0 && debug > 0 && hits.every((h) => h.n === 0),
    figure:
      `${lines} lines (${(bytes / 1024).toFixed(0)} KiB, ${debug} at debug) from ${processes} bot processes; ` +
      hits.map((h) => `${h.n} with the ${h.label}`).join(", "),
  });
  return rows;
}
