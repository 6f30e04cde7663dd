import { type Api, GrammyError } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import type { CustomerRegistry } from "../customers/registry.js";
import type { Logger } from "../logger.js";
import { PRIORITY } from "../outgoing/messages.js";
import { outgoingKeys } from "../outgoing/queue.js";
import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import { OutageLog } from "../util/outage-log.js";
import { BackgroundLoop } from "../util/timers.js";
import { sendContent } from "./content.js";
import type { BroadcastRecord, BroadcastStatus, BroadcastView } from "./types.js";

/**
 * Broadcasts: an operator's message sent to many customers through the outgoing queue, behind
 * everything else the bot sends (priority `bcast`). Layout under the prefix P:
 *
 *   P bc:<id>        hash   record (JSON), status, total, cursor, sent, blocked, failed, finishedAt
 *   P bc:<id>:rcpt   list   the recipients' chat ids, fixed at the start
 *   P bc:<id>:out    hash   chat → p (being sent) | s | b | f: each recipient's outcome
 *   P bc:<id>:fly    zset   mark time → chat, recipients being sent
 *   P bc:<id>:again  list   recipients taken back from the queue by a pause
 *   P bc:<id>:tick   string held while the progress message is fresh (one edit per few seconds)
 *   P bc:active      set    broadcasts running or paused
 *
 * Every process's loop feeds running broadcasts into the queue a window at a time (lua/feed-5.lua),
 * so 2,000 recipients never sit in the queue at once, and settles them (lua/settle-5.lua).
 *
 * At most once: a recipient is marked before the send (lua/mark-4.lua) and the outcome recorded
 * after it. A message offered again (its sender's lease ran out, the process died) finds the mark
 * and is not sent again; a mark left without an outcome counts as failed after a while. A lost
 * message costs a customer an advertisement; a duplicate annoys them and cannot be taken back.
 * A 429 or a Telegram server error removes the mark (nothing was delivered) and the message is
 * offered again.
 */
export interface BroadcastsOptions {
  redis: RedisClient;
  prefix: string;
  api: Api;
  customers: CustomerRegistry;
  log: Logger;
  /** The progress message's text and buttons for a broadcast as it stands. */
  renderProgress(view: BroadcastView): { text: string; keyboard?: InlineKeyboardMarkup };
  /** Wakes the outgoing dispatcher once messages were queued. */
  kick?(): void;
  /** Recipients queued or being sent at once, per broadcast (default 200). */
  window?: number;
  /** Pause of the loop between feeds (default 1 s). */
  tickMs?: number;
  /**
   * Pause of the loop while no broadcast is active (default 10 s): a broadcast begun or resumed in
   * this process wakes it at once; one begun in another process is fed there meanwhile.
   */
  idleTickMs?: number;
  /** The progress message is edited at most this often (default 3 s). */
  progressEveryMs?: number;
  /** A mark older than this without an outcome counts as failed (default 2 min). */
  staleMs?: number;
  now?: () => number;
}

const SCRIPTS = ["feed-5", "mark-4", "outcome-3", "settle-5", "setStatus-4"] as const;

export type StatusChange = { result: "ok" | "same" | "refused"; status: BroadcastStatus | "missing" };

export class Broadcasts extends BackgroundLoop {
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;
  private readonly queueKey: string;
  private readonly records = new Map<string, BroadcastRecord>();
  /** The progress text this process last showed per broadcast: an unchanged one is not edited again. */
  private readonly shown = new Map<string, string>();
  private readonly window: number;
  private readonly now: () => number;

  constructor(private readonly opts: BroadcastsOptions) {
    super();
    this.scripts = defineScripts(opts.redis, new URL("./lua/", import.meta.url), SCRIPTS);
    this.queueKey = outgoingKeys(opts.prefix).queue;
    this.window = Math.max(1, opts.window ?? 200);
    this.now = opts.now ?? Date.now;
  }

  private key(id: string, part?: string): string {
    return `${this.opts.prefix}bc:${id}${part ? `:${part}` : ""}`;
  }

  private get activeKey(): string {
    return `${this.opts.prefix}bc:active`;
  }

  /**
   * Starts a broadcast to `recipients` (in this order). The id is fixed before (an operator's
   * double tap starts it once): false when a broadcast with this id exists already.
   */
  async begin(record: BroadcastRecord, recipients: readonly number[]): Promise<boolean> {
    const created = await this.opts.redis.hsetnx(this.key(record.id), "record", JSON.stringify(record));
    if (created === 0) return false;
    for (let i = 0; i < recipients.length; i += 1000) {
      await this.opts.redis.rpush(this.key(record.id, "rcpt"), ...recipients.slice(i, i + 1000));
    }
    await this.opts.redis
      .multi()
      .hset(this.key(record.id), {
        total: recipients.length,
        cursor: 0,
        sent: 0,
        blocked: 0,
        failed: 0,
        status: "running",
      })
      .sadd(this.activeKey, record.id)
      .exec();
    this.kick();
    return true;
  }

  async get(id: string): Promise<BroadcastView | null> {
    const h = await this.opts.redis.hgetall(this.key(id));
    if (!h?.record || !h.status) return null;
    return {
      record: JSON.parse(h.record) as BroadcastRecord,
      status: h.status as BroadcastStatus,
      total: Number(h.total ?? 0),
      sent: Number(h.sent ?? 0),
      blocked: Number(h.blocked ?? 0),
      failed: Number(h.failed ?? 0),
    };
  }

  /** Each recipient's outcome so far: p (being sent), s, b, f. */
  async outcomes(id: string): Promise<Record<string, string>> {
    return this.opts.redis.hgetall(this.key(id, "out"));
  }

