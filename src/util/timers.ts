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

/** A pause that `wake()` can end early (new work arrived, or the loop is stopping). */
export class Sleeper {
  private wakeUp: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      timer = setTimeout(done, Math.max(0, ms));
      this.wakeUp = done;
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
