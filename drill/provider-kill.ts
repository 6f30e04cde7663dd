/**
 * Drill 9: kill -9 between a payment and its record, on the rails that are not Telegram's. The bot
 * runs with CHECKOUT=yookassa,cryptopay,wallet against the YooKassa and Crypto Pay emulators, its
 * Redis behind drill/redis-tap.ts so each kill lands at an exact point:
 * - a provider payment made on the emulator (notification sent, or lost so the poll job finds it),
 *   the bot killed as it is about to write the payment onto the order;
 * - the provider's payment page made, the bot killed before it records the page on the order; the
 *   customer taps again later and must get the same payment, not a second one;
 * - the wallet debited, the bot killed before the order is marked paid; the settle job
 *   (`wsettle`) must finish the payment after the restart.
 * Every paid order must end delivered, with one final message, one reseller charge, one provider
 * payment (or one wallet debit) and nothing left paid-but-forgotten.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type CryptoPaySandbox, startCryptoPaySandbox } from "../sandbox/cryptopay/server.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import { startYooKassaSandbox, type YooKassaSandbox } from "../sandbox/yookassa/server.js";
import { PAYMENT_START_WINDOW_MS } from "../src/orders/provider-checkout.js";
import { WALLET_SETTLE_DELAY_MS } from "../src/orders/wallet-checkout.js";
import { WalletLedger } from "../src/wallet/ledger.js";
import {
  CRYPTOPAY_TOKEN,
  type DrillStack,
  explainRepeat,
  FIFTY,
  FINAL_STATES,
  finalMessages,
  jobsByType,
  type LogSink,
  lastMessageId,
  ordersWithStep,
  orderTimes,
  pressNew,
  type Row,
  readOrder,
  SEND_RECORD_WINDOW_MS,
  STARS,
  secs,
  sentTexts,
  settle,
  startDrillStack,
  storedOrder,
  TO_MYSELF,
  waitForButton,
  YOOKASSA_SECRET,
  YOOKASSA_SHOP_ID,
} from "./lib.js";
import { type RedisTap, startRedisTap } from "./redis-tap.js";

export interface ProviderKillOptions {
  /** Kills between a YooKassa payment and its record (every other one with notifications lost). */
  yookassa: number;
  /** The same with Crypto Pay invoices. */
  cryptopay: number;
  /** Kills between making a payment page and recording it (YooKassa and Crypto Pay in turn). */
  pageKills: number;
  /** Kills between a wallet debit and the order's record. */
  wallet: number;
  stepMs: number;
  settleMs: number;
}

type Rail = "yookassa" | "cryptopay" | "wallet";
type Kind = "payment" | "page" | "wallet";

interface Case {
  kind: Kind;
  rail: Rail;
  user: ChatUser;
  orderId: string;
  /** Notifications were lost for this payment (provider kills only). */
  lost?: boolean;
  /** When the restart after its kill was ready (ms since epoch). */
  restartedAt: number;
  /** What Redis held right after the kill. */
  atKill: { state: string; debited?: boolean; pagesRecorded?: number };
  /** The card, for a tap after the restart (page kills). */
  cardId?: number;
  tappedAt?: number;
}

const BUTTON: Record<Rail, RegExp> = {
  yookassa: /^💳 Card or SBP/,
  cryptopay: /^🪙 Crypto/,
  wallet: /^👛 From my wallet/,
};
const LINK: Record<"yookassa" | "cryptopay", RegExp> = {
  yookassa: /by card or SBP on YooKassa/,
  cryptopay: /@CryptoBot/,
};
const WALLET_CREDIT_KOPECKS = 1_000_000;

