import type { Update } from "grammy/types";
import type { Logger } from "../logger.js";
import type { RedisClient } from "../redis/connect.js";
import { defineScripts, type ScriptCall } from "../redis/scripts.js";
import { BackgroundLoop, resolveWithin, settleWithin } from "../util/timers.js";
import { INTAKE_TIMINGS, type IntakeTimings, intakeKeys, Lease } from "./intake-lease.js";

export { type IntakeTimings, intakeKeys };

/** What handles the updates: the bot (grammY's `Bot`), initialised. */
export interface UpdateReceiver {
  handleUpdate(update: Update): Promise<void>;
}

/**
 * What became of an update the webhook took: `handled` (done), `recorded` (still being handled,
 * and safe in Redis should this process die), `refused` (neither: Telegram must send it again).
 */
export type IntakeOutcome = "handled" | "recorded" | "refused";

/** How long a chat's update waits before looking again for an older one another process holds. */
const BACKLOG_POLL_MS = 100;
const CLAIM_BATCH = 20;

/** The chat whose updates must be handled in order; pre-checkout queries have none and never wait. */
export function chatOf(update: Update): string | undefined {
  const id =
    update.message?.chat.id ?? update.callback_query?.message?.chat.id ?? update.my_chat_member?.chat.id;
  return id === undefined ? undefined : String(id);
}

const SCRIPTS = [
  "recordUpdate-3",
  "renewUpdate-1",
  "finishUpdate-3",
  "claimUpdates-3",
  "chatBacklog-3",
] as const;

/** A recorded update taken over from a process that died. */
interface Taken {
  update: Update;
  lease: Lease;
  chat: string | undefined;
}

/**
 * Takes the updates Telegram posts to the webhook so that none is lost: each is handled while
 * Telegram waits for the answer, and answered once handled; one that takes longer than the
 * budget is recorded in Redis first, leased to this process, and answered then. A process that
 * dies stops renewing its leases; every process looks for recorded updates whose lease ran out
 * and handles them. Updates of one chat are handled in the order they came, also across
 * processes: a chat's update waits for the older recorded updates of that chat.
 */
export class WebhookIntake extends BackgroundLoop {
  readonly timings: IntakeTimings;
  readonly keys: ReturnType<typeof intakeKeys>;
  readonly scripts: Record<
    "recordUpdate" | "renewUpdate" | "finishUpdate" | "claimUpdates" | "chatBacklog",
    ScriptCall
  >;
  readonly log: Logger;
  private accepting = false;
  /** The tail of each chat's queue of updates in this process. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Every update in progress here. */
  private readonly active = new Set<Promise<unknown>>();
  /** The updates taken from the webhook and still in progress, by update_id. */
  private readonly inProgress = new Map<number, Promise<void>>();
  /** Recorded updates whose lease this process holds. */
  private readonly leases = new Map<number, Lease>();
  /** Recorded updates this process took over from another (that died) and has not handled yet. */
  private readonly taken = new Map<number, Taken>();

  constructor(deps: {
    redis: RedisClient;
    prefix: string;
    receiver: UpdateReceiver;
    logger: Logger;
    timings?: Partial<IntakeTimings>;
  }) {
    super();
    this.receiver = deps.receiver;
    this.timings = { ...INTAKE_TIMINGS, ...deps.timings };
    this.keys = intakeKeys(deps.prefix);
    this.log = deps.logger.child({ component: "webhook-intake" });
    const calls = defineScripts(deps.redis, new URL("./lua/", import.meta.url), SCRIPTS);
    this.scripts = {
      recordUpdate: calls["recordUpdate-3"],
      renewUpdate: calls["renewUpdate-1"],
      finishUpdate: calls["finishUpdate-3"],
      claimUpdates: calls["claimUpdates-3"],
      chatBacklog: calls["chatBacklog-3"],
    };
  }

  private readonly receiver: UpdateReceiver;

