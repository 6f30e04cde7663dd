/**
 * `npm run bench`: every figure of BENCHMARKS.md, measured on this machine against the project's
 * own emulators and a private Redis (all traffic stays on 127.0.0.1). Prints tables and writes
 * bench/results.json. `--quick` runs smaller sizes (a smoke run, not figures to quote);
 * `--only rush,quote,release,intake,versus,engine,retention,logic` runs some phases only; `--warm 200` lets 200
 * customers walk the flow before each rush, unmeasured (in the floor too).
 *
 * The machine may be shared and noisy: only figures of the same run compare, which is why every
 * rush is printed beside the floor (a bare grammY + runner bot) measured right before it.
 */
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { webhookIntake, webhookVersusPolling } from "./delivery.js";
import { engineCommandsPerOrder } from "./engine-cost.js";
import { dur, fmt, mb, printGrid, printTable } from "./lib.js";
import { LOGIC_ACTION_NOTES, LOGIC_ACTIONS, logicPerUpdate } from "./logic.js";
import { release, WALKER_DELAY_MS } from "./release.js";
import { retentionSoak } from "./retention.js";
import {
  ANSWER_GOAL_MS,
  type FloorResult,
  floorRush,
  type QuoteToFinalResult,
  quoteToFinal,
  type RushResult,
  SHOP_CALLS_PER_UPDATE,
  SHOP_PACED_SENDS,
  SHOP_SIDE_CALLS,
  shopRush,
} from "./rush.js";
import { ACTIONS, type Walk } from "./walk.js";

const quick = process.argv.includes("--quick");
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const argNumber = (name: string, def: number) => Number(arg(name) ?? def);
const sizes = {
  rush: (arg("rush") ?? (quick ? "20,100" : "200,1000")).split(",").map(Number),
  /** Redis per order from the quote to the final message, at these numbers of customers quoting at once. */
  quote: (arg("quote") ?? (quick ? "1,20" : "1,200,1000")).split(",").map(Number),
  /** Customers who walk the flow first, unmeasured, in both the shop and the floor (`--warm 200`): a process that has run a while. */
  warm: argNumber("warm", 0),
  release: argNumber("release", quick ? 60 : 1000),
  webhooks: argNumber("webhooks", quick ? 50 : 500),
  versus: argNumber("versus", quick ? 20 : 200),
  engine: argNumber("engine", quick ? 20 : 200),
  /** Customers walking one after another to the price card, the Bot API answered in memory (`--logic`). */
  logic: argNumber("logic", quick ? 50 : 1000),
  /** Retention soak: orders a day × simulated days (100,000 orders), retention in days. */
  retention: {
    perDay: argNumber("retention-per-day", quick ? 100 : 1000),
    days: argNumber("retention-days", quick ? 20 : 100),
    retentionDays: quick ? 5 : 30,
    live: quick ? 50 : 500,
  },
};
const only = arg("only")?.split(",");
const runs = (phase: string) => !only || only.includes(phase);

const ms3 = (a: number, b: number, c: number) =>
  [a, b, c].every((x) => !Number.isFinite(x) || x < 1000) && [a, b, c].some(Number.isFinite)
    ? `${[a, b, c].map((x) => (Number.isFinite(x) ? fmt(x, 0) : "never")).join(" / ")} ms`
    : [a, b, c].map((x) => (Number.isFinite(x) ? dur(x) : "never")).join(" / ");