  /** Pauses (`paused`), resumes (`running`) or cancels (`cancelled`) a broadcast. */
  async setStatus(id: string, to: "paused" | "running" | "cancelled"): Promise<StatusChange> {
    const [result, status] = (await this.scripts["setStatus-4"](
      this.key(id),
      this.key(id, "rcpt"),
      this.key(id, "again"),
      this.queueKey,
      to,
      id,
      this.window,
      this.now(),
    )) as [StatusChange["result"], StatusChange["status"]];
    if (to === "running" && result === "ok") this.kick();
    return { result, status };
  }

  /**
   * Sends a broadcast message to one recipient when the outgoing queue gives it its turn. Never
   * throws for a refusal that sending again would not fix: those are recorded as the outcome.
   */
  async deliver(chatId: number, id: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    const record = await this.record(id);
    if (!record) return;
    const marked = await this.scripts["mark-4"](
      this.key(id),
      this.key(id, "out"),
      this.key(id, "fly"),
      this.key(id, "again"),
      chatId,
      this.now(),
    );
    if (marked !== "ok") return;
    let outcome: "s" | "b" | "f" | "u";
    let error: unknown;
    try {
      await sendContent(this.opts.api, chatId, record.content);
      outcome = "s";
    } catch (err) {
      error = err;
      outcome = outcomeOfError(err);
    }
    await this.scripts["outcome-3"](this.key(id), this.key(id, "out"), this.key(id, "fly"), chatId, outcome);
    if (outcome === "b") {
      await this.opts.customers
        .setBlocked(chatId, true)
        .catch((err) => this.opts.log.warn({ err, chatId }, "could not mark a customer as blocked"));
    }
    if (outcome === "u") throw error;
    if (outcome === "f") {
      this.opts.log.warn({ broadcast: id, chatId, reason: describe(error) }, "broadcast message not sent");
    }
  }

  private async record(id: string): Promise<BroadcastRecord | null> {
    const known = this.records.get(id);
    if (known) return known;
    const raw = await this.opts.redis.hget(this.key(id), "record");
    if (!raw) return null;
    const record = JSON.parse(raw) as BroadcastRecord;
    if (this.records.size > 100) this.records.clear();
    this.records.set(id, record);
    return record;
  }

  /** Stops feeding; messages already queued stay there for any process (or the next start). */
  async stop(): Promise<void> {
    await this.endLoop();
  }

  protected async loop(): Promise<void> {
    const tickMs = this.opts.tickMs ?? 1000;
    const idleTickMs = this.opts.idleTickMs ?? 10_000;
    // A Redis outage fails every turn: said when it starts, every 30 s while it lasts, and when it ends.
    const failing = new OutageLog(this.opts.log, "broadcast loop working again");
    while (this.running) {
      let active = 1;
      try {
        active = await this.tick();
        failing.ended();
      } catch (err) {
        failing.failed("broadcast loop failed; trying again", { err }, "error");
      }
      await this.sleeper.sleep(active > 0 ? tickMs : idleTickMs);
    }
  }

  /** One turn of the loop: settle, feed and report every active broadcast; returns how many were active. */
  async tick(): Promise<number> {
    const ids = await this.opts.redis.smembers(this.activeKey);
    for (const id of ids) {
      const settled = (await this.scripts["settle-5"](
        this.key(id),
        this.key(id, "out"),
        this.key(id, "fly"),
        this.key(id, "again"),
        this.activeKey,
        this.now(),
        this.opts.staleMs ?? 120_000,
        id,
      )) as string;
      if (settled === "finished") {
        await this.report(id, true);
        continue;
      }
      if (settled === "running") {
        const [, fed] = (await this.scripts["feed-5"](
          this.key(id),
          this.key(id, "rcpt"),
          this.key(id, "again"),
          this.queueKey,
          this.key(id, "fly"),
          id,
          this.window,
          PRIORITY.bcast * 1e13 + this.now(),
        )) as [string, number];
        if (Number(fed) > 0) this.opts.kick?.();
      }
      await this.report(id, false);
    }
    return ids.length;
  }

  /**
   * Edits the operator's progress message: at most once per few seconds over all processes, and
   * always for the final figures (`final`, which only the process that finished it does).
   */
  async report(id: string, final: boolean): Promise<void> {
    if (!final) {
      const fresh = await this.opts.redis.set(
        this.key(id, "tick"),
        "1",
        "PX",
        this.opts.progressEveryMs ?? 3000,
        "NX",
      );
      if (fresh !== "OK") return;
    }
    const view = await this.get(id);
    if (!view) return;
    const { text, keyboard } = this.opts.renderProgress(view);
    if (final) this.shown.delete(id);
    else if (this.shown.get(id) === text) return;
    else {
      if (this.shown.size > 100) this.shown.clear();
      this.shown.set(id, text);
    }
    const { chatId, messageId } = view.record.progress;
    try {
      await this.opts.api.editMessageText(chatId, messageId, text, {
        parse_mode: "HTML",
        reply_markup: keyboard ?? { inline_keyboard: [] },
      });
    } catch (err) {
      if (/message is not modified/i.test(describe(err))) return;
      this.opts.log.warn({ broadcast: id, reason: describe(err) }, "broadcast progress not shown");
    }
  }
}

/** What a failed send means: blocked (403), try again (429, Telegram's own trouble), else failed. */
function outcomeOfError(err: unknown): "b" | "f" | "u" {
  if (err instanceof GrammyError) {
    if (err.error_code === 403) return "b";
    if (err.error_code === 429 || err.error_code >= 500) return "u";
    return "f";
  }
  // No answer: Telegram may have delivered it. At most once: not sent again.
  return "f";
}

function describe(err: unknown): string {
  return err instanceof GrammyError ? err.description : err instanceof Error ? err.message : String(err);
}
