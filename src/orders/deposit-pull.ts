import type { Logger } from "../logger.js";

/**
 * The deposit check pulled forward after a charge (`pay`, a quote refused for a paused product):
 * run in this process at once, at most once per `minMs`. A charge inside that window gets one
 * more check when it ends, covering every charge since, so a rush of payments checks the deposit
 * a few times, not once per order.
 *
 * What pulled it forward decides how much it does: after charges alone the deposit only went down,
 * so the check records it and leaves paused products be (`resume: false`); a refused quote may
 * mean a top-up, so a check it pulls forward also resumes what the deposit covers again.
 *
 * It runs here rather than through the job schedule: the periodic check (the `balance` job) stays
 * where it is, and a process that dies before its pulled check leaves the deposit to that one.
 */
export class DepositPull {
  private lastAt = Number.NEGATIVE_INFINITY;
  /** Whether the check at the window's end is to resume paused products (a refusal came in the window). */
  private resumeNext = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly opts: {
      now: () => number;
      minMs: number;
      /** Reads the deposit and acts on it (alerts, paused products). */
      check: (opts: { resume: boolean }) => Promise<void>;
      log: Logger;
    },
  ) {}

  /**
   * After a charge (`after: "charge"`) or a quote refused for the deposit (`"refusal"`): the deposit
   * is checked now, or when the window of the last check ends.
   */
  soon(after: "charge" | "refusal"): void {
    if (this.stopped) return;
    this.resumeNext ||= after === "refusal";
    const t = this.opts.now();
    if (t - this.lastAt >= this.opts.minMs) {
      this.lastAt = t;
      const resume = this.resumeNext;
      this.resumeNext = false;
      const run: Promise<void> = this.opts
        .check({ resume })
        .catch((err) => this.opts.log.warn({ err }, "balance check failed"))
        .finally(() => this.running.delete(run));
      this.running.add(run);
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.soon("charge");
      },
      this.lastAt + this.opts.minMs - t,
    );
    this.timer.unref();
  }

  /** No more checks; the ones under way finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all(this.running);
  }

  /** Pulled checks may start again (after `stop`, when the engine starts again). */
  start(): void {
    this.stopped = false;
  }
}