const of = (n: number, total: number) => `${fmt(n, 0)} of ${fmt(total, 0)}`;
const mb1 = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MB`;
const ratio = (a: number, b: number) => `×${fmt(a / b, 1)}`;
/** A share of the CPU, shown when the CPU was enough for per-thread times (10 ms ticks) to tell. */
const threadShare = (share: number, cpuMs: number) => (cpuMs >= 500 ? `${fmt(share * 100, 0)} %` : "—");

function rushRows(
  r: RushResult,
  f: FloorResult,
  calls: FloorResult,
  io: FloorResult,
  paced: FloorResult,
): string[][] {
  return [
    [
      `customers without an answer within ${ANSWER_GOAL_MS / 1000} s`,
      of(r.withoutAnswer, r.customers),
      of(f.withoutAnswer, f.customers),
      "0",
    ],
    ["customers who never got to a price", of(r.neverPriced, r.customers), "", "0"],
    [
      "action → answer p50 / p95 / p99",
      ms3(r.answerP50Ms, r.answerP95Ms, r.answerP99Ms),
      ms3(f.answerP50Ms, f.answerP95Ms, f.answerP99Ms),
      r.customers <= 200 ? "p99 ≤ 1 s" : "",
    ],
    [
      "bot CPU per update",
      `${fmt(r.cpuPerUpdateMs, 2)} ms (${ratio(r.cpuPerUpdateMs, f.cpuPerUpdateMs)} the floor)`,
      `${fmt(f.cpuPerUpdateMs, 2)} ms`,
      "≤ 2× the floor (aim 1.5×)",
    ],
    [
      `  beside a bare grammY bot making the shop's ${SHOP_CALLS_PER_UPDATE.reduce((a, b) => a + b)} Bot API calls per purchase`,
      ratio(r.cpuPerUpdateMs, calls.cpuPerUpdateMs),
      `${fmt(calls.cpuPerUpdateMs, 2)} ms (${ratio(calls.cpuPerUpdateMs, f.cpuPerUpdateMs)} the floor)`,
      "",
    ],
    [
      `  beside one making them through the shop's transport, with its ${SHOP_SIDE_CALLS.redis.reduce((a: number, b) => a + b, 0)} Redis commands and ${SHOP_SIDE_CALLS.http.reduce((a: number, b) => a + b, 0)} reseller round trips`,
      ratio(r.cpuPerUpdateMs, io.cpuPerUpdateMs),
      `${fmt(io.cpuPerUpdateMs, 2)} ms (${ratio(io.cpuPerUpdateMs, f.cpuPerUpdateMs)} the floor)`,
      "",
    ],
    [
      `  beside one that also sends the final message and the card update later, at the shop's pace (30/s)`,
      ratio(r.cpuPerUpdateMs, paced.cpuPerUpdateMs),
      `${fmt(paced.cpuPerUpdateMs, 2)} ms (${ratio(paced.cpuPerUpdateMs, f.cpuPerUpdateMs)} the floor)`,
      "",
    ],
    [
      "  counting only until the last answer",
      `${fmt(r.cpuPerUpdateAnsweringMs, 2)} ms (${ratio(r.cpuPerUpdateAnsweringMs, f.cpuPerUpdateMs)})`,
      "",
      "",
    ],
    [
      "  of it on the main thread (the rest: V8's helpers, mostly GC)",
      threadShare(r.mainThreadShare, r.cpuMs),
      threadShare(f.mainThreadShare, f.cpuMs),
      "",
    ],
    [
      "Redis commands per order, /start → final (incl. inside Lua)",
      fmt(r.redisCommandsPerOrder, 0),
      "",
      "(quote → final ≤ 30: table 1b)",
    ],
    [
      "  sent by the bot / round trips, per order",
      `${fmt(r.clientCommandsPerOrder, 0)} / ${fmt(r.clientRoundTripsPerOrder, 0)}`,
      "",
      "",
    ],
    [
      "peak RSS of the bot process",
      mb(r.peakRssBytes),
      mb(f.peakRssBytes),
      r.customers >= 1000 ? "≤ 150 MB" : "",
    ],
    ["paid / orders completed (final + card)", `${fmt(r.paid, 0)} / ${fmt(r.completed, 0)}`, "", ""],
    [
      "payment → card says paid p50 / p95 / max",
      ms3(r.cardPaid.p50Ms, r.cardPaid.p95Ms, r.cardPaid.maxMs),
      "",
      "",
    ],
    ["payment → final message p50 / p95 / max", ms3(r.final.p50Ms, r.final.p95Ms, r.final.maxMs), "", ""],
    [
      "updates handled; last answer / all done after",
      `${fmt(r.updates, 0)}; ${fmt(r.answeringSeconds)} s / ${fmt(r.seconds)} s`,
      `${fmt(f.updates, 0)}; ${fmt(f.seconds)} s`,
      "",
    ],
  ];
}

