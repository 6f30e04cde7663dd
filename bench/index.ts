/**
 * `npm run bench`: every figure of BENCHMARKS.md, measured on this machine against the project's
 * own emulators and a private Redis (all traffic stays on 127.0.0.1). Prints tables and writes
 * bench/results.json. `--quick` runs smaller sizes (a smoke run, not figures to quote).
 */
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { describeBurst, notificationBurst, webhookIntake, webhookVersusPolling } from "./delivery.js";
import { engineCommandsPerOrder } from "./engine-cost.js";
import { fmt, mb, printTable } from "./lib.js";
import { bareThroughput, shopThroughput, type ThroughputResult } from "./throughput.js";

const quick = process.argv.includes("--quick");
const argNumber = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const sizes = {
  customers: argNumber("customers", quick ? 20 : 200),
  burst: argNumber("burst", quick ? 60 : 1000),
  webhooks: argNumber("webhooks", quick ? 50 : 500),
  versus: argNumber("versus", quick ? 20 : 200),
};

function throughputRows(label: string, r: ThroughputResult, floor?: ThroughputResult): [string, string][] {
  const rows: [string, string][] = [
    [`${label}: updates/s`, fmt(r.updatesPerSecond)],
    [
      `${label}: answer p50 / p95 / p99`,
      `${fmt(r.answerP50Ms, 0)} / ${fmt(r.answerP95Ms, 0)} / ${fmt(r.answerP99Ms, 0)} ms`,
    ],
    [`${label}: peak RSS of the bot process`, mb(r.peakRssBytes)],
  ];
  if (Number.isFinite(r.ordersPerSecond)) {
    rows.push([`${label}: orders completed/s`, fmt(r.ordersPerSecond, 2)]);
    rows.push([`${label}: Redis commands per order`, fmt(r.redisCommandsPerOrder, 0)]);
    rows.push([`${label}: customers that failed`, fmt(r.failed, 0)]);
  }
  if (floor) {
    rows.push([
      `${label}: updates/s as a share of the floor`,
      `${fmt((100 * r.updatesPerSecond) / floor.updatesPerSecond)} %`,
    ]);
    rows.push([`${label}: p50 answer vs the floor`, `×${fmt(r.answerP50Ms / floor.answerP50Ms, 2)}`]);
  }
  return rows;
}

const started = new Date();
process.stdout.write(
  `Benchmarks on ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${mb(totalmem())} RAM, Node ${process.version}${quick ? " (quick)" : ""}\n`,
);

const floor = await bareThroughput(sizes.customers);
const lifted = await shopThroughput(sizes.customers, true);
const limited = await shopThroughput(sizes.customers, false);
printTable(`1. Update throughput: ${sizes.customers} customers buy Stars at once (emulator limits off)`, [
  ...throughputRows("bare grammY (floor)", floor),
  ...throughputRows("shop, own limiter lifted", lifted, floor),
  ...throughputRows("shop as deployed (30 msg/s limiter)", limited, floor),
]);

const burst = await notificationBurst(sizes.burst);
printTable(
  `2. Notification burst: ${sizes.burst} orders delivered at the same moment (30/s, 1/s per chat)`,
  describeBurst(burst),
);

const intake = await webhookIntake(sizes.webhooks);
printTable(`3. Webhook intake: ${sizes.webhooks} signed delivery webhooks`, [
  ["webhooks accepted per second", fmt(intake.perSecond)],
  ["answer p50 / p99", `${fmt(intake.answerP50Ms, 0)} / ${fmt(intake.answerP99Ms, 0)} ms`],
  [
    "webhook → customer's message p50 / p99",
    `${fmt(intake.toMessageP50Ms, 0)} / ${fmt(intake.toMessageP99Ms, 0)} ms`,
  ],
  ["messages lost", fmt(intake.lost, 0)],
]);

const versus = await webhookVersusPolling(sizes.versus);
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

const cost = await engineCommandsPerOrder(quick ? 20 : 200);
const roundTrips = ["evalsha", "hmget", "hget", "get", "set", "multi", "exec", "zrevrange", "zcard"]
  .map((c) => cost.byCommand[c] ?? 0)
  .reduce((a, b) => a + b, 0);
printTable(
  `5. Orders engine alone: Redis cost of one order, quote to final notification (${cost.orders} orders)`,
  [
    ["commands Redis executed per order (incl. inside Lua scripts)", fmt(cost.perOrder)],
    ["client round trips per order", fmt(roundTrips)],
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

writeFileSync(
  "bench/results.json",
  `${JSON.stringify(
    {
      startedAt: started.toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        memoryBytes: totalmem(),
        node: process.version,
      },
      quick,
      sizes,
      throughput: { floor, lifted, limited },
      burst,
      intake,
      versus,
      engineCost: { ...cost, roundTrips },
    },
    null,
    2,
  )}\n`,
);
process.stdout.write("\nWrote bench/results.json\n");
process.exit(0);
