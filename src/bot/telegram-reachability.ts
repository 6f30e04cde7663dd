import type { Logger } from "../logger.js";
import { OutageLog } from "../util/outage-log.js";

/**
 * Tells the log that the Bot API cannot be reached (no answer, or a 5xx): at the first failure,
 * then at most every 30 s while it lasts, and once when it answers again (util/outage-log.ts).
 * Every caller retries on its own (the API's outage retries in api.ts, the outgoing queue); without
 * this, a Telegram out of reach would leave the log silent. Only the method and an error code are
 * logged: a request's URL holds the bot token.
 */
export class TelegramReachability {
  private readonly outage: OutageLog | undefined;

  constructor(logger: Logger | undefined, now: () => number = Date.now) {
    this.outage = logger && new OutageLog(logger, "Telegram Bot API reachable again", now);
  }

  failed(method: string, reason: string): void {
    this.outage?.failed("Telegram Bot API out of reach; retrying", { method, reason });
  }

  /** Called on every answer: nothing to do unless an outage was under way. */
  answered(): void {
    if (this.outage?.down) this.outage.ended();
  }
}

/** An error's code (ECONNREFUSED, UND_ERR_SOCKET…) or its name: never its message, which may hold a URL. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (typeof e?.code === "string") return e.code;
  return typeof e?.name === "string" ? e.name : "error";
}
