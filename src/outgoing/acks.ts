import type { Logger } from "../logger.js";

/**
 * Sent messages acknowledged together within this window (one ZREM for several). While more sends
 * are coming, the acknowledgements go with the next send group instead (dispatcher.ts `onTick`).
 */
const ACK_BATCH_MS = 100;

/**
 * While messages this process took are still to be sent (a lone order's card, a second after its
 * final message), the acknowledgements of those already sent wait for them, this long at most
 * (and at most a quarter of the lease): one ZREM for the lot rather than one per send. Once a
 * send group's worth is waiting (a rush, a broadcast), they go within {@link ACK_BATCH_MS} as
 * before: sent messages do not linger among the leases.
 */
const ACK_HOLD_MS = 2000;

/**
 * The dispatcher's acknowledgements of sent messages (the removal of their leases), gathered so
 * that one ZREM covers several. Until its acknowledgement the lease holds a message for this
 * process: a crash meanwhile offers it again, as it would between a send and its own
 * acknowledgement (a final message is sent once regardless, see orders/notifications.ts).
 */
export class AckBatch {
  private readonly members: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the armed acknowledgement is due, and when the oldest waiting one was sent. */
  private dueAt = 0;
  private firstAt: number | undefined;

  constructor(
    private readonly opts: {
      /** Removes the leases of these sent messages (one command). */
      ack(members: string[]): Promise<unknown>;
      log: Logger;
      leaseMs: number;
      /** A send group's size: this many waiting go at once. */
      group: number;
      /** The send grid's tick (ms). */
      tickMs(): number;
      /** Sends this process took and has not started or ended yet. */
      unsent(): number;
      /** Whether this process holds the message again (taken anew since its send). */
      holdsAgain(member: string): boolean;
    },
  ) {}

  /** Acknowledgements waiting. */
  get waiting(): number {
    return this.members.length;
  }

  /**
   * Acknowledges a sent message together with those sent within the next {@link ACK_BATCH_MS},
   * or, while a few other messages taken here are still to be sent, with theirs (up to
   * {@link ACK_HOLD_MS}): at Telegram's pace that is one ZREM for several messages.
   */
  add(member: string): void {
    this.members.push(member);
    this.firstAt ??= Date.now();
    this.arm();
  }

  /** Sets the timer to the earliest moment the rules of {@link add} allow (again after a send ends). */
  arm(): void {
    if (this.members.length === 0 || this.firstAt === undefined) return;
    const latest = this.firstAt + Math.min(ACK_HOLD_MS, this.opts.leaseMs / 4);
    const unsent = this.opts.unsent();
    // A send group's worth waiting while more sends are coming: the next group takes them along
    // (the dispatcher's onTick); the timer, a tick later, is the bound.
    const batchMs = unsent === 0 ? ACK_BATCH_MS : this.opts.tickMs() + ACK_BATCH_MS;
    const soon = unsent === 0 || this.members.length >= this.opts.group;
    const due = soon ? Math.min(Date.now() + batchMs, latest) : latest;
    if (this.timer && this.dueAt <= due) return;
    clearTimeout(this.timer);
    this.dueAt = due;
    this.timer = setTimeout(() => void this.flush(), Math.max(0, due - Date.now()));
  }

  /** Sends every waiting acknowledgement now. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firstAt = undefined;
    // A message queued again and taken again here since its send holds a new lease under the same
    // member: that send's own acknowledgement removes it.
    const members = this.members.splice(0).filter((m) => !this.opts.holdsAgain(m));
    await this.opts
      .ack(members)
      .catch((err) => this.opts.log.warn({ err, messages: members.length }, "outgoing ack failed"));
  }
}
