import type { Logger } from "../logger.js";

/** Small timing helpers shared by the loops and shutdown paths. */

/** Waits until every promise has settled or `timeoutMs` has passed, whichever comes first. */
export async function settleWithin(promises: Iterable<Promise<unknown>>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * A pause that `wake()` can end early (new work arrived, or the loop is stopping). A wake that
 * comes while nobody sleeps (the loop is busy looking for work) is kept, and ends the next sleep
 * at once: the look under way may have missed what the wake was about. `forget()` drops a kept
 * wake when a look starts, which sees all there was before it.
 */
export class Sleeper {
  private wakeUp: (() => void) | undefined;
  private woken = false;

  /** Resolves after `ms`, or sooner when woken; true when it was woken. */
  sleep(ms: number): Promise<boolean> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (woken: boolean) => {
        clearTimeout(timer);
        if (this.wakeUp === wake) this.wakeUp = undefined;
        resolve(woken);
      };
      const wake = () => done(true);
      timer = setTimeout(() => done(false), Math.max(0, ms));
      this.wakeUp = wake;
    });
  }

  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** A look for work starts: what a wake before now was about, it sees. */
  forget(): void {
    this.woken = false;
  }
}

/**
 * A loop that runs in the background of a process until stopped, sleeping while it has nothing
 * to do; `kick()` wakes it early. The job worker and the outgoing dispatcher are such loops.
 */
export abstract class BackgroundLoop {
  protected running = false;
  protected readonly sleeper = new Sleeper();
  private loopDone: Promise<void> = Promise.resolve();

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** New work arrived: look now rather than at the end of the current sleep. */
  kick(): void {
    this.sleeper.wake();
  }

  /** Ends the loop and waits for its current turn; false when it was not running. */
  protected async endLoop(): Promise<boolean> {
    if (!this.running) return false;
    this.running = false;
    this.kick();
    await this.loopDone;
    return true;
  }

  protected abstract loop(): Promise<void>;
}

/** `p`, or `value` when `p` has not settled within `ms`. */
export function resolveWithin<T>(p: Promise<T>, ms: number, value: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Tries `attempt` in the background until it succeeds: again `firstDelayMs` after a failure, then
 * twice as long after each next one, up to `maxDelayMs`. For what a start-up must get done even when
 * Redis is away then. The first failure is logged (warn, `messages.failed`), and so is the success
 * that follows failures (info, `messages.done`). The returned function stops the tries.
 */
export function retryUntilDone(
  attempt: () => Promise<unknown>,
  log: Logger,
  messages: { failed: string; done: string },
  opts: { firstDelayMs?: number; maxDelayMs?: number } = {},
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let delayMs = opts.firstDelayMs ?? 1000;
  const run = () => {
    attempt().then(
      () => {
        if (failures > 0 && !stopped) log.info({ failures }, messages.done);
      },
      (err) => {
        if (stopped) return;
        failures += 1;
        if (failures === 1) log.warn({ err }, messages.failed);
        timer = setTimeout(run, delayMs);
        timer.unref();
        delayMs = Math.min(delayMs * 2, opts.maxDelayMs ?? 10_000);
      },
    );
  };
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
