import type { Logger } from "../logger.js";
import { BackgroundLoop, settleWithin } from "../util/timers.js";
import { AckBatch } from "./acks.js";
import type { LeaseTerms, OutgoingQueue, TakenMessage } from "./queue.js";
import { SEND_GROUP, SendGrid } from "./send-grid.js";

export { SEND_GROUP };

/**
 * This process's sender for the outgoing queue: takes the messages that may go within the
 * horizon with their reserved send times (one Redis call for a batch), waits for each time in memory, hands the message to `deliver`, and acknowledges it.
 * Several messages are in flight at once (their slots are a pace apart), so a slow send does
 * not slow the pace. When nothing may go, it sleeps until the earliest moment something may,
 * or until `kick()` says something was queued.
 */
export interface DispatcherOptions {
  queue: OutgoingQueue;
  log: Logger;
  /**
   * Sends one message. Resolving means sent, or never to be sent (the message is acknowledged);
   * throwing offers it again later. `signal` aborts when this process lost the message's lease
   * (another process may be sending it): nothing may be sent after that.
   */
  deliver(member: string, signal: AbortSignal): Promise<void>;
  /** Called when a message was sent (`done`) or offered again after a failure (`error`). */
  onOutcome?(member: string, outcome: "done" | "error"): void;
  /**
   * How long a taken message may stay unacknowledged before another process offers it again
   * (default 10 s); a send that takes longer renews it every third of it.
   */
  leaseMs?: number;
  /** How far ahead send slots are reserved. */
  horizonMs?: number;
  /** Messages in flight at once in this process. */
  maxInFlight?: number;
  /** Longest sleep while the queue is empty (other processes' messages, expired leases). */
  idleMs?: number;
  /** How often ended leases are looked for (default {@link HOUSEKEEPING_EVERY_MS}). */
  housekeepingMs?: number;
  /** Whether a send failed because its chat cannot be written to (the customer blocked the bot). */
  unreachable?(err: unknown): boolean;
  /**
   * Whether Telegram refused the send itself (a bad request): the same send gets the same answer,
   * so it waits as long as one to an unreachable chat before it is tried again.
   */
  refused?(err: unknown): boolean;
  /** How long a message to an unreachable chat (or one refused) waits before it is tried again (default {@link UNREACHABLE_HOLD_MS}). */
  unreachableHoldMs?: number;
}

/**
 * How often a take also offers again the messages whose lease ran out (a process died holding
 * them). Housekeeping rides on a take the loop makes anyway, so it costs no extra round trip; an
 * idle process reads the earliest lease's end instead, in its idle look, and takes only when a
 * lease has ended.
 */
const HOUSEKEEPING_EVERY_MS = 5000;

/**
 * A message whose chat cannot be written to (blocked) keeps its lease this long, then housekeeping
 * offers it again: one try every few minutes, not one every few seconds for as long as the block lasts.
 */
export const UNREACHABLE_HOLD_MS = 5 * 60_000;

/** Default lease of a taken message: a dead holder's message goes out again within seconds. */
export const MESSAGE_LEASE_MS = 10_000;

export class OutgoingDispatcher extends BackgroundLoop {
  private readonly inFlight = new Set<Promise<void>>();
  private lastHousekeeping = 0;
  private readonly leaseMs: number;
  private readonly horizonMs: number;
  private readonly maxInFlight: number;
  private readonly idleMs: number;
  private readonly housekeepingMs: number;
  private readonly unreachableHoldMs: number;
  /** Sends start one after another on the send grid (send-grid.ts). */
  private readonly grid = new SendGrid({ tickMs: () => this.tickMs, onTick: () => this.onTick() });
  /** Messages taken by this process and not yet sent (or given up), by how many times. */
  private readonly taken = new Map<string, number>();
  /** Messages sent and not yet acknowledged in Redis. */
  private readonly acks: AckBatch;
  /** Sends taken by this process that have neither been sent nor ended otherwise. */
  private unsent = 0;
  /**
   * When the loop is due to take again while this process still has sends to start (a rush, a
   * broadcast): the send group nearest to it wakes the loop (see {@link onTick}).
   */
  private takeDueAt: number | undefined;

  constructor(private readonly opts: DispatcherOptions) {
    super();
    this.leaseMs = opts.leaseMs ?? MESSAGE_LEASE_MS;
    this.horizonMs = opts.horizonMs ?? 1000;
    this.maxInFlight = opts.maxInFlight ?? 64;
    this.idleMs = opts.idleMs ?? 2000;
    this.housekeepingMs = opts.housekeepingMs ?? HOUSEKEEPING_EVERY_MS;
    this.unreachableHoldMs = opts.unreachableHoldMs ?? UNREACHABLE_HOLD_MS;
    this.acks = new AckBatch({
      ack: (members) => opts.queue.ack(members),
      log: opts.log,
      leaseMs: this.leaseMs,
      group: SEND_GROUP,
      tickMs: () => this.tickMs,
      unsent: () => this.unsent,
      holdsAgain: (member) => this.taken.has(member),
    });
  }