function walkRows(alone: Walk | undefined, during: Walk | undefined): string[][] {
  const cell = (w: Walk | undefined, i: number) => {
    const a = w?.answers[i];
    if (a === undefined) return w ? "(not reached)" : "—";
    return Number.isFinite(a) ? dur(a) : "not answered";
  };
  const opt = (v: number | undefined) => (v === undefined ? "not within the wait" : dur(v));
  return [
    ...ACTIONS.map((a, i) => [a, cell(alone, i), cell(during, i)]),
    ["payment → card says paid", opt(alone?.cardPaidMs), opt(during?.cardPaidMs)],
    ["payment → final message", opt(alone?.finalMs), opt(during?.finalMs)],
  ];
}

const logLine = (l: { warnings: number; errors: number; top: string }) =>
  `Bot log: ${fmt(l.warnings, 0)} warnings, ${fmt(l.errors, 0)} errors${l.top ? ` (${l.top})` : ""}\n`;

const started = new Date();
process.stdout.write(
  `Benchmarks on ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${mb(totalmem())} RAM, Node ${process.version}${quick ? " (quick)" : ""}\n`,
);
const results: Record<string, unknown> = {};

if (runs("rush")) {
  const rushes: {
    floor: FloorResult;
    calls: FloorResult;
    io: FloorResult;
    paced: FloorResult;
    shop: RushResult;
  }[] = [];
  for (const n of sizes.rush) {
    const floor = await floorRush(n, { warmUp: sizes.warm });
    const calls = await floorRush(n, { warmUp: sizes.warm, sendsPerUpdate: SHOP_CALLS_PER_UPDATE });
    const io = await floorRush(n, {
      warmUp: sizes.warm,
      sendsPerUpdate: SHOP_CALLS_PER_UPDATE,
      sideCalls: SHOP_SIDE_CALLS,
      shopTransport: true,
    });
    const paced = await floorRush(n, {
      warmUp: sizes.warm,
      sendsPerUpdate: SHOP_CALLS_PER_UPDATE,
      sideCalls: SHOP_SIDE_CALLS,
      shopTransport: true,
      pacedSends: SHOP_PACED_SENDS,
    });
    const shop = await shopRush(n, { warmUp: sizes.warm });
    rushes.push({ floor, calls, io, paced, shop });
    printGrid(
      `1. Rush: ${fmt(n, 0)} customers start the Stars flow within one second (emulator limits off)${sizes.warm ? `, after ${fmt(sizes.warm, 0)} others` : ""}`,
      ["", "shop as deployed", "bare grammY (floor)", "goal"],
      rushRows(shop, floor, calls, io, paced),
    );
    const top = Object.entries(shop.redisByCommandPerOrder)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([c, k]) => `${c} ${fmt(k, 0)}`)
      .join(", ");
    process.stdout.write(`Redis commands per order by command: ${top}\n`);
    process.stdout.write(logLine(shop.log));
    if (Object.keys(shop.stoppedAt).length > 0) {
      process.stdout.write(
        `customers who gave up (no answer within 30 s), by action: ${Object.entries(shop.stoppedAt)
          .map(([a, k]) => `${a} ${k}`)
          .join(", ")}\n`,
      );
    }
  }
  results.rush = rushes;
}

if (runs("quote")) {
  const quotes: QuoteToFinalResult[] = [];
  for (const n of sizes.quote) quotes.push(await quoteToFinal(n));
  const top = (q: QuoteToFinalResult) =>
    Object.entries(q.redisByCommandPerOrder)
      .sort((a, b) => b[1] - a[1])
      .filter(([, k]) => k >= 0.5)
      .map(([c, k]) => `${c} ${fmt(k, 0)}`)
      .join(", ");
  printGrid(
    "1b. Redis commands per order from the quote to the final message (customers at the recipient question ask for their quotes within one second, pay, and get the final message and the card's last update)",
    [
      "customers",
      "quoted / completed",
      "commands per order (incl. inside Lua)",
      "the order's own / the idle looks and PINGs meanwhile",
      "of them sent by the bot / round trips",
      "goal",
      "by command",
    ],
    quotes.map((q) => [
      fmt(q.customers, 0),
      `${fmt(q.atQuote, 0)} / ${fmt(q.completed, 0)}`,
      fmt(q.redisCommandsPerOrder, 0),
      `${fmt(q.redisCommandsPerOrder - q.idleLooksPerOrder, 0)} / ${fmt(q.idleLooksPerOrder, q.idleLooksPerOrder < 1 ? 2 : 0)}`,
      `${fmt(q.clientCommandsPerOrder, 0)} / ${fmt(q.clientRoundTripsPerOrder, 0)}`,
      "≤ 30, the same at 1 as at 1,000",
      top(q),
    ]),
  );
  results.quote = quotes;
}

