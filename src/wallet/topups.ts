import { randomUUID } from "node:crypto";
import type { Config, Locale } from "../config.js";
import type { Logger } from "../logger.js";
import { backoff, type Retry } from "../orders/job-retry.js";
import { encodeJob } from "../orders/jobs.js";
import { starsForPrice } from "../orders/pricing.js";
import type { ProviderRail } from "../orders/types.js";
import type { OutgoingMessage } from "../outgoing/messages.js";
import type { PaymentGateways, PaymentStatus } from "../payments/gateway.js";
import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import type { WalletLedger } from "./ledger.js";
import {
  TOP_UP_OFFER_MS,
  TOP_UP_POLL_FIRST_MS,
  TOP_UP_POLL_FOR_MS,
  TOP_UP_START_WINDOW_MS,
  TOP_UP_TAP_WINDOW_MS,
  TOP_UP_TTL_S,
  type TopUp,
  type TopUpCheck,
  type TopUpPayment,
  type TopUpRail,
  type TopUpStart,
  topUpIdOfPayload,
  withPayment,
} from "./topup.js";

/**
 * Wallet top-ups: a customer's tap on `tu:<rail>:<kopecks>` opens a top-up (one per customer,
 * rail and amount within {@link TOP_UP_TAP_WINDOW_MS}, so a double tap opens one), paid by a
 * Telegram invoice (payload `topup:<id>`) or on a provider's page (subject {kind: "topup"}).
 * Every real payment is credited once with ref `topup:<rail>:<payment id>` and the top-up's
 * rouble amount (a second payment of one top-up is credited too: the money arrived). Provider
 * payments are re-read (notification or the `tpoll` job) before they count, and the customer is
 * told through the outgoing queue (message `topup:<chat>:<id>`).
 *
 * Redis (prefix P, the orders' one: in cluster mode it carries their hash tag):
 *   P topup:<id>                              the record (JSON), kept {@link TOP_UP_TTL_S}
 *   P topup-tap:<userId>:<rail>:<kopecks>     the open top-up of a tap, for the double tap
 */

/** What the engine lends the top-ups: its job schedule, outgoing queue and notifier. */
export interface TopUpsDeps {
  redis: RedisClient;
  prefix: string;
  wallet: WalletLedger;
  gateways: PaymentGateways;
  config: Pick<Config, "checkout" | "starPriceRub">;
  log: Logger;
  now: () => number;
  schedule(member: string, dueAt: number): Promise<void>;
  enqueue(message: OutgoingMessage): Promise<void>;
  /** Wakes the worker and the dispatcher. */
  kick(): void;
  /** Tells the customer of a credit (the bot's notifier). */
  announce?(topup: TopUp, balanceKopecks: number): Promise<void>;
}

export class TopUps {
  private readonly scripts: ReturnType<typeof defineScripts<"casTopUp-1">>;

  constructor(private readonly deps: TopUpsDeps) {
    this.scripts = defineScripts(deps.redis, new URL("./lua/", import.meta.url), ["casTopUp-1"]);
  }

  key(id: string): string {
    return `${this.deps.prefix}topup:${id}`;
  }

  async get(id: string): Promise<TopUp | null> {
    const raw = await this.deps.redis.get(this.key(id));
    return raw === null ? null : (JSON.parse(raw) as TopUp);
  }

  /** The top-up of a tap: the open one of the same customer, rail and amount, or a new one. */
  async open(input: {
    userId: number;
    chatId: number;
    locale: Locale;
    rail: TopUpRail;
    amountKopecks: number;
  }): Promise<TopUp> {
    const { redis, prefix, now } = this.deps;
    const tapKey = `${prefix}topup-tap:${input.userId}:${input.rail}:${input.amountKopecks}`;
    await redis.set(tapKey, randomUUID(), "PX", TOP_UP_TAP_WINDOW_MS, "NX");
    const id = (await redis.get(tapKey)) ?? randomUUID();
    const fresh: TopUp = { id, ...input, state: "open", payments: [], createdAt: now() };
    await this.cas(id, "", fresh);
    const topup = await this.get(id);
    if (!topup) throw new Error(`top-up ${id} vanished as it was made`);
    return topup;
  }

  /** What a Telegram invoice for the top-up asks: Stars (ceil(roubles ÷ STAR_PRICE_RUB)) or kopecks. */
  priceOf(topup: TopUp): { currency: "XTR" | "RUB"; amount: number } {
    return topup.rail === "stars"
      ? { currency: "XTR", amount: starsForPrice(topup.amountKopecks, this.deps.config.starPriceRub) }
      : { currency: "RUB", amount: topup.amountKopecks };
  }

