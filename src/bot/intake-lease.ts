import type { Logger } from "../logger.js";
import type { ScriptCall } from "../redis/scripts.js";

/*
 * The webhook intake's recorded updates (webhook-intake.ts): their timings, their place in Redis,
 * and the lease a process holds on one while it handles it.
 */

/** Timings of the intake; the defaults suit Telegram, tests shorten them. */
export interface IntakeTimings {
  /** How long an update may take before it is recorded and answered anyway. */
  handleBudgetMs: number;
  /** How long recording may take before the update is refused instead. */
  recordTimeoutMs: number;
  /** A recorded update's lease; renewed at a third of it while the update is handled. */
  leaseMs: number;
  /** How often recorded updates whose lease ran out are looked for. */
  scanMs: number;
  /** How long stopping waits for updates in progress. */
  stopGraceMs: number;
}

export const INTAKE_TIMINGS: IntakeTimings = {
  handleBudgetMs: 3_000,
  recordTimeoutMs: 2_000,
  leaseMs: 10_000,
  scanMs: 1_000,
  stopGraceMs: 10_000,
};

/**
 * The intake's Redis layout (one hash tag, so its scripts work on a Redis Cluster):
 *
 *   P {webhook}:updates  hash update_id → the update (JSON), for updates recorded while being handled
 *   P {webhook}:chats    hash update_id → chat id of each recorded update that has one
 *   P {webhook}:leases   zset update_id → lease end (ms); the process holding the lease handles it
 */
export function intakeKeys(prefix: string): [updates: string, chats: string, leases: string] {
  return [`${prefix}{webhook}:updates`, `${prefix}{webhook}:chats`, `${prefix}{webhook}:leases`];
}

/** What a lease needs of the intake that holds it (webhook-intake.ts). */
export interface LeaseOwner {
  timings: IntakeTimings;
  /** The recorded updates, their chats' queues, the leases (intakeKeys). */
  keys: readonly [updates: string, chats: string, leases: string];
  scripts: Record<"renewUpdate" | "finishUpdate", ScriptCall>;
  log: Logger;
}

/** A recorded update this process holds the lease of, renewed until it is finished or handed back. */
export class Lease {
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  constructor(
    private readonly intake: LeaseOwner,
    readonly updateId: number,
    private end: number,
  ) {
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.renew(), this.intake.timings.leaseMs / 3);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const next = Date.now() + this.intake.timings.leaseMs;
    try {
      const moved = await this.intake.scripts.renewUpdate(this.intake.keys[2], this.updateId, this.end, next);
      if (moved === 1) this.end = next;
      else this.lost = true;
    } catch (err) {
      // Redis away for a moment: try again at the next tick; the lease may run out meanwhile.
      this.intake.log.warn({ err, update_id: this.updateId }, "could not renew a recorded update's lease");
    }
    if (!this.lost && this.timer) this.schedule();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The update was handled: it is forgotten. */
  async finish(): Promise<void> {
    this.stop();
    const [updates, chats, leases] = this.intake.keys;
    await this.intake.scripts.finishUpdate(updates, chats, leases, this.updateId);
  }

  /** The update was not handled here: its lease ends now, so any process takes it at once. */
  async release(): Promise<void> {
    this.stop();
    if (!this.lost) await this.intake.scripts.renewUpdate(this.intake.keys[2], this.updateId, this.end, 0);
  }
}