/** Walks to the order card offering every rail; returns its message id and the order id. */
async function walkToCard(user: ChatUser, stepMs: number): Promise<{ cardId: number; orderId: string }> {
  const mark = lastMessageId(user);
  await user.sendText("/start");
  await pressNew(user, STARS, mark, stepMs);
  await pressNew(user, FIFTY, mark, stepMs);
  await pressNew(user, TO_MYSELF, mark, stepMs);
  const cardId = await waitForButton(user, BUTTON.yookassa, mark, stepMs);
  const card = user.messages().find((m) => m.messageId === cardId);
  const rows = (card?.replyMarkup as { inline_keyboard?: { callback_data?: string }[][] } | undefined)
    ?.inline_keyboard;
  const data = (rows ?? []).flat().find((b) => b.callback_data?.startsWith("pr:"))?.callback_data ?? "";
  const orderId = data.split(":").slice(2).join(":");
  if (!orderId) throw new Error("the order card has no rail button");
  return { cardId, orderId };
}

function yookassaPayments(yk: YooKassaSandbox, orderId: string) {
  return yk.payments().filter((p) => p.metadata.order_id === orderId);
}

function cryptoInvoices(cp: CryptoPaySandbox, orderId: string) {
  return cp.invoices().filter((i) => i.payload?.includes(orderId));
}

async function waitSeen(seen: Promise<void>, ms: number, what: string): Promise<void> {
  const timer = sleep(ms).then(() => {
    throw new Error(`the tap never saw ${what} within ${ms / 1000} s`);
  });
  await Promise.race([seen, timer]);
}

