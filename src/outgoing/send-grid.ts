/**
 * Sends start in groups: on a grid of ticks {@link SEND_GROUP} global intervals apart (204 ms at
 * 30/s), a message waits from its reserved slot to the next tick, and the messages whose slots
 * fall within one tick (at most this many: the slots are a global interval apart) start together.
 * The process then wakes five times a second instead of thirty, and on a mostly idle process each
 * wake-up costs more CPU than the send it makes (BENCHMARKS.md). The pace holds: five ticks span
 * more than a second (1,020 ms), so no second holds the starts of more than five groups, 30 sends,
 * even with a group starting up to {@link LATE_START_MS} late (then its sends and those of the group
 * five ticks on can reach Telegram within one second; its buckets, unlike a strict count of the
 * last second, take that in stride). A message waits at most one tick, and the queue reserves a
 * chat's slots one tick further apart than its interval, so two sends into one chat stay at least
 * the interval apart.
 */
export const SEND_GROUP = 6;
/** A send may still join a tick this long after its moment (the sends before it in the tick took that long to start). */
const LATE_START_MS = 20;

/** A process's sends in turn on the send grid ({@link SEND_GROUP}). */
export class SendGrid {
  /** Sends start one after another through this chain. */
  private turns: Promise<void> = Promise.resolve();
  /** The grid tick (its index) the last send started in, and how many started in it. */
  private lastTick = 0;
  private startsInTick = 0;

  constructor(
    private readonly opts: {
      /** The grid's tick (ms). */
      tickMs: () => number;
      /** A send group starts: called once per tick, with the first send of it. */
      onTick: () => void;
    },
  ) {}

  /**
   * Waits for a send's reserved time, rounded up to the send grid, and keeps this process to the
   * pace even when it stalled (a long garbage collection, a busy event loop): the messages whose
   * times passed meanwhile go out at the next ticks, a tick's worth at a time, not in one burst
   * that Telegram would refuse.
   */
  turn(dueAt: number): Promise<void> {
    const mine = this.turns.then(async () => {
      const tickMs = this.opts.tickMs();
      let tick = Math.max(Math.ceil(dueAt / tickMs), this.lastTick);
      // More than a group in one tick happens only after a stall: the rest wait for the next tick.
      if (tick === this.lastTick && this.startsInTick >= SEND_GROUP) tick += 1;
      // A tick whose moment has passed (the process stalled, before or during the wait) is not
      // joined late, mid-tick: the message waits for the next.
      for (;;) {
        if (Date.now() - tick * tickMs > LATE_START_MS) tick = Math.ceil(Date.now() / tickMs);
        const delay = tick * tickMs - Date.now();
        if (delay <= 0) break;
        await new Promise((r) => setTimeout(r, delay));
      }
      const first = tick !== this.lastTick;
      this.startsInTick = first ? 1 : this.startsInTick + 1;
      this.lastTick = tick;
      if (first) this.opts.onTick();
    });
    this.turns = mine;
    return mine;
  }
}
