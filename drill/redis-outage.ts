/**
 * Drill 2: Redis (append-only, fsync always) is killed mid-run and started again with its data.
 * While it is down customers who write must get a clear "try again" answer; the bot must recover
 * without a restart, and orders paid before the outage must all complete. /readyz answers 503 within
 * 100 ms while Redis is down, and while it is frozen (SIGSTOP: connected, answering nothing).
 */
import { mapLimit, sleep } from "../bench/lib.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import {
  buyStarsPatiently,
  finalMessages,
  type LogSink,
  lastMessageId,
  type Row,
  readOrder,
  secs,
  sentTexts,
  settle,
  startDrillStack,
  walkToInvoice,
} from "./lib.js";

export interface RedisOutageOptions {
  /** Customers whose orders are paid (and pending) when Redis goes away. */
  customers: number;
  outageMs: number;
}

/** What a customer's answer must say while Redis is down. */
const TRY_AGAIN = /try again/i;

interface Probe {
  sentAt: number;
  text?: string;
  ms?: number;
}

/** GET /readyz every `everyMs` for `forMs`: each answer's status and time. */
async function sampleReadyz(
  port: number,
  forMs: number,
  everyMs = 200,
): Promise<{ status: number; ms: number }[]> {
  const out: { status: number; ms: number }[] = [];
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    const at = performance.now();
    const status = await fetch(`http://127.0.0.1:${port}/readyz`, {
      signal: AbortSignal.timeout(10_000),
    }).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
    out.push({ status, ms: performance.now() - at });
    await sleep(everyMs);
  }
  return out;
}