  /**
   * Claims the right to send the top-up's invoice or make its page: false while another tap
   * claimed it less than {@link TOP_UP_START_WINDOW_MS} ago.
   */
  async claimStart(id: string): Promise<boolean> {
    const now = this.deps.now();
    const r = await this.change(id, (t) =>
      t.paymentStart !== undefined && now - t.paymentStart < TOP_UP_START_WINDOW_MS
        ? null
        : { ...t, paymentStart: now },
    );
    return r.changed;
  }

  /** pre_checkout_query of a `topup:` invoice: only its own customer, currency and amount. */
  async checkPayable(
    payload: string,
    expect: { userId: number; currency: string; totalAmount: number },
  ): Promise<TopUpCheck> {
    const id = topUpIdOfPayload(payload);
    const topup = id ? await this.get(id) : null;
    if (!topup || (topup.rail !== "stars" && topup.rail !== "invoice"))
      return { ok: false, reason: "not_found" };
    if (topup.userId !== expect.userId) return { ok: false, reason: "wrong_user", topup };
    const price = this.priceOf(topup);
    if (price.currency !== expect.currency || price.amount !== expect.totalAmount) {
      return { ok: false, reason: "wrong_amount", topup };
    }
    return { ok: true, topup };
  }

  /**
   * A Telegram payment of a top-up (successful_payment): credited once per charge id; the
   * caller answers the customer (so it is marked told). Null for a payload naming no top-up.
   */
  async creditTelegram(
    payload: string,
    receipt: { userId: number; currency: string; chargeId: string },
  ): Promise<{ topup: TopUp; applied: boolean; balanceKopecks: number } | null> {
    const id = topUpIdOfPayload(payload);
    const topup = id ? await this.get(id) : null;
    if (!topup) {
      this.deps.log.error({ payload, chargeId: receipt.chargeId }, "a top-up payment names no known top-up");
      return null;
    }
    if (topup.userId !== receipt.userId) {
      this.deps.log.warn({ topupId: topup.id }, "a top-up paid by another user; credited to its owner");
    }
    const rail: TopUpRail = receipt.currency === "XTR" ? "stars" : "invoice";
    const credit = await this.credit(topup, rail, receipt.chargeId);
    const payment: TopUpPayment = {
      rail,
      id: receipt.chargeId,
      createdAt: this.deps.now(),
      settled: "paid",
      credited: true,
      notified: true,
    };
    const after = await this.change(topup.id, (t) => withPayment(t, payment));
    return { topup: after.topup ?? topup, ...credit };
  }

  /** Makes (or finds) the provider's page of a top-up, recorded before it is shown, and polls it. */
  async startPayment(topup: TopUp, description: string): Promise<TopUpStart> {
    const rail = topup.rail;
    const gateway = rail === "yookassa" || rail === "cryptopay" ? this.deps.gateways[rail] : undefined;
    if (!gateway || !this.deps.config.checkout.includes(rail)) return { ok: false, reason: "unavailable" };
    const open = topup.payments.find((p) => p.rail === rail && !p.settled && p.url);
    if (open?.url) return { ok: true, url: open.url, paymentId: open.id };
    const recover = topup.paymentStart !== undefined;
    if (!(await this.claimStart(topup.id))) {
      const now = await this.get(topup.id);
      const made = now?.payments.find((p) => p.rail === rail && !p.settled && p.url);
      return made?.url ? { ok: true, url: made.url, paymentId: made.id } : { ok: false, reason: "busy" };
    }
    const made = await gateway.create({
      subject: { kind: "topup", id: topup.id },
      amountKopecks: topup.amountKopecks,
      description,
      expiresAt: this.deps.now() + TOP_UP_OFFER_MS,
      attempt: topup.payments.filter((p) => p.rail === rail).length,
      recover,
    });
    await this.deps.schedule(
      encodeJob({ type: "tpoll", topupId: topup.id }),
      this.deps.now() + TOP_UP_POLL_FIRST_MS,
    );
    const payment: TopUpPayment = { rail, id: made.id, url: made.url, createdAt: this.deps.now() };
    await this.change(topup.id, (t) => withPayment({ ...t, paymentStart: undefined }, payment));
    this.deps.log.info({ topupId: topup.id, rail, paymentId: made.id }, "top-up payment page made");
    return { ok: true, url: made.url, paymentId: made.id };
  }

