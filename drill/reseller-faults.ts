/**
 * Drill 3: for a stretch the reseller answers 500s, then hangs, then resets connections. A
 * customer asking for a quote meanwhile must get a graceful answer (not silence); orders paid
 * meanwhile must be retried until the reseller accepts them and then delivered; nothing may be
 * charged twice.
 */
import { mapLimit, sleep } from "../bench/lib.js";
import type { FaultMode } from "../sandbox/reseller/server.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import {
  FIFTY,
  finalMessages,
  type LogSink,
  lastMessageId,
  pressNew,
  type Row,
  readOrder,
  STARS,
  secs,
  sentTexts,
  settle,
  startDrillStack,
  TO_MYSELF,
  waitForButton,
  walkToInvoice,
} from "./lib.js";

export interface ResellerFaultOptions {
  /** Customers who pay during each fault mode. */
  payersPerMode: number;
  /** How long each mode lasts at most; a mode ends earlier once its quote probe was answered and `minMs` passed. */
  stretchMs: Record<"500" | "hang" | "reset", { minMs: number; maxMs: number }>;
  settleMs: number;
}

const MODES = ["500", "hang", "reset"] as const satisfies readonly FaultMode[];

/** What a customer may be told when there is no price: the supplier is not answering, or the shop cannot take it now. */
const GRACEFUL =
  /supplier is not answering|supplier is still not answering|could not get a price|cannot take this order/;
const PRICE_CARD = /Order #[0-9a-f]{8}[\s\S]*Price/;

interface QuoteProbe {
  outcome: "graceful" | "price" | "other" | "silence";
  ms: number;
  text?: string;
}

/** Walks to the recipient question, taps "To myself" (the tap that asks for a quote) and waits for what the customer sees. */
async function askForQuote(user: ChatUser, timeoutMs: number): Promise<() => Promise<QuoteProbe>> {
  const mark = lastMessageId(user);
  await user.sendText("/start");
  await pressNew(user, STARS, mark, 15_000);
  await pressNew(user, FIFTY, mark, 15_000);
  const messageId = await waitForButton(user, TO_MYSELF, mark, 15_000);
  const message = user.messages().find((m) => m.messageId === messageId);
  const kb = (message?.replyMarkup as { inline_keyboard?: { text: string; callback_data?: string }[][] })
    ?.inline_keyboard;
  const data = kb?.flat().find((b) => TO_MYSELF.test(b.text))?.callback_data;
  if (!data) throw new Error("no To myself button");
  return async () => {
    const t = Date.now();
    // Not pressButton: that gives up after 10 s without a callback answer, and a quote may take longer.
    await user.pressCallbackData(data, messageId);
    let seen: { outcome: QuoteProbe["outcome"]; text: string } | undefined;
    try {
      await user.waitFor((msgs) => {
        for (const m of msgs.filter((x) => x.from === "bot" && x.messageId >= messageId).reverse()) {
          const text = m.text ?? "";
          if (GRACEFUL.test(text)) seen = { outcome: "graceful", text };
          else if (PRICE_CARD.test(text)) seen = { outcome: "price", text };
          else if (m.messageId > messageId || /went wrong/.test(text)) seen = { outcome: "other", text };
          if (seen) return true;
        }
        return false;
      }, timeoutMs);
    } catch {
      return { outcome: "silence", ms: Date.now() - t };
    }
    return { outcome: seen!.outcome, ms: Date.now() - t, text: seen!.text };
  };
}

