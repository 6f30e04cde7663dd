import type { EngineContext } from "./context.js";

/** A job's answer "run me again at `at`" (ms); anything else means done. */
export class Retry {
  constructor(readonly at: number) {}
}

/**
 * A job's answer "done, and the order write that finished me took me off the schedule already"
 * (the write's `cancel` effect): the worker has nothing left to finish, which saves a script call.
 */
export const TAKEN_OFF = Symbol("taken off the schedule by the job's own write");

const MAX_BACKOFF_MS = 60_000;

/** Backoff for a job that keeps waiting: a quarter of the time spent so far, between `min` and 60 s. */
export function backoff(ctx: Pick<EngineContext, "now">, since: number | undefined, min: number): Retry {
  const now = ctx.now();
  const elapsed = now - (since ?? now);
  return new Retry(now + Math.min(MAX_BACKOFF_MS, Math.max(min, elapsed / 4)));
}
