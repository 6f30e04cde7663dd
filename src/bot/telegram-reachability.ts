import type { Logger } from "../logger.js";

/** While the Bot API stays out of reach, how often the log says so again. */
export const REPORT_EVERY_MS = 30_000;

/**
 * Tells the log that the Bot API cannot be reached (no answer, or a 5xx): at the first failure,
 * then at most once every {@link REPORT_EVERY_MS} while it lasts, and once when it answers again.
 * Every caller retries on its own (the API's outage retries in api.ts, the outgoing queue); without
 * this, a Telegram out of reach would leave the log silent. Only the method and an error code are
 * logged: a request's URL holds the bot token.
 */
export class TelegramReachability {
  private since: number | undefined;
  private failures = 0;
  private reportedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  failed(method: string, reason: string): void {
    const t = this.now();
    this.failures += 1;
    this.since ??= t;
    if (t - this.reportedAt < REPORT_EVERY_MS) return;
    this.reportedAt = t;
    this.logger?.warn(
      { method, reason, failures: this.failures, downMs: t - this.since },
      "Telegram Bot API out of reach; retrying",
    );
  }

  answered(): void {
    if (this.since === undefined) return;
    this.logger?.info(
      { failures: this.failures, downMs: this.now() - this.since },
      "Telegram Bot API reachable again",
    );
    this.since = undefined;
    this.failures = 0;
    this.reportedAt = Number.NEGATIVE_INFINITY;
  }
}

/** An error's code (ECONNREFUSED, UND_ERR_SOCKET…) or its name: never its message, which may hold a URL. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (typeof e?.code === "string") return e.code;
  return typeof e?.name === "string" ? e.name : "error";
}