export async function resellerFaultDrill(opts: ResellerFaultOptions, sink: LogSink): Promise<Row[]> {
  const ds = await startDrillStack({ webhooks: true, pollIntervalSeconds: 1 }, sink);
  try {
    const { stack } = ds;
    // Every payer holds an invoice (a quote) from before the faults.
    const payers = Array.from({ length: opts.payersPerMode * MODES.length }, () => ds.customer());
    const invoices = await mapLimit(payers, payers.length, (u) => walkToInvoice(u, 20_000));
    const paid: { user: ChatUser; orderId: string; mode: string }[] = [];
    const probes = new Map<string, QuoteProbe>();

    for (const [m, mode] of MODES.entries()) {
      const prober = ds.customer();
      const ask = await askForQuote(prober, 120_000);
      stack.sandbox.fail("*", mode, Number.POSITIVE_INFINITY);
      const start = Date.now();
      const group = payers.slice(m * opts.payersPerMode, (m + 1) * opts.payersPerMode);
      const paying = mapLimit(group, group.length, async (u) => {
        const i = payers.indexOf(u);
        const r = await u.payInvoice({ messageId: invoices[i]! });
        const payload = u.messages().find((x) => x.messageId === invoices[i])?.invoice?.payload;
        if (r.ok && payload) paid.push({ user: u, orderId: payload, mode });
      });
      const probing = ask().then((p) => {
        probes.set(mode, p);
      });
      const { minMs, maxMs } = opts.stretchMs[mode];
      await settle(() => probes.has(mode) && Date.now() - start >= minMs, maxMs, 100);
      await paying;
      stack.sandbox.clearFaults();
      await probing;
    }

    // Retried until accepted, then delivered, one final message each.
    const settleStart = Date.now();
    const done = await settle(async () => {
      const texts = sentTexts(stack.emulator);
      for (const p of paid) {
        if ((await readOrder(stack.client, stack.prefix, p.orderId))?.state !== "delivered") return false;
        if (finalMessages(texts, p.user.id, p.orderId) < 1) return false;
      }
      return true;
    }, opts.settleMs);
    const settleMs = Date.now() - settleStart;
    await sleep(1_000);
    const texts = sentTexts(stack.emulator);
    let delivered = 0;
    let exactlyOne = 0;
    const states = new Map<string, number>();
    for (const p of paid) {
      const state = (await readOrder(stack.client, stack.prefix, p.orderId))?.state ?? "missing";
      states.set(state, (states.get(state) ?? 0) + 1);
      if (state === "delivered") delivered += 1;
      if (finalMessages(texts, p.user.id, p.orderId) === 1) exactlyOne += 1;
    }
    const requests = stack.sandbox.requests();
    const payCalls = requests.filter((r) => r.method === "POST" && r.path === "/api/reseller/order/pay");
    const sandboxOrders = stack.sandbox.orders();
    const overcharged = sandboxOrders.filter((o) => stack.sandbox.stats(o.customId).charges > 1);
    const maxCharges = Math.max(0, ...sandboxOrders.map((o) => stack.sandbox.stats(o.customId).charges));

    const probeList = MODES.map((mode) => [mode, probes.get(mode)] as const);
    return [
      {
        id: "3a",
        check: "reseller 500s / hangs / resets: a customer asking for a quote gets a graceful answer",
        pass: probeList.every(([, p]) => p?.outcome === "graceful" || p?.outcome === "price"),
        figure: probeList
          .map(([mode, p]) =>
            p
              ? `${mode}: ${p.outcome === "graceful" ? `"${p.text?.replace(/\s+/g, " ").slice(0, 45)}…"` : p.outcome} in ${secs(p.ms)}`
              : `${mode}: not run`,
          )
          .join("; "),
      },
      {
        id: "3b",
        check: "reseller faults: paid orders are retried until accepted, then delivered",
        pass:
          done && paid.length === payers.length && delivered === paid.length && exactlyOne === paid.length,
        figure:
          `${delivered}/${paid.length} delivered (${[...states.entries()].map(([k, n]) => `${k} ${n}`).join(", ")}), ` +
          `${exactlyOne} with exactly one final message, ${secs(settleMs)} after the faults ended; ` +
          `${payCalls.length} pay calls (${payCalls.filter((r) => r.status !== 200).length} failed); ` +
          `${paid.length}/${payers.length} payments accepted`,
      },
      {
        id: "3c",
        check: "reseller faults: nothing is charged twice",
        pass: overcharged.length === 0,
        figure: `max ${maxCharges} charge per custom_id over ${sandboxOrders.length} reseller orders`,
      },
    ];
  } finally {
    await ds.close();
  }
}
