/**
 * Drill 7: Redis Sentinel failover. The bot runs against a primary, one replica and three
 * Sentinels (REDIS_SENTINELS); while customers are paying and orders are being delivered the
 * primary is killed with SIGKILL and the Sentinels promote the replica. The bot must keep
 * answering after the failover, every order a customer paid must reach a final state with one
 * final message, and no order may be charged twice at the reseller.
 */
import { Redis } from "ioredis";
import { mapLimit, sleep } from "../bench/lib.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import { startSentinelSet } from "../test/helpers/redis-topologies.js";
import {
  buyStarsPatiently,
  FINAL_STATES,
  finalMessages,
  type LogSink,
  lastMessageId,
  type Purchase,
  type Row,
  readOrder,
  STARS,
  secs,
  sentTexts,
  settle,
  startDrillStack,
  waitForButton,
  walkToInvoice,
} from "./lib.js";

export interface FailoverOptions {
  /** Customers who buy 50 Stars, started one after another over `spreadMs`. */
  customers: number;
  spreadMs: number;
  /** When the primary is killed, after the first customer started. */
  killAtMs: number;
  settleMs: number;
}

export async function failoverDrill(opts: FailoverOptions, sink: LogSink): Promise<Row[]> {
  const set = await startSentinelSet();
  let ds: Awaited<ReturnType<typeof startDrillStack>> | undefined;
  const client = new Redis({
    sentinels: set.sentinelList
      .split(",")
      .map((hp) => ({ host: "127.0.0.1", port: Number(hp.split(":")[1]) })),
    name: set.name,
    maxRetriesPerRequest: null,
  });
  client.on("error", () => {});
  try {
    ds = await startDrillStack(
      {
        webhooks: true,
        pollIntervalSeconds: 1,
        // Orders stay pending a moment, so some are between pay and delivery when the primary dies.
        deliveryDelayMs: 1_000,
        extraEnv: { REDIS_SENTINELS: set.sentinelList, REDIS_SENTINEL_NAME: set.name },
      },
      sink,
    );
    const { stack } = ds;
    const drill = ds;
    const users = Array.from({ length: opts.customers }, () => drill.customer());
    const startedAt = Date.now();
    const buying = mapLimit(users, users.length, async (u, i) => {
      await sleep((opts.spreadMs * i) / users.length);
      return buyStarsPatiently(u, { attempts: 4, stepMs: 10_000, deadline: startedAt + opts.settleMs });
    });

    // ---- the failover ----
    await sleep(opts.killAtMs);
    const oldPort = set.primary.port;
    const inFlight = await ordersInFlight(client, stack.prefix);
    set.primary.child.kill("SIGKILL");
    const killedAt = Date.now();
    let promotedMs: number | undefined;
    const promoted = settle(
      async () => {
        const port = await set.currentPrimaryPort().catch(() => oldPort);
        if (port !== oldPort && promotedMs === undefined) promotedMs = Date.now() - killedAt;
        return port !== oldPort;
      },
      30_000,
      100,
    );
    // A customer who writes /start every second from the kill on: when is the menu back?
    const probe = drill.customer();
    let menuMs: number | undefined;
    while (menuMs === undefined && Date.now() - killedAt < 30_000) {
      const mark = lastMessageId(probe);
      await probe.sendText("/start");
      try {
        await waitForButton(probe, STARS, mark, 1_000);
        menuMs = Date.now() - killedAt;
      } catch {
        // No menu yet (no answer, or "try again shortly").
      }
    }
    // …and when it takes them all the way to an invoice.
    let answeredMs: number | undefined;
    for (let i = 0; i < 8 && answeredMs === undefined; i++) {
      try {
        await walkToInvoice(probe, 5_000);
        answeredMs = Date.now() - killedAt;
      } catch {
        // Not yet: try again.
      }
    }
    await promoted;

    const purchases: Purchase[] = await buying;
    const paid = purchases
      .map((p, i) => ({ user: users[i]!, orderId: p.orderId }))
      .filter((p): p is { user: ChatUser; orderId: string } => p.orderId !== undefined);

    // ---- every paid order settles ----
    const done = await settle(async () => {
      const texts = sentTexts(stack.emulator);
      for (const p of paid) {
        const state = (await readOrder(client, stack.prefix, p.orderId))?.state;
        if (!state || !FINAL_STATES.includes(state)) return false;
        if (finalMessages(texts, p.user.id, p.orderId) < 1) return false;
      }
      return true;
    }, opts.settleMs);
    const settledMs = Date.now() - killedAt;
    await sleep(1_500);
    const texts = sentTexts(stack.emulator);
    let final = 0;
    let delivered = 0;
    let oneMessage = 0;
    let missing = 0;
    let charges = 0;
    let chargedTwice = 0;
    for (const p of paid) {
      const state = (await readOrder(client, stack.prefix, p.orderId))?.state;
      if (!state) missing += 1;
      if (state && FINAL_STATES.includes(state)) final += 1;
      if (state === "delivered") delivered += 1;
      if (finalMessages(texts, p.user.id, p.orderId) === 1) oneMessage += 1;
      const c = stack.sandbox.stats(p.orderId).charges;
      charges += c;
      if (c > 1) chargedTwice += 1;
    }
    const totalCharges = stack.sandbox.totalCharges();
    const gaveUp = purchases.filter((p) => p.orderId === undefined).length;

    return [
      {
        id: "8a",
        check: "Sentinel failover: the bot answers again after the primary is killed (no restart)",
        pass: menuMs !== undefined && answeredMs !== undefined && promotedMs !== undefined,
        figure:
          `replica promoted ${promotedMs === undefined ? "never" : secs(promotedMs)} after the kill; ` +
          `a customer writing /start every second had the menu back ${menuMs === undefined ? "never" : `after ${secs(menuMs)}`} ` +
          `and an invoice ${answeredMs === undefined ? "never" : `after ${secs(answeredMs)}`}`,
      },
      {
        id: "8b",
        check: "Sentinel failover: every paid order reaches a final state with one final message",
        pass: done && paid.length > 0 && missing === 0 && final === paid.length && oneMessage === paid.length,
        figure:
          `${paid.length}/${opts.customers} customers paid (${gaveUp} gave up), ${inFlight} orders in flight at the kill; ` +
          `${delivered} delivered, ${final} final, ${oneMessage} with exactly one final message, ${missing} missing; ` +
          `settled ${secs(settledMs)} after the kill`,
      },
      {
        id: "8c",
        check: "Sentinel failover: no order charged twice",
        pass: chargedTwice === 0 && totalCharges === charges && charges === delivered,
        figure: `${charges} deposit charges for ${delivered} delivered orders (${totalCharges} at the reseller in all), ${chargedTwice} charged twice`,
      },
    ];
  } finally {
    client.disconnect();
    await ds?.close();
    await set.stop();
  }
}

/** Orders paid or pending (between the customer's payment and delivery) right now. */
async function ordersInFlight(redis: Redis, prefix: string): Promise<number> {
  return redis.zcard(`${prefix}idx:inflight`);
}