export async function providerKillDrill(opts: ProviderKillOptions, sink: LogSink): Promise<Row[]> {
  const yk = await startYooKassaSandbox({
    shopId: YOOKASSA_SHOP_ID,
    secretKey: YOOKASSA_SECRET,
    notificationRetryDelayMs: 300,
  });
  const cp = await startCryptoPaySandbox({ token: CRYPTOPAY_TOKEN, webhookRetryDelayMs: 300 });
  let ds: DrillStack | undefined;
  let tap: RedisTap | undefined;
  try {
    ds = await startDrillStack(
      {
        webhooks: true,
        pollIntervalSeconds: 1,
        deliveryDelayMs: 300,
        extraEnv: {
          CHECKOUT: "yookassa,cryptopay,wallet",
          YOOKASSA_SHOP_ID,
          YOOKASSA_SECRET_KEY: YOOKASSA_SECRET,
          YOOKASSA_API_URL: yk.apiUrl,
          CRYPTOPAY_TOKEN,
          CRYPTOPAY_API_URL: cp.apiUrl,
        },
      },
      sink,
    );
    const d = ds;
    const { stack } = d;
    const started = Date.now();
    const killedAt: number[] = [];
    const kill9 = async () => {
      killedAt.push(Date.now());
      await d.kill9();
    };
    yk.setNotificationUrl(`http://127.0.0.1:${stack.httpPort}/webhooks/yookassa`);
    cp.setWebhookUrl(`http://127.0.0.1:${stack.httpPort}/webhooks/cryptopay`);
    // From here the bot reaches Redis through the tap: one restart to put it there.
    const target = new URL(stack.redis.url);
    const t = await startRedisTap({ host: target.hostname, port: Number(target.port) });
    tap = t;
    stack.env.REDIS_URL = t.url;
    await kill9();
    await d.restart();
    const ledger = new WalletLedger(stack.client, stack.prefix);

    const cases: Case[] = [];

    // Page kills first: their customers tap again once the first tap's window has passed.
    for (let i = 0; i < opts.pageKills; i++) {
      const rail = i % 2 === 0 ? "yookassa" : "cryptopay";
      const user = d.customer();
      const { cardId, orderId } = await walkToCard(user, opts.stepMs);
      const made = () =>
        rail === "yookassa" ? yookassaPayments(yk, orderId).length : cryptoInvoices(cp, orderId).length;
      let watching = true;
      const watcher = (async () => {
        // Checked after every turn of this process's event loop, where the emulator makes the
        // payment: the freeze comes before the bot can have read the emulator's answer.
        while (watching && made() === 0) await new Promise((resolve) => setImmediate(resolve));
        if (watching) t.freeze();
      })();
      const tappedAt = Date.now();
      user.pressButton(BUTTON[rail], { messageId: cardId, timeoutMs: 5_000 }).catch(() => undefined);
      const ok = await settle(() => made() > 0, 10_000, 20);
      watching = false;
      await watcher;
      if (!ok) throw new Error(`no ${rail} payment page was made for ${orderId.slice(0, 8)}`);
      await sleep(100);
      await kill9();
      const order = await storedOrder(stack.client, stack.prefix, orderId);
      const pagesRecorded = (order?.payments ?? []).length;
      const state = (await readOrder(stack.client, stack.prefix, orderId))?.state ?? "missing";
      t.reset();
      await d.restart();
      cases.push({
        kind: "page",
        rail,
        user,
        orderId,
        cardId,
        tappedAt,
        restartedAt: Date.now(),
        atKill: { state, pagesRecorded },
      });
    }

    // A provider payment made, the bot killed as it is about to record it.
    const providerRails: ("yookassa" | "cryptopay")[] = [
      ...Array.from({ length: opts.yookassa }, () => "yookassa" as const),
      ...Array.from({ length: opts.cryptopay }, () => "cryptopay" as const),
    ];
    for (const [i, rail] of providerRails.entries()) {
      const lost = i % 2 === 1;
      const user = d.customer();
      const { cardId, orderId } = await walkToCard(user, opts.stepMs);
      await user.pressButton(BUTTON[rail], { messageId: cardId, timeoutMs: opts.stepMs });
      await user.waitForBotMessage(LINK[rail], opts.stepMs);
      const paymentId =
        rail === "yookassa"
          ? yookassaPayments(yk, orderId)[0]?.id
          : String(cryptoInvoices(cp, orderId)[0]?.invoice_id ?? "");
      if (!paymentId) throw new Error(`no ${rail} payment for ${orderId.slice(0, 8)}`);
      // The record of a provider payment is the first write naming it as `<rail>:<id>` (its charge id).
      const seen = t.arm({ marker: `${rail}:${paymentId}`, forwardMarked: false });
      if (rail === "yookassa") {
        yk.setNotifications(lost ? "drop" : "send");
        yk.succeedPayment(paymentId);
      } else {
        cp.setWebhookMode(lost ? "drop" : "send");
        await cp.pay(Number(paymentId));
      }
      // Lost notifications: the poll job's first read comes 10 s after the page was made.
      await waitSeen(seen, 30_000, `the record of ${rail} payment ${paymentId}`);
      await kill9();
      const state = (await readOrder(stack.client, stack.prefix, orderId))?.state ?? "missing";
      t.reset();
      yk.setNotifications("send");
      cp.setWebhookMode("send");
      await d.restart();
      cases.push({ kind: "payment", rail, user, orderId, lost, restartedAt: Date.now(), atKill: { state } });
    }

    // The wallet debited, the bot killed before the order is marked paid.
    for (let i = 0; i < opts.wallet; i++) {
      const user = d.customer();
      await ledger.credit(user.id, {
        amountKopecks: WALLET_CREDIT_KOPECKS,
        reason: "topup",
        ref: `topup:drill-${user.id}`,
        paymentRef: `drill-${user.id}`,
      });
      const { cardId, orderId } = await walkToCard(user, opts.stepMs);
      const seen = t.arm({ marker: `"ref":"order:${orderId}"`, forwardMarked: true });
      user.pressButton(BUTTON.wallet, { messageId: cardId, timeoutMs: 5_000 }).catch(() => undefined);
      await waitSeen(seen, opts.stepMs, `the wallet debit of ${orderId.slice(0, 8)}`);
      await sleep(100);
      await kill9();
      const debited = (await ledger.entryByRef(user.id, `order:${orderId}`)) !== null;
      const state = (await readOrder(stack.client, stack.prefix, orderId))?.state ?? "missing";
      t.reset();
      await d.restart();
      cases.push({
        kind: "wallet",
        rail: "wallet",
        user,
        orderId,
        restartedAt: Date.now(),
        atKill: { state, debited },
      });
    }

    // The page kills' customers tap again once the first tap's window is over, and pay.
    for (const c of cases.filter((x) => x.kind === "page")) {
      const rail = c.rail as "yookassa" | "cryptopay";
      const wait = (c.tappedAt ?? 0) + PAYMENT_START_WINDOW_MS + 1_000 - Date.now();
      if (wait > 0) await sleep(wait);
      const linked = await settle(
        async () => {
          await c.user.pressButton(BUTTON[rail], { messageId: c.cardId, timeoutMs: opts.stepMs });
          return c.user
            .messages()
            .some((m) => m.from === "bot" && m.text !== undefined && LINK[rail].test(m.text));
        },
        opts.stepMs * 2,
        1_000,
      );
      if (!linked) throw new Error(`no payment link after tapping again on ${c.orderId.slice(0, 8)}`);
      if (rail === "yookassa") {
        const p = yookassaPayments(yk, c.orderId)[0];
        if (p) yk.succeedPayment(p.id);
      } else {
        const inv = cryptoInvoices(cp, c.orderId)[0];
        if (inv) await cp.pay(inv.invoice_id);
      }
    }

    // Settle: every order final, no work left.
    const settleStart = Date.now();
    const settled = await settle(async () => {
      for (const c of cases) {
        const o = await readOrder(stack.client, stack.prefix, c.orderId);
        if (!o || !FINAL_STATES.includes(o.state)) return false;
      }
      const jobs = await jobsByType(stack.client, stack.prefix);
      return (
        ["submit", "track", "final", "refund", "card", "wsettle"].every((x) => !jobs.get(x)) &&
        (await ordersWithStep(
          stack.client,
          stack.prefix,
          cases.map((c) => c.orderId),
        )) === 0
      );
    }, opts.settleMs + WALLET_SETTLE_DELAY_MS);
    const settleMs = Date.now() - settleStart;

    const texts = sentTexts(stack.emulator);
    const results = await Promise.all(
      cases.map(async (c) => {
        const o = await readOrder(stack.client, stack.prefix, c.orderId);
        const paidAt = (await orderTimes(stack.client, stack.prefix, c.orderId)).paid;
        const providerPayments =
          c.rail === "yookassa"
            ? yookassaPayments(yk, c.orderId).length
            : c.rail === "cryptopay"
              ? cryptoInvoices(cp, c.orderId).length
              : 0;
        const { entries, problems } = await ledger.audit(c.user.id);
        const debits = entries.filter((e) => e.reason === "order" && e.orderId === c.orderId).length;
        const finals = finalMessages(texts, c.user.id, c.orderId);
        return {
          c,
          state: o?.state ?? "missing",
          finals,
          // Sent again: only when a kill fell between Telegram's answer and the bot's record of it.
          repeat:
            finals > 1 ? explainRepeat(stack.emulator, c.user.id, c.orderId, killedAt, started) : undefined,
          charges: stack.sandbox.stats(c.orderId).charges,
          providerPayments,
          debits,
          ledgerProblems: problems.length,
          recordedMs: paidAt === undefined ? Number.POSITIVE_INFINITY : paidAt - c.restartedAt,
        };
      }),
    );
    const good = (r: (typeof results)[number]) =>
      r.state === "delivered" &&
      (r.finals === 1 || (r.finals === 2 && r.repeat?.inFlight === true)) &&
      r.charges === 1 &&
      (r.c.rail === "wallet" ? r.debits === 1 && r.ledgerProblems === 0 : r.providerPayments === 1);
    const summary = (rs: typeof results) => {
      const ok = rs.filter(good).length;
      const states = new Map<string, number>();
      for (const r of rs) states.set(r.state, (states.get(r.state) ?? 0) + 1);
      const bad = rs
        .filter((r) => !good(r))
        .slice(0, 3)
        .map(
          (r) =>
            `${r.c.orderId.slice(0, 8)} ${r.state}, ${r.finals} final, ${r.charges} charges, ` +
            (r.c.rail === "wallet" ? `${r.debits} debits` : `${r.providerPayments} ${r.c.rail} payments`),
        );
      const repeats = rs.filter((r) => good(r) && r.finals > 1).map((r) => r.repeat?.text);
      const again = repeats.length
        ? ` (${repeats.length} sent again, the kill ≤ ${SEND_RECORD_WINDOW_MS} ms after Telegram took the first: ${repeats.join("; ")})`
        : "";
      return { ok, states: [...states].map(([k, n]) => `${k} ${n}`).join(", "), bad, again };
    };
    const maxSecs = (rs: typeof results) => secs(Math.max(0, ...rs.map((r) => r.recordedMs)));

    const payments = results.filter((r) => r.c.kind === "payment");
    const pages = results.filter((r) => r.c.kind === "page");
    const wallets = results.filter((r) => r.c.kind === "wallet");
    const p = summary(payments);
    const g = summary(pages);
    const w = summary(wallets);
    const unrecordedAtKill = payments.filter((r) => r.c.atKill.state === "quoted").length;
    const pageGaps = pages.filter((r) => r.c.atKill.pagesRecorded === 0).length;
    const walletWindow = wallets.filter((r) => r.c.atKill.debited && r.c.atKill.state === "quoted").length;
    const lostNotes = payments.filter((r) => r.c.lost).length;
    const settledText = `settled ${settled ? "in" : "NOT within"} ${secs(settleMs)}`;
    return [
      {
        id: "9a",
        check:
          "kill -9 between a YooKassa or Crypto Pay payment and its record: every paid order delivered once, one provider payment, one charge (its final message sent again only when a kill fell between Telegram's answer and the bot's record of it)",
        pass:
          settled &&
          payments.length === providerRails.length &&
          p.ok === payments.length &&
          unrecordedAtKill === payments.length,
        figure:
          `${p.ok}/${payments.length} delivered with one final message, one charge and one provider payment (${p.states})${p.again}; ` +
          `${unrecordedAtKill}/${payments.length} kills with the payment made and the order still quoted ` +
          `(${opts.yookassa} YooKassa, ${opts.cryptopay} Crypto Pay; ${lostNotes} with notifications lost); ` +
          `recorded after the restart ≤ ${maxSecs(payments.filter((r) => !r.c.lost))} with notifications sent, ` +
          `≤ ${maxSecs(payments.filter((r) => r.c.lost))} with them lost (the poll job re-reads every quarter of the payment's age, ≥ 3 s); ${settledText}` +
          (p.bad.length ? `; wrong: ${p.bad.join("; ")}` : ""),
      },
      {
        id: "9b",
        check:
          "kill -9 between making a provider's payment page and recording it: a later tap reuses the payment, paid and delivered once",
        pass:
          settled && pages.length === opts.pageKills && g.ok === pages.length && pageGaps === pages.length,
        figure:
          `${g.ok}/${pages.length} delivered with one provider payment each (${g.states})${g.again}; ` +
          `${pageGaps}/${pages.length} kills with the page made and not recorded on the order; ` +
          `tapped again ${PAYMENT_START_WINDOW_MS / 1000 + 1} s after the first tap` +
          (g.bad.length ? `; wrong: ${g.bad.join("; ")}` : ""),
      },
      {
        id: "9c",
        check:
          "kill -9 between the wallet debit and the order's record: the settle job records it, delivered once, debited once",
        pass:
          settled &&
          wallets.length === opts.wallet &&
          w.ok === wallets.length &&
          walletWindow === wallets.length,
        figure:
          `${w.ok}/${wallets.length} delivered, one debit each, ledgers audit clean (${w.states})${w.again}; ` +
          `${walletWindow}/${wallets.length} kills with the debit written and the order still quoted; ` +
          `recorded ≤ ${maxSecs(wallets)} after the restart (settle job due ${WALLET_SETTLE_DELAY_MS / 1000} s after the tap)` +
          (w.bad.length ? `; wrong: ${w.bad.join("; ")}` : ""),
      },
    ];
  } finally {
    await ds?.close();
    await tap?.close();
    await yk.close();
    await cp.close();
  }
}