  /** True between start() and stop(): updates are taken; otherwise they are refused. */
  get isAccepting(): boolean {
    return this.accepting;
  }

  /** Starts taking updates and looking for recorded ones another process left behind. */
  override start(): void {
    this.accepting = true;
    super.start();
  }

  /**
   * Stops taking updates (they are refused from now on), waits for those in progress (up to the
   * grace period) and hands the recorded ones still unfinished back to the other processes.
   */
  async stop(): Promise<void> {
    this.accepting = false;
    await this.endLoop();
    if (this.active.size > 0) await settleWithin([...this.active], this.timings.stopGraceMs);
    await Promise.allSettled([...this.leases.values()].map((l) => l.release()));
  }

  /** Handles (or records) one update; the webhook answers 200 unless it was refused. */
  async take(update: Update): Promise<IntakeOutcome> {
    if (!this.accepting) return "refused";
    const id = update.update_id;
    // Telegram sends an update again after a 503: one still in progress here is not started twice.
    let work = this.inProgress.get(id);
    if (!work) {
      const started = this.enqueue(update);
      work = started;
      this.inProgress.set(id, started);
      void started.catch(() => undefined).finally(() => this.inProgress.delete(id));
    }
    const settled = await resolveWithin(
      work.then(
        () => "handled" as const,
        () => "refused" as const,
      ),
      this.timings.handleBudgetMs,
      "late" as const,
    );
    if (settled !== "late") return settled;
    if (this.leases.has(id)) return "recorded";
    // Still in progress: recorded before the 200, so the update outlives this process.
    const end = Date.now() + this.timings.leaseMs;
    const [updates, chats, leases] = this.keys;
    const recording = this.scripts
      .recordUpdate(updates, chats, leases, id, JSON.stringify(update), chatOf(update) ?? "", end)
      .then(
        () => true,
        () => false,
      );
    const recorded = await resolveWithin(recording, this.timings.recordTimeoutMs, false);
    const inProgress = work;
    const keep = () => {
      const lease = new Lease(this, id, end);
      this.leases.set(id, lease);
      void this.settleLease(lease, inProgress);
    };
    if (recorded) {
      keep();
      return "recorded";
    }
    // Refused; should the record land late all the same, it is looked after like any other.
    void recording.then((late) => {
      if (late) keep();
    });
    return "refused";
  }

  /** Finishes a recorded update once handled; hands it back when it could not be handled here. */
  private async settleLease(lease: Lease, work: Promise<void>): Promise<void> {
    const handled = await work.then(
      () => true,
      () => false,
    );
    try {
      if (handled) await lease.finish();
      else await lease.release();
    } catch (err) {
      this.log.warn({ err, update_id: lease.updateId }, "could not settle a recorded update");
    } finally {
      this.leases.delete(lease.updateId);
    }
  }

  /**
   * Queues an update behind the earlier ones of its chat in this process; it rejects when the
   * update could not be handled (Redis unreachable before the handler ran).
   */
  private enqueue(update: Update): Promise<void> {
    return this.inChatOrder(chatOf(update), update.update_id, () => this.handle(update));
  }