  /**
   * What a provider says of a top-up's payment (re-read, never a notification's body): paid →
   * credited once and the customer told; cancelled → the page is retired. Other subjects are ignored.
   */
  async applyStatus(status: PaymentStatus): Promise<TopUp | null> {
    if (status.subject?.kind !== "topup") return null;
    const topup = await this.get(status.subject.id);
    const log = { topupId: status.subject.id, rail: status.rail, paymentId: status.id };
    if (!topup) {
      this.deps.log.error(log, "a provider payment names an unknown top-up");
      return null;
    }
    if (status.status === "cancelled") {
      const r = await this.change(topup.id, (t) => {
        const p = t.payments.find((x) => x.rail === status.rail && x.id === status.id);
        return !p || p.settled ? null : withPayment(t, { ...p, settled: "cancelled" });
      });
      return r.topup;
    }
    if (status.status !== "paid") return topup;
    if (status.amountKopecks === null) {
      this.deps.log.error(log, "a paid top-up payment not in roubles; left to the operators");
      return topup;
    }
    if (status.amountKopecks !== topup.amountKopecks) {
      this.deps.log.warn({ ...log, paid: status.amountKopecks }, "a top-up paid with another amount");
    }
    await this.credit(topup, status.rail, status.id);
    const known = topup.payments.find((p) => p.rail === status.rail && p.id === status.id);
    const payment: TopUpPayment = {
      ...(known ?? { rail: status.rail, id: status.id, createdAt: this.deps.now() }),
      settled: "paid",
      credited: true,
    };
    const after = await this.change(topup.id, (t) => {
      const p = t.payments.find((x) => x.rail === status.rail && x.id === status.id);
      return p?.credited ? null : withPayment(t, { ...payment, notified: p?.notified });
    });
    const now = after.topup ?? topup;
    const current = now.payments.find((p) => p.rail === status.rail && p.id === status.id);
    if (!current?.notified) {
      await this.deps.enqueue({ kind: "topup", chatId: now.chatId, topupId: now.id });
      this.deps.kick();
    }
    return now;
  }

  /** The `tpoll` job: re-reads a top-up's unsettled provider payments until they settle or grow old. */
  async poll(id: string): Promise<Retry | undefined> {
    const topup = await this.get(id);
    const open = (topup?.payments ?? []).filter(
      (p) => !p.settled && (p.rail === "yookassa" || p.rail === "cryptopay"),
    );
    for (const rail of new Set(open.map((p) => p.rail as ProviderRail))) {
      const gateway = this.deps.gateways[rail];
      if (!gateway) continue;
      try {
        const statuses = await gateway.read(open.filter((p) => p.rail === rail).map((p) => p.id));
        for (const status of statuses) await this.applyStatus(status);
      } catch (err) {
        this.deps.log.warn({ err, topupId: id, rail }, "top-up payment status read failed");
      }
    }
    const after = await this.get(id);
    const still = (after?.payments ?? []).filter((p) => !p.settled);
    if (still.length === 0) return;
    const newest = Math.max(...still.map((p) => p.createdAt));
    if (this.deps.now() - newest > TOP_UP_POLL_FOR_MS) return;
    return backoff(this.deps, newest, 3_000);
  }

  /** The outgoing message `topup:<chat>:<id>`: tells the customer of each credit not told yet. */
  async deliver(id: string, signal?: AbortSignal): Promise<void> {
    const topup = await this.get(id);
    if (!topup || signal?.aborted || !this.deps.announce) return;
    for (const p of topup.payments.filter((x) => x.credited && !x.notified)) {
      await this.deps.announce(topup, await this.deps.wallet.balance(topup.userId));
      await this.change(id, (t) => {
        const cur = t.payments.find((x) => x.rail === p.rail && x.id === p.id);
        return !cur || cur.notified ? null : withPayment(t, { ...cur, notified: true });
      });
    }
  }

  /** Credits one payment of a top-up: once per rail and payment id. */
  private async credit(
    topup: TopUp,
    rail: TopUpRail,
    paymentId: string,
  ): Promise<{ applied: boolean; balanceKopecks: number }> {
    const res = await this.deps.wallet.credit(topup.userId, {
      amountKopecks: topup.amountKopecks,
      reason: "topup",
      ref: `topup:${rail}:${paymentId}`,
      paymentRef: `${rail}:${paymentId}`,
    });
    if (!res.ok) throw new Error(`the wallet refused top-up ${topup.id}'s credit: ${res.refusal}`);
    if (res.applied) {
      this.deps.log.info({ topupId: topup.id, rail, paymentId }, "wallet topped up");
    }
    return { applied: res.applied, balanceKopecks: res.balanceKopecks };
  }

  private async cas(id: string, expected: string, next: TopUp): Promise<boolean> {
    const done = await this.scripts["casTopUp-1"](this.key(id), expected, JSON.stringify(next), TOP_UP_TTL_S);
    return Number(done) === 1;
  }

  /** Applies `fn` to the record until it is written over what was read (null from `fn`: no change). */
  private async change(
    id: string,
    fn: (t: TopUp) => TopUp | null,
  ): Promise<{ topup: TopUp | null; changed: boolean }> {
    for (let i = 0; i < 50; i++) {
      const raw = await this.deps.redis.get(this.key(id));
      if (raw === null) return { topup: null, changed: false };
      const current = JSON.parse(raw) as TopUp;
      const next = fn(current);
      if (!next) return { topup: current, changed: false };
      if (await this.cas(id, raw, next)) return { topup: next, changed: true };
    }
    throw new Error(`top-up ${id} kept changing; not written`);
  }
}
