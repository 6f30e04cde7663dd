import type { Order } from "./types.js";

/**
 * Payments answered in the chat. A customer who pays in the chat (Stars, a Telegram invoice) gets
 * the order card as the answer to their payment, and `pay` runs at once in the same process (the
 * paid write holds its job here). When `pay` goes through while that answer is being prepared, the
 * answer shows the order already being delivered, and the `pending` transition queues no card
 * update of its own: one card edit instead of two, and nothing for the outgoing queue.
 *
 * Per order, in this process's memory only (a process that dies takes its answers with it; the
 * card then shows the next state the order reaches, which queues its update as always):
 * - the bot `open`s an answer before recording the payment;
 * - `pay` `cover`s it just before writing `pending` (true: leave the card out of that write) and
 *   `settle`s it with what it wrote, or `release`s it when it did not get as far (a retry, a refusal);
 * - the bot `wait`s for that, at most a moment, and shows what it got (or the paid order).
 *
 * When the bot gave up waiting (or never asked) and the `pending` write came without its card,
 * `missed` queues the card update after all.
 */
export class PayAnswers {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly missed: (order: Order) => void,
    /** An answer nobody waits for is dropped after this long. */
    private readonly maxAgeMs = 30_000,
  ) {}

  /** The caller will answer this payment in the chat (call before the payment is recorded). */
  open(orderId: string): void {
    // Open already (the same payment seen twice): the first stays, and the second's `close` ends it.
    if (this.entries.has(orderId)) return;
    const entry: Entry = { covered: false, gaveUp: false };
    entry.timer = setTimeout(() => this.giveUp(orderId, entry), this.maxAgeMs);
    entry.timer.unref();
    this.entries.set(orderId, entry);
  }

  /** The payment was not a new one (or not recorded): nothing will wait for its `pay`. */
  close(orderId: string): void {
    const entry = this.entries.get(orderId);
    if (entry && !entry.covered) this.finish(orderId, entry, undefined);
  }

  /** `pay` is about to write `pending`: true when an answer in the chat will show it (leave the card out). */
  cover(orderId: string): boolean {
    const entry = this.entries.get(orderId);
    if (!entry || entry.gaveUp || entry.covered) return false;
    entry.covered = true;
    return true;
  }

  /** What `pay` wrote after {@link cover} said true (null: nothing, another writer got there first). */
  settle(orderId: string, order: Order | null): void {
    const entry = this.entries.get(orderId);
    if (!entry?.covered || entry.settled !== undefined) return;
    entry.settled = order;
    if (entry.waiter) {
      this.finish(orderId, entry, order ?? undefined);
    } else if (entry.gaveUp) {
      this.finish(orderId, entry, undefined);
      if (order) this.missed(order);
    }
  }

  /** `pay` ended without writing `pending` (it will be retried, or the order went elsewhere). */
  release(orderId: string): void {
    this.close(orderId);
  }

  /**
   * The order to show as the answer: `pending` when `pay` went through within `maxMs`, otherwise
   * undefined (show the paid order; the later change queues its card update as always).
   */
  wait(orderId: string, maxMs: number): Promise<Order | undefined> {
    const entry = this.entries.get(orderId);
    if (!entry || entry.gaveUp) return Promise.resolve(undefined);
    if (entry.settled !== undefined) {
      this.finish(orderId, entry, undefined);
      return Promise.resolve(entry.settled ?? undefined);
    }
    return new Promise((resolve) => {
      entry.waiter = resolve;
      const timer = setTimeout(() => this.giveUp(orderId, entry), maxMs);
      timer.unref();
      entry.waitTimer = timer;
    });
  }

  /** Answers open now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private giveUp(orderId: string, entry: Entry): void {
    if (this.entries.get(orderId) !== entry) return;
    entry.gaveUp = true;
    const waiter = entry.waiter;
    entry.waiter = undefined;
    clearTimeout(entry.waitTimer);
    waiter?.(undefined);
    if (!entry.covered) {
      this.finish(orderId, entry, undefined);
    } else if (entry.settled !== undefined) {
      // Written without its card and nobody showed it.
      this.finish(orderId, entry, undefined);
      if (entry.settled) this.missed(entry.settled);
    }
    // Covered, not yet written: `settle` queues the card when the write comes.
  }

  private finish(orderId: string, entry: Entry, order: Order | undefined): void {
    clearTimeout(entry.timer);
    clearTimeout(entry.waitTimer);
    if (this.entries.get(orderId) === entry) this.entries.delete(orderId);
    const waiter = entry.waiter;
    entry.waiter = undefined;
    waiter?.(order);
  }
}

interface Entry {
  covered: boolean;
  gaveUp: boolean;
  /** What `pay` wrote (null: nothing); undefined until it settles. */
  settled?: Order | null;
  waiter?: (order: Order | undefined) => void;
  timer?: NodeJS.Timeout;
  waitTimer?: NodeJS.Timeout;
}
