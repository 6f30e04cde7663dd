import type { Logger } from "../logger.js";

/** While a problem lasts, how often the log says so again. */
export const REPORT_EVERY_MS = 30_000;

/**
 * A problem that lasts — a Redis connection down, a loop that cannot read Redis — told to the log
 * once when it starts, at most once every {@link REPORT_EVERY_MS} while it lasts (with how long so
 * far, `downMs`, and how many failures), and once when it ends. Whoever has the problem retries on
 * its own and reports every failure here; without this a Redis outage writes a few lines a second.
 */
export class OutageLog {
  private since: number | undefined;
  private failures = 0;
  private reportedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger,
    /** The line logged when the problem ends. */
    private readonly endMessage: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a problem is under way. */
  get down(): boolean {
    return this.since !== undefined;
  }

  /** One more failure: logged (at `level`) when it starts the problem or the last line is old enough. */
  failed(message: string, fields: Record<string, unknown> = {}, level: "warn" | "error" = "warn"): void {
    const t = this.now();
    this.failures += 1;
    this.since ??= t;
    if (t - this.reportedAt < REPORT_EVERY_MS) return;
    this.reportedAt = t;
    this.logger[level]({ ...fields, failures: this.failures, downMs: t - this.since }, message);
  }

  /** It works again: logged once when a problem was under way. */
  ended(fields: Record<string, unknown> = {}): void {
    if (this.since === undefined) return;
    this.logger.info(
      { ...fields, failures: this.failures, downMs: this.now() - this.since },
      this.endMessage,
    );
    this.since = undefined;
    this.failures = 0;
    this.reportedAt = Number.NEGATIVE_INFINITY;
  }
}

/**
 * Something that may come again and again from outside (a request with a wrong signature): the
 * first is logged, then at most one line every {@link REPORT_EVERY_MS} with how many came since
 * the last line (`repeats`), so that anyone who can reach the listener cannot flood the log.
 */
export class RepeatedLog {
  private repeats = 0;
  private reportedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** One more: logged (warn) when the last line is old enough. */
  seen(fields: Record<string, unknown> = {}): void {
    const t = this.now();
    this.repeats += 1;
    if (t - this.reportedAt < REPORT_EVERY_MS) return;
    this.logger.warn({ ...fields, repeats: this.repeats }, this.message);
    this.reportedAt = t;
    this.repeats = 0;
  }
}