  /**
   * The terms on which a write of this process may take its own messages (an order's final message
   * and card) when the queue is empty, as a take would, and hand them over with {@link adopt}: only
   * while this dispatcher runs and has nothing of its own to send. With sends under way (a rush)
   * the messages are queued: a look at the queue would then cost every write a command for
   * nothing, since the queue is seldom empty.
   */
  leaseTerms(): LeaseTerms | undefined {
    if (!this.running || this.unsent > 0 || this.inFlight.size > 0) return undefined;
    return this.opts.queue.leaseTerms({
      leaseMs: this.leaseMs,
      horizonMs: this.horizonMs,
      chatSlackMs: this.tickMs,
    });
  }

  /** Sends messages that a write of this process took on {@link leaseTerms}, as if this dispatcher had taken them at `takenAt`. */
  adopt(taken: readonly TakenMessage[], takenAt: number): void {
    for (const { member, waitMs, leaseEnd, apart } of taken) {
      this.send(member, waitMs, leaseEnd, takenAt, apart === true);
    }
  }

  /** Stops taking messages; lets those in flight go within `timeoutMs` (the rest come back by their leases). */
  async stop(timeoutMs: number): Promise<void> {
    if (!(await this.endLoop())) return;
    await settleWithin(this.inFlight, timeoutMs);
    await this.acks.flush();
  }

  protected async loop(): Promise<void> {
    const { queue, log } = this.opts;
    let redisDown = false;
    // Whether this look was woken for work (a kick, a slot coming free, the first look) rather
    // than only by the idle bound: an idle look asks whether anything waits before it takes.
    let expectWork = true;
    while (this.running) {
      // Take in batches: with half the senders busy, wait for one to finish first.
      if (this.inFlight.size >= Math.max(1, this.maxInFlight / 2)) {
        await Promise.race(this.inFlight);
        expectWork = true;
        continue;
      }
      const now = Date.now();
      let housekeeping = now - this.lastHousekeeping >= this.housekeepingMs;
      let result: Awaited<ReturnType<OutgoingQueue["take"]>>;
      // A kick from now on (a message queued while this take runs) ends the sleep after it.
      this.sleeper.forget();
      try {
        // An idle look takes only when something waits or, when housekeeping is due, a lease has
        // ended: a quiet process's housekeeping is one more ZRANGE, not the take script.
        const look = expectWork ? undefined : await queue.idleLook(housekeeping);
        if (look && housekeeping && !look.leaseEnded) {
          housekeeping = false;
          this.lastHousekeeping = now;
        }
        result =
          !look || look.waiting || housekeeping
            ? await queue.take({
                leaseMs: this.leaseMs,
                horizonMs: this.horizonMs,
                housekeeping,
                max: this.maxInFlight - this.inFlight.size,
                chatSlackMs: this.tickMs,
              })
            : { taken: [], wakeMs: -1 };
        if (housekeeping) this.lastHousekeeping = now;
        if (redisDown) log.info("outgoing queue reachable again");
        redisDown = false;
      } catch (err) {
        if (!redisDown) log.error({ err }, "cannot read the outgoing queue; retrying");
        redisDown = true;
        expectWork = true;
        await this.sleeper.sleep(1000);
        continue;
      }
      for (const { member, waitMs, leaseEnd, apart } of result.taken) {
        this.send(member, waitMs, leaseEnd, now, apart === true);
      }
      // The reply says when to look again: once half the reserved slots have passed, when a
      // waiting chat is free, or (-1) when something new is queued.
      expectWork = true;
      if (result.wakeMs === 0) continue;
      let sleepMs = result.wakeMs < 0 ? this.idleMs : Math.min(this.idleMs, result.wakeMs);
      // Sends still to start here: the send group nearest the take's moment wakes the loop, so the
      // take rides on that group's wake-up (and its answer comes with the acknowledgements'). The
      // timer stays as a bound, a tick later.
      if (result.wakeMs > 0 && this.unsent > 0) {
        this.takeDueAt = Date.now() + sleepMs;
        sleepMs += this.tickMs;
      }
      const woken = await this.sleeper.sleep(sleepMs);
      this.takeDueAt = undefined;
      expectWork = woken || result.wakeMs >= 0;
    }
  }

