import type { ExtraCharge, Notifier, OperatorAlert, Order } from "../../src/orders/types.js";

/** A Notifier that records what the engine asked of the chat, for assertions. */
export class RecordingNotifier implements Notifier {
  readonly cards: Order[] = [];
  readonly finals: Order[] = [];
  readonly refunds: { userId: number; chargeId: string }[] = [];
  readonly alerts: { alert: OperatorAlert; orderId?: string }[] = [];
  readonly referralBonuses: { referrerId: number; amountKopecks: number; balanceKopecks: number }[] = [];
  /** What customers were told of second payments (Notifier.extraPayment). */
  readonly extras: { orderId: string; charge: ExtraCharge }[] = [];
  /** Stars charges whose refund Telegram refuses (for good: not a "try again later"). */
  readonly refusedRefunds = new Set<string>();
  private nextMessageId = 1000;
  /** When set, sendFinal throws this many times first (to exercise retries). */
  failFinals = 0;

  async updateCard(order: Order): Promise<number | undefined> {
    this.cards.push(order);
    return order.cardMessageId ?? this.nextMessageId++;
  }

  async sendFinal(order: Order): Promise<void> {
    if (this.failFinals > 0) {
      this.failFinals -= 1;
      throw new Error("Telegram unavailable");
    }
    this.finals.push(order);
  }

  async refundStars(userId: number, chargeId: string): Promise<void> {
    if (this.refusedRefunds.has(chargeId)) throw new Error("400: Bad Request: CHARGE_NOT_FOUND");
    if (this.refunds.some((r) => r.chargeId === chargeId)) throw new Error("400: CHARGE_ALREADY_REFUNDED");
    this.refunds.push({ userId, chargeId });
  }

  async extraPayment(order: Order, charge: ExtraCharge): Promise<void> {
    this.extras.push({ orderId: order.id, charge });
  }

  async referralCredited(referrerId: number, amountKopecks: number, balanceKopecks: number): Promise<void> {
    this.referralBonuses.push({ referrerId, amountKopecks, balanceKopecks });
  }

  async alert(alert: OperatorAlert): Promise<void> {
    this.alerts.push({ alert, orderId: alert.orderId });
  }

  finalsFor(orderId: string): Order[] {
    return this.finals.filter((o) => o.id === orderId);
  }

  alertsOf(kind: OperatorAlert["kind"]): OperatorAlert[] {
    return this.alerts.filter((a) => a.alert.kind === kind).map((a) => a.alert);
  }
}

/** Polls `check` until it returns a truthy value (which it resolves to) or the time is up. */
export async function eventually<F extends () => unknown>(
  check: F,
  timeoutMs = 10_000,
  label = "condition",
): Promise<NonNullable<Awaited<ReturnType<F>>>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<Awaited<ReturnType<F>>>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${label}; last: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
