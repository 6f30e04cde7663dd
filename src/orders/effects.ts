import type { OutgoingMessage } from "../outgoing/messages.js";

/*
 * What a write of an order brings with it besides the record (store.ts writes them in the same
 * atomic step, write-plan.ts turns them into the script's operations, lifecycle.ts decides them):
 * jobs for the workers, messages for the outgoing queue, jobs taken off or left where they stand.
 */

/** A job (encoded, see jobs.ts) and when it is due, in ms. */
export interface JobSpec {
  member: string;
  dueAt: number;
  /**
   * Due at once, and run by the process that writes it: with a store that holds jobs
   * (`holdJobsMs`), the job is written already leased to the writer, which runs it without a claim
   * (`onHeld`); others take it only if the writer dies. `dueAt` applies to a store that does not.
   */
  runHere?: boolean;
  /**
   * With `runHere`: held this long rather than the store's `holdJobsMs`, when shorter (a paid
   * order's `pay`, held until its first status poll is due: lifecycle.ts).
   */
  holdMs?: number;
}

/** A job written leased to this process: `lease` is its score, the end of the lease. */
export interface HeldJob {
  member: string;
  lease: number;
}

/** A message for the outgoing queue (the bot's own sends: final messages, alerts, card updates). */
export interface MessageSpec {
  message: OutgoingMessage;
}

/** A scheduled job (encoded) that the write takes off the schedule: its moment will not come. */
export interface JobCancel {
  cancel: string;
}

/**
 * A scheduled job (encoded) that the write leaves where it stands, at `at`: nothing is written for
 * it, and this process's worker looks at the schedule then (a pending order's first poll, at the
 * end of the lease its `pay` was held with).
 */
export interface JobStands {
  stands: string;
  at: number;
}

/** What a write of an order brings with it, recorded in the same atomic step. */
export type Effect = JobSpec | MessageSpec | JobCancel | JobStands;