  /**
   * Runs `work` for update `updateId` once the chat's earlier updates are done: those queued here
   * before it and the older ones recorded by any process.
   */
  private inChatOrder(chat: string | undefined, updateId: number, work: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (chat !== undefined) await this.clearBacklog(chat, updateId);
      await work();
    };
    let done: Promise<void>;
    if (chat === undefined) {
      done = run();
    } else {
      const before = this.chains.get(chat) ?? Promise.resolve();
      done = before.then(run, run);
      const tail = done.catch(() => undefined);
      this.chains.set(chat, tail);
      void tail.then(() => {
        if (this.chains.get(chat) === tail) this.chains.delete(chat);
      });
    }
    this.active.add(done);
    void done.catch(() => undefined).finally(() => this.active.delete(done));
    return done;
  }

  /** Hands an update to the bot; a handler's error is logged (the bot's error boundary told the customer). */
  private async handle(update: Update): Promise<void> {
    try {
      await this.receiver.handleUpdate(update);
    } catch (err) {
      this.log.error({ err, update_id: update.update_id }, "update handler failed");
    }
  }

  /**
   * Waits until no older recorded update of the chat is left: those this process took over are
   * handled first, as are those whose lease ran out (their process died); those another process
   * holds are waited for.
   */
  private async clearBacklog(chat: string, updateId: number): Promise<void> {
    const [updates, chats, leases] = this.keys;
    for (;;) {
      const older = [...this.taken.values()]
        .filter((t) => t.chat === chat && t.update.update_id < updateId)
        .sort((a, b) => a.update.update_id - b.update.update_id);
      for (const t of older) await this.runTaken(t.update.update_id);
      const now = Date.now();
      const [live, claimed] = (await this.scripts.chatBacklog(
        updates,
        chats,
        leases,
        chat,
        updateId,
        now,
        now + this.timings.leaseMs,
      )) as [string[], string[]];
      this.adopt(claimed, now + this.timings.leaseMs);
      // Claimed just now, or meanwhile by this process's own scan: handled at the top of the loop.
      const here = claimed.length > 0 || live.some((id) => this.taken.has(Number(id)));
      const elsewhere = live.filter((id) => !this.leases.has(Number(id)));
      if (!here && elsewhere.length === 0) return;
      if (!here) await new Promise((r) => setTimeout(r, BACKLOG_POLL_MS));
    }
  }

  /** Keeps updates just claimed as taken over (leased here, not yet handled); returns them oldest first. */
  private adopt(claimed: string[], end: number): Taken[] {
    const out: Taken[] = [];
    for (let i = 0; i + 1 < claimed.length; i += 2) {
      const id = Number(claimed[i]);
      const lease = new Lease(this, id, end);
      this.leases.set(id, lease);
      const update = JSON.parse(claimed[i + 1] ?? "{}") as Update;
      const taken = { update, lease, chat: chatOf(update) };
      this.taken.set(id, taken);
      out.push(taken);
    }
    if (out.length > 0)
      this.log.info({ update_ids: out.map((u) => u.lease.updateId) }, "taking over recorded updates");
    return out.sort((a, b) => a.update.update_id - b.update.update_id);
  }

  /** Handles an update taken over, unless an earlier one of its chat did already; then forgets it. */
  private async runTaken(updateId: number): Promise<void> {
    const t = this.taken.get(updateId);
    if (!t) return;
    this.taken.delete(updateId);
    await this.handle(t.update);
    try {
      await t.lease.finish();
    } catch (err) {
      this.log.warn({ err, update_id: updateId }, "could not forget a handled update");
    } finally {
      this.leases.delete(updateId);
    }
  }

  /** An update taken over that could not be handled here goes back to every process at once. */
  private async giveBack(updateId: number): Promise<void> {
    const t = this.taken.get(updateId);
    if (!t) return;
    this.taken.delete(updateId);
    this.leases.delete(updateId);
    await t.lease.release().catch(() => undefined);
  }

  /** Looks for recorded updates whose lease ran out and handles them, in their chats' order. */
  protected async loop(): Promise<void> {
    while (this.running) {
      try {
        const now = Date.now();
        const [updates, chats, leases] = this.keys;
        const claimed = (await this.scripts.claimUpdates(
          updates,
          chats,
          leases,
          now,
          CLAIM_BATCH,
          now + this.timings.leaseMs,
        )) as string[];
        for (const t of this.adopt(claimed, now + this.timings.leaseMs)) {
          const id = t.update.update_id;
          void this.inChatOrder(t.chat, id, () => this.runTaken(id)).catch(() => this.giveBack(id));
        }
      } catch (err) {
        this.log.warn({ err }, "could not look for recorded updates");
      }
      if (this.running) await this.sleeper.sleep(this.timings.scanMs);
    }
  }
}
