import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { OutgoingQueue } from "../outgoing/queue.js";
import type { PaymentGateways } from "../payments/gateway.js";
import type { PromoStore } from "../promo/store.js";
import type { Referrals } from "../referrals/referrals.js";
import type { ResellerClient } from "../reseller/types.js";
import type { WalletLedger } from "../wallet/ledger.js";
import type { TopUps } from "../wallet/topups.js";
import type { DepositGuard } from "./deposit-guard.js";
import type { Effect } from "./effects.js";
import { canMove, enter, jobsFor, type LifecycleTiming } from "./lifecycle.js";
import type { PayAnswers } from "./pay-answers.js";
import type { PriceSettingsStore } from "./price-settings.js";
import type { OrderStore } from "./store.js";
import type { Notifier, Order, OrderState } from "./types.js";

/** The settings the orders engine reads (without `maxOpenQuotes`, quotes are not limited: tools and benchmarks). */
export type EngineConfig = Partial<Pick<Config, "maxOpenQuotes" | "referralPercent" | "products">> &
  Pick<
    Config,
    | "checkout"
    | "priceMarkupPercent"
    | "starPriceRub"
    | "quoteTtlSeconds"
    | "pollIntervalSeconds"
    | "trackingTimeoutHours"
    | "lowBalanceRub"
    | "resellerCallbackUrl"
  >;

export interface EngineHooks {
  /** Called after every state change this process made. */
  onTransition?(order: Order, from: OrderState | null): void;
  onJob?(type: string, outcome: "done" | "retry" | "error"): void;
}

/** Sends one recipient's broadcast message when its turn comes (src/broadcast/broadcasts.ts). */
export interface BroadcastDeliverer {
  deliver(chatId: number, broadcastId: string, signal?: AbortSignal): Promise<void>;
}

/** What every part of the orders engine shares: built once by `createOrdersEngine`. */
export interface EngineContext {
  store: OrderStore;
  /** Where the engine's messages to customers and operators wait their turn. */
  outgoing: OutgoingQueue;
  reseller: ResellerClient;
  notifier: Notifier;
  /** YooKassa and Crypto Pay, for the rails CHECKOUT offers. */
  gateways: PaymentGateways;
  /** Products paused while the reseller deposit cannot cover them (deposit-guard.ts). */
  deposit: DepositGuard;
  /** The customers' wallets, when the shop offers one (paying from it, refunds to it). */
  wallet?: WalletLedger;
  /** The referral programme (REFERRAL_PERCENT above 0, with the wallet): delivered orders credit referrers. */
  referrals?: Referrals;
  /** Wallet top-ups (with the wallet): their poll job and messages run here. */
  topups?: TopUps;
  /** Operators' broadcasts: their messages wait in the outgoing queue behind everything else. */
  broadcasts?: BroadcastDeliverer;
  log: Logger;
  config: EngineConfig;
  /** Markups, minimum margin, rounding and products on or off, as the operators set them. */
  prices: PriceSettingsStore;
  /** The shop's promo codes: uses counted and given back with the orders that hold them. */
  promos: PromoStore;
  hooks: EngineHooks;
  /** Payments answered in the chat that wait for `pay` (pay-answers.ts). */
  payAnswers: PayAnswers;
  now: () => number;
  /** Timing of the jobs a transition schedules, as of now. */
  timing(): LifecycleTiming;
  /** Wakes this process's worker and outgoing dispatcher (new work was scheduled). */
  kick(): void;
  /**
   * After a charge, or a quote refused for the deposit: the deposit check runs soon, in this
   * process (at most every few seconds, deposit-pull.ts).
   */
  balanceSoon(after: "charge" | "refusal"): void;
}

/** Delay of the first status poll after `pay` (at least 50 ms). */
export function pollMsOf(config: EngineConfig): number {
  return Math.max(50, config.pollIntervalSeconds * 1000);
}

/**
 * Moves an order from one of `from` to `to`, applying `patch`; exactly one concurrent caller
 * wins. The order's jobs for the new state are recorded in the same atomic write.
 */
export async function transition(
  ctx: EngineContext,
  id: string,
  from: readonly OrderState[],
  to: OrderState,
  patch: (order: Order) => Partial<Order> = () => ({}),
  opts: {
    /** The bot shows the order's card in its answer (pay-answers.ts): no card update is queued. */
    cardShown?: boolean;
    /** Where the order's step stands, held by this run (lifecycle.ts `LifecycleTiming.stepAt`). */
    stepAt?: number;
  } = {},
): Promise<{ won: boolean; order: Order | null }> {
  let prevState: OrderState | null = null;
  const res = await ctx.store.update(id, (order) => {
    if (!from.includes(order.state) || !canMove(order.state, to)) return null;
    prevState = order.state;
    const next = enter({ ...order, ...patch(order) }, to, ctx.now());
    const timing = ctx.timing();
    const jobs = jobsFor(
      next,
      order.state,
      opts.stepAt === undefined ? timing : { ...timing, stepAt: opts.stepAt },
    );
    return { next, jobs: opts.cardShown ? jobs.filter((e) => !isCardUpdate(e)) : jobs };
  });
  if (res.won && res.order) noteTransition(ctx, res.order, prevState);
  return res;
}

function isCardUpdate(effect: Effect): boolean {
  return "message" in effect && effect.message.kind === "card";
}

/** Logs a state change this process made and tells the hooks. */
export function noteTransition(ctx: EngineContext, order: Order, from: OrderState | null): void {
  ctx.log.info({ orderId: order.id, from, to: order.state }, "order state changed");
  ctx.hooks.onTransition?.(order, from);
}
