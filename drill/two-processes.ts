/**
 * Drill 7: two bot processes on one Redis, run the way README "Running several processes" says —
 * both in webhook mode behind a load balancer (drill/balancer.ts), both working the job schedule
 * and the outgoing queue. The reseller holds every `pay` without an answer for a while, so both
 * processes hold paid orders mid-way: first a few customers pay while only the first process
 * runs (their pay calls are that process's), then the second joins and more customers buy
 * through both; half-way through them the first process is SIGKILLed (and the reseller answers
 * again). Every paid order must end final with exactly one final message and one charge; the
 * figure is how long the survivor took to take the dead process's orders over.
 */

import { mapLimit, percentile, sleep } from "../bench/lib.js";
import { BOT_TOKEN, type BotProcess, type Stack, startBotProcess } from "../bench/stack.js";
import { ALLOWED_UPDATES } from "../src/bot/lifecycle.js";
import { freePort } from "../test/helpers/private-redis.js";
import { startBalancer } from "./balancer.js";
import { RESUME_WITHIN_MS } from "./kill.js";
import {
  BOT_CHILD,
  buyStarsPatiently,
  FINAL_STATES,
  finalMessages,
  finalSentAt,
  hangingPays,
  type LogSink,
  orderTimes,
  PAY_ENDPOINT,
  type Purchase,
  paidOrdersSettled,
  type Row,
  rand,
  type StoredOrder,
  secs,
  sentTexts,
  settle,
  startDrillStack,
  walkToInvoice,
} from "./lib.js";

export interface TwoProcessOptions {
  /** Customers who pay while only the first process runs: their pay calls are in flight there at the kill. */
  heldOrders: number;
  /** Customers who then buy through both processes, starting spread over `spreadMs`. */
  customers: number;
  spreadMs: number;
  /** How long a customer waits for one step before starting again. */
  stepMs: number;
  settleMs: number;
}

const TELEGRAM_SECRET = "drill-telegram-webhook-secret";

/**
 * Points Telegram's webhook at the balancer, once the `processes` started so far have registered
 * the public https address themselves (a process does so after its listener is ready).
 */
