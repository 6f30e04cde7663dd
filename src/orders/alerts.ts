import type { ProductKind } from "../config.js";
import { ResellerApiError } from "../reseller/errors.js";
import type { EngineContext } from "./context.js";
import { rubToKopecks } from "./pricing.js";
import { recentSpending } from "./spending.js";
import type { AlertKind, OperatorAlert, Order } from "./types.js";

/** Alerts that repeat by nature are sent at most once per window (seconds), across processes. */
const ALERT_WINDOWS_S: Partial<Record<AlertKind, number>> = {
  low_balance: 3600,
  reseller_auth: 600,
  reseller_down: 3600,
};

/** Periodic deposit checks (every BALANCE_CHECK_MINUTES) without an answer, in a row, before the operators are told. */
const CHECKS_FAILED_BEFORE_ALERT = 2;

/** Tells the operators, at most once per window for the kinds that have one. */
export async function sendAlert(ctx: EngineContext, alert: OperatorAlert, order?: Order): Promise<void> {
  const window = ALERT_WINDOWS_S[alert.kind];
  if (window && !(await ctx.store.openAlertWindow(alert.kind, window))) return;
  await ctx.notifier.alert(alert, order);
}

/** A rejected API key is the operators' to fix: they are told (throttled). */
export async function noteResellerError(ctx: EngineContext, err: ResellerApiError): Promise<void> {
  if (err.kind !== "auth") return;
  await sendAlert(ctx, {
    kind: "reseller_auth",
    details: { endpoint: err.endpoint, status: err.status, message: err.message },
  }).catch((e) => ctx.log.error({ err: e }, "reseller auth alert failed"));
}

/** Records a deposit read; products paused for want of it come back as soon as it covers them again. */
export async function noteDeposit(
  ctx: EngineContext,
  balanceRub: number,
  opts: { resume?: boolean } = {},
): Promise<void> {
  // The spending of charges since the last write rides on the deposit's write (spending.ts).
  const spent = ctx.store.spending.take();
  const resumed = await ctx.deposit
    .noteDeposit(rubToKopecks(balanceRub), { ...opts, fields: spent.fields })
    .catch((err: unknown) => {
      ctx.store.spending.giveBack(spent);
      throw err;
    });
  for (const kind of resumed) {
    ctx.log.info({ kind, balanceRub }, "product resumed: the deposit covers it again");
    await sendAlert(ctx, { kind: "product_resumed", details: { product: kind, balanceRub } });
  }
}

/**
 * Pauses a product the deposit cannot cover (deposit-guard.ts): its next quotes are refused
 * before anyone pays, the operators are told once, and the deposit is looked at again soon.
 */
export async function pauseForDeposit(
  ctx: EngineContext,
  kind: ProductKind,
  wholesaleKopecks: number,
  orderId: string,
): Promise<void> {
  if (await ctx.deposit.pause(kind, wholesaleKopecks)) {
    const { depositKopecks } = await ctx.deposit.state();
    ctx.log.warn({ kind, wholesaleKopecks, depositKopecks }, "product paused: the deposit cannot cover it");
    await sendAlert(ctx, {
      kind: "product_paused",
      orderId,
      details: {
        product: kind,
        neededRub: wholesaleKopecks / 100,
        balanceRub: depositKopecks === undefined ? null : depositKopecks / 100,
      },
    }).catch((err) => ctx.log.error({ err, kind }, "product paused alert failed"));
  }
  ctx.balanceSoon("refusal");
}

/**
 * The periodic deposit check: {@link checkBalance}, and the operators told when the reseller has
 * not answered it {@link CHECKS_FAILED_BEFORE_ALERT} times in a row (the API client's own retries
 * spent each time). Paid orders then wait for `pay`, and with nobody ordering nothing else would
 * say so before the stuck alerts, hours later. At most once an hour while it lasts.
 */
export async function periodicBalanceCheck(ctx: EngineContext): Promise<void> {
  try {
    await checkBalance(ctx);
  } catch (err) {
    ctx.log.warn({ err }, "balance check failed");
    if (!(err instanceof ResellerApiError) || !err.transient) return;
    const failed = await ctx.store.noteCheckFailed();
    if (failed < CHECKS_FAILED_BEFORE_ALERT) return;
    await sendAlert(ctx, {
      kind: "reseller_down",
      details: { endpoint: err.endpoint, status: err.status ?? null, message: err.message, checks: failed },
    });
    return;
  }
  await ctx.store.noteCheckAnswered();
}

/**
 * Reads the deposit and warns the operators when it is below LOW_BALANCE_RUB, with the last 7 days'
 * spending (for the runway). `resume: false` (a read that follows charges only) leaves paused
 * products to the next full check (deposit-guard.ts).
 */
export async function checkBalance(ctx: EngineContext, opts: { resume?: boolean } = {}): Promise<void> {
  // A key revoked while nobody orders is first seen here: the operators are told as for an order's.
  const balance = await ctx.reseller.balance().catch(async (err: unknown) => {
    if (err instanceof ResellerApiError) await noteResellerError(ctx, err);
    throw err;
  });
  await noteDeposit(ctx, balance.balanceRub, opts);
  if (balance.balanceRub < ctx.config.lowBalanceRub) {
    // The runway forecast needs the last days' spending; the alert goes out without it when unread.
    const spending = await recentSpending(ctx.store.spending, ctx.now()).catch((err) => {
      ctx.log.warn({ err }, "deposit spending not read");
      return null;
    });
    await sendAlert(ctx, {
      kind: "low_balance",
      details: {
        balanceRub: balance.balanceRub,
        thresholdRub: ctx.config.lowBalanceRub,
        ...(spending ? { spentKopecks: spending.spentKopecks, spendWindowMs: spending.windowMs } : {}),
      },
    });
  }
}

/** An order's alert, with what the operators need to act on it. */
export async function sendOrderAlert(ctx: EngineContext, kind: AlertKind, order: Order): Promise<void> {
  const details: Record<string, string | number | null> = {};
  if (order.errorMessage) details.reason = order.errorMessage;
  if (order.rejectReason) details.kind = order.rejectReason;
  if (order.rejectBalanceRub !== undefined) details.balanceRub = order.rejectBalanceRub;
  await sendAlert(ctx, { kind, orderId: order.id, details }, order);
}