if (runs("release")) {
  const r = await release(sizes.release, { walker: true });
  results.release = r;
  printGrid(
    `2. Release: ${fmt(r.orders, 0)} paid orders delivered at once (emulator enforcing 30/s, 1/s per chat)`,
    ["", "figure", "goal"],
    [
      ["time until every customer had the final message", `${fmt(r.seconds)} s`, ""],
      ["  the first final message went out after", `${fmt(r.firstFinalSeconds, 2)} s`, ""],
      [
        `ideal (${fmt(r.orders, 0)} ÷ 30 = ${fmt(r.idealSeconds)} s) ÷ actual`,
        fmt(r.idealOverActual, 2),
        "≥ 0.95",
      ],
      [
        "429s to the bot's own messages (the outgoing queue's)",
        fmt(r.telegram429 - r.refusedWalkerSends, 0),
        "0",
      ],
      [
        "429s to replies (the walking customer's taps within a second of the bot's last message there)",
        fmt(r.refusedWalkerSends, 0),
        "waited out (retry_after)",
      ],
      ["final messages lost / sent twice", `${fmt(r.lost, 0)} / ${fmt(r.sentTwice, 0)}`, "0 / 0"],
      ["most final messages in one second", fmt(r.peakFinalsPerSecond, 0), "≤ 30"],
      ["card updates trail: last final → last card edit", `${fmt(r.cardTrailSeconds)} s`, ""],
      ['cards never edited to "Delivered."', fmt(r.cardsNotUpdated, 0), "0"],
    ],
  );
  printGrid(
    `2b. A customer walks the Stars flow ${WALKER_DELAY_MS / 1000} s into the release, and alone before it (same limits)`,
    ["action → answer", "alone", "during the release"],
    [
      ...walkRows(r.walkAlone, r.walkDuring),
      ["replies into their chat refused (429)", fmt(r.refusedAloneSends, 0), fmt(r.refusedWalkerSends, 0)],
    ],
  );
  process.stdout.write(logLine(r.log));
}

if (runs("intake")) {
  const intake = await webhookIntake(sizes.webhooks);
  results.intake = intake;
  printTable(`3. Webhook intake: ${sizes.webhooks} signed delivery webhooks`, [
    ["webhooks accepted per second", fmt(intake.perSecond)],
    ["answer p50 / p99", `${fmt(intake.answerP50Ms, 0)} / ${fmt(intake.answerP99Ms, 0)} ms`],
    [
      "webhook → customer's message p50 / p99",
      `${fmt(intake.toMessageP50Ms, 0)} / ${fmt(intake.toMessageP99Ms, 0)} ms`,
    ],
    ["messages lost", fmt(intake.lost, 0)],
  ]);
}

if (runs("versus")) {
  const versus = await webhookVersusPolling(sizes.versus);
  results.versus = versus;
  printTable(`4. Completion → customer's message for ${sizes.versus} orders`, [
    [
      "webhooks on: p50 / p95 / max",
      `${fmt(versus.webhooks!.p50Ms, 0)} / ${fmt(versus.webhooks!.p95Ms, 0)} / ${fmt(versus.webhooks!.maxMs, 0)} ms`,
    ],
    [
      "polling only: p50 / p95 / max",
      `${fmt(versus.polling!.p50Ms, 0)} / ${fmt(versus.polling!.p95Ms, 0)} / ${fmt(versus.polling!.maxMs, 0)} ms`,
    ],
    ["lost (webhooks / polling)", `${versus.webhooks!.lost} / ${versus.polling!.lost}`],
  ]);
}

