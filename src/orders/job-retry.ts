import type { EngineContext } from "./context.js";

/** A job's answer "run me again at `at`" (ms); anything else means done. */
export class Retry {
  constructor(readonly at: number) {}
}

/**
 * A job's answer "done, and my schedule entry is no longer mine to finish": the order write that
 * ended this run took it off or moved it on (an order's step, from `pay` to its first poll), or
 * another lease holds it now. The worker leaves the entry as it stands, which saves a script call.
 */
export const TAKEN_OFF = Symbol("the schedule entry is not this run's to finish");

const MAX_BACKOFF_MS = 60_000;

/** Backoff for a job that keeps waiting: a quarter of the time spent so far, between `min` and 60 s. */
export function backoff(ctx: Pick<EngineContext, "now">, since: number | undefined, min: number): Retry {
  const now = ctx.now();
  const elapsed = now - (since ?? now);
  return new Retry(now + Math.min(MAX_BACKOFF_MS, Math.max(min, elapsed / 4)));
}