async function pointWebhookAt(stack: Stack, url: string, processes: number): Promise<void> {
  const own = () => stack.emulator.calls("setWebhook").filter((c) => !String(c.payload.url).startsWith(url));
  if (!(await settle(() => own().length >= processes, 30_000)))
    throw new Error("a bot did not register its webhook");
  const res = await fetch(`${stack.emulator.apiRoot}/bot${BOT_TOKEN}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      url: `${url}/webhooks/telegram`,
      secret_token: TELEGRAM_SECRET,
      allowed_updates: ALLOWED_UPDATES,
    }),
  });
  if (!res.ok) throw new Error(`setWebhook failed: ${res.status}`);
}

export async function twoProcessDrill(opts: TwoProcessOptions, sink: LogSink): Promise<Row[]> {
  const balancer = await startBalancer(await freePort());
  const ds = await startDrillStack(
    {
      webhooks: true,
      pollIntervalSeconds: 1,
      deliveryDelayMs: 300,
      publicPort: Number(new URL(balancer.url).port),
      extraEnv: {
        BOT_MODE: "webhook",
        // The public https address of the balancer, as the processes register it; the drill then
        // points the emulator at the balancer's plain http address (no TLS on loopback).
        BOT_WEBHOOK_URL: `https://127.0.0.1:${new URL(balancer.url).port}/webhooks/telegram`,
        BOT_WEBHOOK_SECRET: TELEGRAM_SECRET,
      },
    },
    sink,
  );
  let second: BotProcess | undefined;
  try {
    const { stack } = ds;
    const first = stack.httpPort;
    balancer.upstreams.push(first);
    await pointWebhookAt(stack, balancer.url, 1);

    // The first process alone: these customers' pay calls are in flight there.
    stack.sandbox.fail(PAY_ENDPOINT, "hang", Number.POSITIVE_INFINITY);
    const holders = Array.from({ length: opts.heldOrders }, () => ds.customer());
    const invoices = await Promise.all(holders.map((u) => walkToInvoice(u, opts.stepMs)));
    const held = holders.map((u, i) => ({
      user: u,
      orderId: u.messages().find((m) => m.messageId === invoices[i])?.invoice?.payload ?? "",
    }));
    for (const [i, u] of holders.entries()) {
      const paid = await u.payInvoice({ messageId: invoices[i] ?? 0 });
      if (!paid.ok) throw new Error(`payment not accepted: ${paid.error}`);
    }
    const heldIds = held.map((h) => h.orderId);
    if (!(await settle(() => hangingPays(stack.sandbox, heldIds) === heldIds.length, 15_000))) {
      throw new Error(
        `only ${hangingPays(stack.sandbox, heldIds)} of ${heldIds.length} pay calls reached the reseller`,
      );
    }

    // The second process joins behind the balancer.
    const port = await freePort();
    sink.processes += 1;
    second = await startBotProcess(
      { ...stack.env, HTTP_PORT: String(port) },
      port,
      ["--import", "tsx", BOT_CHILD],
      {
        onOutput: sink.feed,
      },
    );
    balancer.upstreams.push(port);
    await pointWebhookAt(stack, balancer.url, 2);

    // A batch through both; the first process dies half-way, and the reseller answers again.
    const users = Array.from({ length: opts.customers }, () => ds.customer());
    const started = Date.now();
    let killedAt = 0;
    const buying = mapLimit(users, users.length, async (u) => {
      await sleep(rand(0, opts.spreadMs));
      return buyStarsPatiently(u, { attempts: 6, stepMs: opts.stepMs, deadline: started + opts.settleMs });
    });
    const killing = (async () => {
      await sleep(opts.spreadMs / 2);
      killedAt = Date.now();
      await ds.kill9();
      stack.sandbox.clearFaults();
    })();
    const purchases: Purchase[] = await buying;
    await killing;

    const paid = [
      ...held,
      ...purchases
        .map((p, i) => ({ user: users[i]!, orderId: p.orderId }))
        .filter((p): p is { user: (typeof users)[number]; orderId: string } => p.orderId !== undefined),
    ];
    const states = new Map<string, StoredOrder | null>();
    const ids = paid.map((p) => p.orderId);
    const settled = await settle(() => paidOrdersSettled(stack, ids, states), opts.settleMs);

    const notFinal = paid.filter((p) => {
      const o = states.get(p.orderId);
      return !o || !FINAL_STATES.includes(o.state);
    });
    const texts = sentTexts(stack.emulator);
    const finals = paid.map((p) => finalMessages(texts, p.user.id, p.orderId));
    const charges = paid.map((p) => stack.sandbox.stats(p.orderId).charges);
    const delivered = [...states.values()].filter((o) => o?.state === "delivered").length;

    // Take-over: when the survivor's pay went through for the orders the dead process held.
    const resumedMs = await Promise.all(
      held.map(async (h) => {
        const pending = (await orderTimes(stack.client, stack.prefix, h.orderId)).pending;
        return pending === undefined ? Number.POSITIVE_INFINITY : pending - killedAt;
      }),
    );
    // Kill → final message of every order whose final message came after the kill.
    const finalMs = paid
      .map((p) => finalSentAt(stack.emulator, p.user.id, p.orderId))
      .filter((at): at is number => at !== undefined && at > killedAt)
      .map((at) => at - killedAt);
    const heldFinalMs = held.map((h) => {
      const at = finalSentAt(stack.emulator, h.user.id, h.orderId);
      return at === undefined ? Number.POSITIVE_INFINITY : at - killedAt;
    });
    const takeoverMax = Math.max(0, ...heldFinalMs);
    const gaveUp = purchases.filter((p) => !p.orderId).length;
    const byProcess = [first, port].map(
      (p, i) => `${i === 0 ? "killed" : "survivor"} ${balancer.answered.get(p) ?? 0}`,
    );

    return [
      {
        id: "7a",
        check:
          "two processes, one killed mid-batch: every paid order final, one final message and one charge each",
        pass:
          settled &&
          notFinal.length === 0 &&
          finals.every((n) => n === 1) &&
          charges.every((n) => n <= 1) &&
          paid.every((p, i) => states.get(p.orderId)?.state !== "delivered" || charges[i] === 1) &&
          paid.length >= opts.heldOrders + Math.ceil(opts.customers / 2),
        figure:
          `${paid.length - notFinal.length}/${paid.length} paid orders final (${delivered} delivered); ` +
          `${finals.filter((n) => n === 1).length} exactly one final message; ` +
          `charges per order ${Math.min(...charges)}–${Math.max(...charges)}; ` +
          `${opts.customers - gaveUp}/${opts.customers} of the batch paid; requests through the balancer: ${byProcess.join(", ")}`,
      },
      {
        id: "7b",
        check: `two processes: the survivor takes the killed one's paid orders over within ${RESUME_WITHIN_MS / 1000} s`,
        pass: heldFinalMs.length === opts.heldOrders && takeoverMax <= RESUME_WITHIN_MS,
        figure:
          `${held.length} orders whose pay was in flight in the killed process: pay resumed ${secs(percentile(resumedMs, 50))} p50, ` +
          `${secs(Math.max(...resumedMs))} max after the kill; final message ${secs(percentile(heldFinalMs, 50))} p50, ${secs(takeoverMax)} max; ` +
          `all ${finalMs.length} final messages after the kill: ${secs(percentile(finalMs, 50))} p50, ${secs(Math.max(0, ...finalMs))} max`,
      },
    ];
  } finally {
    await second?.kill("SIGTERM");
    await ds.close();
    await balancer.close();
  }
}