if (runs("engine")) {
  const cost = await engineCommandsPerOrder(sizes.engine);
  results.engineCost = cost;
  printTable(
    `5. Orders engine alone: Redis cost of one order, quote to final notification (${cost.orders} orders)`,
    [
      ["commands Redis executed per order (incl. inside Lua scripts)", fmt(cost.perOrder)],
      [
        "commands the engine sent / round trips, per order",
        `${fmt(cost.clientCommandsPerOrder)} / ${fmt(cost.roundTripsPerOrder)}`,
      ],
      [
        "by command",
        Object.entries(cost.byCommand)
          .filter(([c]) => c !== "info")
          .sort((a, b) => b[1] - a[1])
          .map(([c, n]) => `${c} ${fmt(n)}`)
          .join(", "),
      ],
    ],
  );
}

if (runs("retention") && sizes.retention.days > 0) {
  const soak = await retentionSoak(sizes.retention);
  results.retention = soak;
  const step = Math.max(1, Math.round(soak.days / 12));
  const rows = soak.series
    .filter(
      (d) => d.day === 1 || d.day % step === 0 || d.day === soak.days || d.day === soak.retentionDays + 1,
    )
    .map((d) => [
      String(d.day),
      fmt(d.created, 0),
      fmt(d.inRedis, 0),
      mb1(d.memoryBeforeSweep),
      mb1(d.memoryAfterSweep),
      fmt((d.memoryAfterSweep - soak.baselineMemory) / d.inRedis, 0),
      fmt(d.archived, 0),
      mb1(d.archiveBytes),
      dur(d.sweepMs),
    ]);
  printGrid(
    `6. Retention soak: ${fmt(soak.perDay, 0)} orders a day for ${soak.days} simulated days, ORDER_RETENTION_DAYS=${soak.retentionDays}, ${soak.live} orders never final`,
    [
      "day",
      "created",
      "in Redis",
      "memory before sweep",
      "after sweep",
      "bytes / order in Redis",
      "archived",
      "archive on disk",
      "day's sweeps",
    ],
    rows,
  );
  printTable("Retention soak, summary", [
    [
      "Redis memory per order in Redis ((used_memory − empty Redis) ÷ orders)",
      `${fmt(soak.bytesPerOrder, 0)} bytes`,
    ],
    [
      `memory after sweeps, day ${soak.retentionDays + 1} (retention applies) → day ${soak.days}`,
      `${mb1(soak.flatFromMemory)} → ${mb1(soak.series.at(-1)!.memoryAfterSweep)} (×${soak.growthOnceFlat.toFixed(3)})`,
    ],
    ["archive sweep throughput", `${fmt(soak.archivedPerSecond, 0)} orders/s`],
    ["orders never final, still in Redis", `${fmt(soak.liveLeftInRedis, 0)} of ${fmt(soak.live, 0)}`],
  ]);
}

if (runs("logic") && sizes.logic > 0) {
  const logic = await logicPerUpdate(sizes.logic);
  results.logic = logic;
  const ratio = (a: number, b: number) => `×${fmt(a / b)}`;
  printGrid(
    `7. The bot's own work per update, Bot API answered in memory: ${fmt(logic.customers, 0)} customers one after another to the price card (CPU of this process)`,
    ["action", "shop", "bare grammY (floor)", "ratio"],
    [
      ...LOGIC_ACTIONS.map((a, i) => [
        `${a} (${LOGIC_ACTION_NOTES[i]})`,
        `${fmt(logic.shop.perActionMs[i]!, 2)} ms`,
        `${fmt(logic.floor.perActionMs[i]!, 2)} ms`,
        ratio(logic.shop.perActionMs[i]!, logic.floor.perActionMs[i]!),
      ]),
      [
        "per update",
        `${fmt(logic.shop.perUpdateMs, 2)} ms`,
        `${fmt(logic.floor.perUpdateMs, 2)} ms`,
        ratio(logic.shop.perUpdateMs, logic.floor.perUpdateMs),
      ],
      ["reached the price card", `${logic.shop.completed}`, `${logic.floor.completed}`, ""],
    ],
  );
}

writeFileSync(
  "bench/results.json",
  `${JSON.stringify(
    {
      startedAt: started.toISOString(),
      seconds: (Date.now() - started.getTime()) / 1000,
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        memoryBytes: totalmem(),
        node: process.version,
      },
      quick,
      sizes,
      ...results,
    },
    (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v),
    2,
  )}\n`,
);
process.stdout.write(`\nWrote bench/results.json (${fmt((Date.now() - started.getTime()) / 1000, 0)} s)\n`);
process.exit(0);