  /**
   * Sends one taken message when its slot comes. The lease is renewed every third of it while the
   * send runs (one renewal at a time). Before the send, a lease that may have run out (this process
   * stalled, or Redis was out of reach) is confirmed first; a lease found lost means another
   * process may be sending the message, so this one sends nothing, and neither acknowledges nor
   * releases it (that is the new holder's to do).
   */
  private send(member: string, waitMs: number, leaseEnd: number, takenAt: number, apart: boolean): void {
    const { queue, log } = this.opts;
    const renewEveryMs = Math.max(50, Math.floor(this.leaseMs / 3));
    // `heldUntil` is on this process's clock and errs early: the lease counts from the issue of
    // the take or renewal that granted it.
    const held = { leaseEnd, heldUntil: takenAt + this.leaseMs, lost: false };
    const abort = new AbortController();
    this.taken.set(member, (this.taken.get(member) ?? 0) + 1);
    this.unsent += 1;
    let unsent = true;
    const ended = () => {
      if (!unsent) return;
      unsent = false;
      this.unsent -= 1;
    };
    const renew = async (): Promise<void> => {
      const issued = Date.now();
      try {
        const next = await queue.renew(member, held.leaseEnd, this.leaseMs);
        if (next === 0) {
          held.lost = true;
          abort.abort();
          return;
        }
        held.leaseEnd = next;
        held.heldUntil = issued + this.leaseMs;
      } catch {
        // Redis out of reach: try again at the next turn; `heldUntil` tells how long the lease stands.
      }
    };
    const dueAt = Date.now() + waitMs;
    const p = (async () => {
      // A message reserved apart from the pace (at its chat's next free time) may be due after
      // messages taken later: it joins the sends' order a tick before its slot, not now, so that
      // it does not hold them back.
      if (apart && waitMs > this.tickMs) await new Promise((r) => setTimeout(r, waitMs - this.tickMs));
      await this.grid.turn(dueAt);
      if (!this.running) {
        // Stopping: a message still waiting for its slot goes back for another process (or the next start).
        await queue.release(member).catch(() => {});
        return;
      }
      if (Date.now() > held.heldUntil - renewEveryMs) await renew();
      if (held.lost || Date.now() > held.heldUntil - renewEveryMs) {
        log.warn({ message: member }, "outgoing message lease lost before sending; left to its new holder");
        return;
      }
      // A send can outlast its lease (Telegram slow to answer, a 429 hold): extend it while it runs.
      let timer: NodeJS.Timeout | undefined;
      let sending = true;
      const schedule = () => {
        timer = setTimeout(() => {
          void renew().then(() => {
            if (sending && !held.lost) schedule();
          });
        }, renewEveryMs);
      };
      schedule();
      try {
        await this.opts.deliver(member, abort.signal);
      } catch (err) {
        if (held.lost) return this.lost(member);
        const unreachable = this.opts.unreachable?.(err) ?? false;
        if (unreachable || this.opts.refused?.(err)) {
          sending = false;
          clearTimeout(timer);
          if (unreachable)
            log.warn(
              { message: member, holdMs: this.unreachableHoldMs },
              "chat unreachable; message tried again later",
            );
          else
            log.error(
              { err, message: member, holdMs: this.unreachableHoldMs },
              "Telegram refused the message; tried again later",
            );
          this.opts.onOutcome?.(member, "error");
          // Its lease runs on for the hold; when it ends, housekeeping offers the message again.
          await queue.renew(member, held.leaseEnd, this.unreachableHoldMs).catch(() => 0);
          return;
        }
        log.error({ err, message: member }, "outgoing message not sent; offered again");
        this.opts.onOutcome?.(member, "error");
        await queue.release(member).catch(() => {});
        return;
      } finally {
        sending = false;
        clearTimeout(timer);
      }
      if (held.lost) return this.lost(member);
      this.opts.onOutcome?.(member, "done");
      ended();
      this.acks.add(member);
    })();
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      const n = (this.taken.get(member) ?? 1) - 1;
      if (n > 0) this.taken.set(member, n);
      else this.taken.delete(member);
      ended();
      // The last send that held acknowledgements back has ended: they go now.
      this.acks.arm();
    });
  }

  /**
   * A send group starts: what the process would otherwise wake up for on its own timers goes now,
   * in the same wake-up and, through the client's auto-pipelining, the same Redis write: a send
   * group's worth of acknowledgements, and the take when it is due within half a tick. In a rush
   * that is one wake-up a group for the queue's work rather than three or four.
   */
  private onTick(): void {
    if (this.acks.waiting >= SEND_GROUP) void this.acks.flush();
    if (this.takeDueAt !== undefined && Date.now() >= this.takeDueAt - this.tickMs / 2) {
      this.takeDueAt = undefined;
      this.sleeper.wake();
    }
  }

  /** The send grid's tick: a group's worth of global intervals. */
  get tickMs(): number {
    return SEND_GROUP * this.opts.queue.intervals.globalMs;
  }

  private lost(member: string): void {
    this.opts.log.warn(
      { message: member },
      "outgoing message lease lost while sending; left to its new holder",
    );
  }
}
