/**
 * Drill 1: the bot is SIGKILLed at random moments while customers buy Stars, and restarted each
 * time. Customers cope (a step not answered in time is tried again). Afterwards every paid order
 * must end final (or flagged stuck), no custom_id may be charged twice, and each paying customer
 * must get exactly one final message per order.
 */
import { mapLimit, sleep } from "../bench/lib.js";
import {
  buyStarsPatiently,
  FINAL_STATES,
  finalMessages,
  jobsByType,
  type LogSink,
  type Purchase,
  rand,
  readOrder,
  type Row,
  type StoredOrder,
  secs,
  sentTexts,
  settle,
  startDrillStack,
} from "./lib.js";

export interface KillOptions {
  customers: number;
  kills: number;
  /** Customers start spread over this long. */
  spreadMs: number;
  /** Uptime between a restart and the next kill is drawn from this range. */
  uptimeMs: [number, number];
  /** Hard stop of the buying and the kill loop. */
  maxMs: number;
  settleMs: number;
}

export async function killDrill(opts: KillOptions, sink: LogSink): Promise<Row[]> {
  const ds = await startDrillStack({ webhooks: true, pollIntervalSeconds: 1, deliveryDelayMs: 300 }, sink);
  try {
    const { stack } = ds;
    const started = Date.now();
    const deadline = started + opts.maxMs;
    const users = Array.from({ length: opts.customers }, () => ds.customer());
    let kills = 0;
    const downtimes: number[] = [];

    const buying = mapLimit(users, users.length, async (u) => {
      await sleep(rand(0, opts.spreadMs));
      return buyStarsPatiently(u, { attempts: 8, stepMs: 12_000, deadline });
    });

    const killing = (async () => {
      // The kills are spread over the buying: `kills` of them, each after a random uptime.
      while (kills < opts.kills && Date.now() < deadline) {
        await sleep(rand(opts.uptimeMs[0], opts.uptimeMs[1]));
        const t = Date.now();
        await ds.kill9();
        kills += 1;
        await ds.restart();
        downtimes.push(Date.now() - t);
      }
    })();

    const purchases: Purchase[] = await buying;
    await killing;
    const customersMs = Date.now() - started;

    const paid = purchases
      .map((p, i) => ({ user: users[i]!, orderId: p.orderId }))
      .filter((p): p is { user: (typeof users)[number]; orderId: string } => p.orderId !== undefined);

    // Settle: every paid order final (or stuck) and no notification, refund or pay work left.
    const states = new Map<string, StoredOrder | null>();
    const settleStart = Date.now();
    const settled = await settle(async () => {
      for (const p of paid) states.set(p.orderId, await readOrder(stack.client, stack.prefix, p.orderId));
      const done = [...states.values()].every((o) => o && (FINAL_STATES.includes(o.state) || o.stuck));
      if (!done) return false;
      const jobs = await jobsByType(stack.client, stack.prefix);
      return ["submit", "track", "final", "refund", "card"].every((t) => !jobs.get(t));
    }, opts.settleMs);
    const settleMs = Date.now() - settleStart;

    const byState = new Map<string, number>();
    let finalOrStuck = 0;
    for (const o of states.values()) {
      const key = o ? (o.stuck ? "stuck" : o.state) : "missing";
      byState.set(key, (byState.get(key) ?? 0) + 1);
      if (o && (FINAL_STATES.includes(o.state) || o.stuck)) finalOrStuck += 1;
    }
    const notFinal = paid.filter((p) => {
      const o = states.get(p.orderId);
      return !o || !(FINAL_STATES.includes(o.state) || o.stuck);
    });

    const sandboxOrders = stack.sandbox.orders();
    const charges = sandboxOrders.map((o) => stack.sandbox.stats(o.customId).charges);
    const maxCharges = Math.max(0, ...charges);
    const overcharged = sandboxOrders.filter((o) => stack.sandbox.stats(o.customId).charges > 1);

    const texts = sentTexts(stack.emulator);
    const counts = paid.map((p) => finalMessages(texts, p.user.id, p.orderId));
    const exactlyOne = counts.filter((n) => n === 1).length;
    const missing = counts.filter((n) => n === 0).length;
    const duplicated = counts.filter((n) => n > 1).length;
    const gaveUp = purchases.filter((p) => !p.orderId);

    const stateList = [...byState.entries()].map(([k, n]) => `${k} ${n}`).join(", ");
    const enough = paid.length >= Math.ceil(opts.customers / 2);
    const avgDown = downtimes.length ? downtimes.reduce((a, b) => a + b, 0) / downtimes.length : 0;
    return [
      {
        id: "1a",
        check: "kill -9: every order a customer paid ends final or flagged stuck",
        pass: notFinal.length === 0 && enough && kills >= opts.kills,
        figure:
          `${finalOrStuck}/${paid.length} paid orders final (${stateList}); ${kills} kills, ` +
          `restart ${secs(avgDown)} avg; ${paid.length}/${opts.customers} customers paid in ${secs(customersMs)}` +
          (gaveUp.length ? ` (${gaveUp.length} gave up: ${gaveUp[0]?.lastError?.slice(0, 80)})` : "") +
          `; settled ${settled ? "in" : "NOT within"} ${secs(settleMs)}` +
          (notFinal.length
            ? `; not final: ${notFinal
                .slice(0, 3)
                .map((p) => `${p.orderId.slice(0, 8)}=${states.get(p.orderId)?.state ?? "missing"}`)
                .join(", ")}`
            : ""),
      },
      {
        id: "1b",
        check: "kill -9: the deposit is charged at most once per custom_id",
        pass: overcharged.length === 0,
        figure: `max ${maxCharges} charge per custom_id over ${sandboxOrders.length} reseller orders; ${overcharged.length} charged twice`,
      },
      {
        id: "1c",
        check: "kill -9: each paying customer gets exactly one final message per order",
        pass: missing === 0 && duplicated === 0,
        figure: `${exactlyOne}/${paid.length} exactly one; ${missing} missing; ${duplicated} duplicated`,
      },
    ];
  } finally {
    await ds.close();
  }
}