function readyzRow(id: string, what: string, samples: { status: number; ms: number }[]): Row {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const max = sorted[sorted.length - 1] ?? 0;
  const refused = samples.filter((s) => s.status === 503).length;
  return {
    id,
    check: `/readyz with Redis ${what}: 503 within 100 ms`,
    pass: samples.length > 0 && refused === samples.length && max < 100,
    figure: `${refused}/${samples.length} answered 503; p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
  };
}

/** Sends `input` and waits for the bot's next new message (up to `timeoutMs`). */
async function probe(user: ChatUser, input: string, timeoutMs: number): Promise<Probe> {
  const mark = lastMessageId(user);
  const sentAt = Date.now();
  await user.sendText(input);
  try {
    const msgs = await user.waitFor(
      (all) => all.some((m) => m.from === "bot" && m.messageId > mark && m.text !== undefined),
      timeoutMs,
    );
    const answer = msgs.find((m) => m.from === "bot" && m.messageId > mark && m.text !== undefined);
    return { sentAt, text: answer?.text ?? "", ms: Date.now() - sentAt };
  } catch {
    return { sentAt };
  }
}

export async function redisOutageDrill(opts: RedisOutageOptions, sink: LogSink): Promise<Row[]> {
  const ds = await startDrillStack({ webhooks: true, appendonly: true, pollIntervalSeconds: 1 }, sink);
  try {
    const { stack } = ds;
    // Orders paid before the outage stay pending (delivery paused) until Redis is back.
    stack.sandbox.pauseDelivery(true);
    const users = Array.from({ length: opts.customers }, () => ds.customer());
    const purchases = await mapLimit(users, users.length, (u) =>
      buyStarsPatiently(u, { attempts: 3, stepMs: 15_000, deadline: Date.now() + 90_000 }),
    );
    const paid = purchases
      .map((p, i) => ({ user: users[i]!, orderId: p.orderId }))
      .filter((p): p is { user: ChatUser; orderId: string } => p.orderId !== undefined);
    await settle(async () => {
      for (const p of paid) {
        if ((await readOrder(stack.client, stack.prefix, p.orderId))?.state !== "pending") return false;
      }
      return true;
    }, 30_000);

    // A customer in the middle of a flow when Redis goes: their next answer must be answered too.
    const midFlow = ds.customer();
    const midMark = lastMessageId(midFlow);
    await midFlow.sendText("/start");
    await midFlow.waitFor((m) => m.some((x) => x.from === "bot" && x.messageId > midMark), 15_000);

    // ---- the outage ----
    await stack.redis.kill();
    const downAt = Date.now();
    // The first answers come while the client notices the connection is gone.
    const readyzDown = sleep(300).then(() =>
      sampleReadyz(stack.httpPort, Math.min(3_000, opts.outageMs - 500)),
    );
    const probes: Promise<Probe>[] = [];
    const returning = paid[0]?.user ?? ds.customer();
    const inputs: [ChatUser, string][] = [
      [ds.customer(), "/start"],
      [returning, "/orders"],
      [midFlow, "hello"],
      [ds.customer(), "hi there"],
    ];
    for (let i = 0; Date.now() - downAt < Math.max(500, opts.outageMs - 1_500); i++) {
      const [user, text] = inputs[i % inputs.length]!;
      probes.push(probe(user, text, 20_000));
      await sleep(Math.min(1_500, opts.outageMs / 3));
    }
    await sleep(Math.max(0, opts.outageMs - (Date.now() - downAt)));
    // Redis may answer before restart() returns (it waits for the server to be ready): an answer
    // from that moment on may be a real one.
    const restartingAt = Date.now();
    await stack.redis.restart();
    const upAt = Date.now();
    const answers = await Promise.all(probes);
    const readyzWhileDown = await readyzDown;

    // ---- recovery, by itself ----
    stack.sandbox.pauseDelivery(false);
    const fresh = ds.customer();
    let firstMenuMs: number | undefined;
    let recovered: string | undefined;
    try {
      await walkToInvoice(fresh, 20_000);
      firstMenuMs = Date.now() - upAt;
      const bought = await buyStarsPatiently(fresh, {
        attempts: 2,
        stepMs: 15_000,
        deadline: Date.now() + 60_000,
      });
      if (bought.orderId) {
        await fresh.waitForBotMessage(/Order #\S+ delivered/, 30_000);
        recovered = bought.orderId;
      }
    } catch {
      // reported below
    }
    const recoveredMs = Date.now() - upAt;

    // ---- no order lost ----
    const done = await settle(async () => {
      const texts = sentTexts(stack.emulator);
      for (const p of paid) {
        if ((await readOrder(stack.client, stack.prefix, p.orderId))?.state !== "delivered") return false;
        if (finalMessages(texts, p.user.id, p.orderId) < 1) return false;
      }
      return true;
    }, 60_000);
    await sleep(1_000);
    const texts = sentTexts(stack.emulator);
    let delivered = 0;
    let exactlyOne = 0;
    for (const p of paid) {
      if ((await readOrder(stack.client, stack.prefix, p.orderId))?.state === "delivered") delivered += 1;
      if (finalMessages(texts, p.user.id, p.orderId) === 1) exactlyOne += 1;
    }

    // A Redis that hangs: connected, answering nothing.
    stack.redis.pause();
    const readyzWhileFrozen = await sampleReadyz(stack.httpPort, 1_500).finally(() => stack.redis.resume());

    const clear = answers.filter((a) => a.text !== undefined && TRY_AGAIN.test(a.text));
    const silent = answers.filter((a) => a.text === undefined);
    // An input the bot could only read once Redis was back may get its real answer: that is fine.
    const servedAfter = answers.filter(
      (a) => a.text !== undefined && !TRY_AGAIN.test(a.text) && a.sentAt + (a.ms ?? 0) >= restartingAt,
    );
    const other = answers.filter(
      (a) => a.text !== undefined && !TRY_AGAIN.test(a.text) && a.sentAt + (a.ms ?? 0) < restartingAt,
    );
    const sample = clear[0]?.text ?? other[0]?.text ?? "";
    const slowest = Math.max(0, ...answers.map((a) => a.ms ?? 0));
    return [
      {
        id: "2a",
        check: `Redis down ${secs(opts.outageMs)}: customers who write get a clear "try again" answer`,
        pass: clear.length > 0 && silent.length === 0 && other.length === 0,
        figure:
          `${clear.length}/${answers.length} inputs answered "${sample.replace(/\s+/g, " ").slice(0, 90)}" ` +
          `(slowest ${secs(slowest)}); ${servedAfter.length} answered normally once Redis was back; ` +
          `${silent.length} silent; ${other.length} other answers` +
          (other.length ? ` e.g. "${other[0]?.text?.replace(/\s+/g, " ").slice(0, 60)}"` : ""),
      },
      {
        id: "2b",
        check: "Redis back: the bot recovers by itself (no restart)",
        pass: recovered !== undefined,
        figure: recovered
          ? `a new customer had the invoice ${secs(firstMenuMs ?? 0)} and the delivered message ${secs(recoveredMs)} after Redis was back`
          : `a new customer could not buy within ${secs(recoveredMs)} after Redis was back`,
      },
      {
        id: "2c",
        check: "Redis outage: no order lost (orders paid before it all complete)",
        pass:
          done && paid.length === opts.customers && delivered === paid.length && exactlyOne === paid.length,
        figure: `${delivered}/${paid.length} delivered, ${exactlyOne} with exactly one final message; ${paid.length}/${opts.customers} had paid before the outage`,
      },
      readyzRow("2d", "down", readyzWhileDown),
      readyzRow("2e", "frozen (SIGSTOP)", readyzWhileFrozen),
    ];
  } finally {
    await ds.close();
  }
}
