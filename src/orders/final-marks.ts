import type { RedisClient } from "../redis/connect.js";
import type { ReplicaWait } from "../redis/replica-wait.js";

/**
 * How long a final message's mark waits for the marks of other messages sent meanwhile, to go in
 * one write: a send group's messages start together and are answered within a few milliseconds.
 */
const MARK_GATHER_MS = 5;

/**
 * The marks of final messages sent (store.ts `markFinalNotified`), written together: a mark waits
 * {@link MARK_GATHER_MS} for the marks of the messages sent meanwhile, and one MSET writes the lot,
 * waited on a replica once, like the final state itself (a failover must not send the message
 * twice). Each writer resumes once its own mark is written.
 */
export class FinalMarks {
  private batch: { args: string[]; written: Promise<void> } | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly replicaWait: ReplicaWait | undefined,
  ) {}

  write(key: string, value: string): Promise<void> {
    let batch = this.batch;
    if (!batch) {
      const args: string[] = [];
      const written = new Promise((r) => setTimeout(r, MARK_GATHER_MS)).then(async () => {
        this.batch = undefined;
        await this.redis.mset(...args);
        await this.replicaWait?.after(args[0]!);
      });
      batch = { args, written };
      this.batch = batch;
    }
    batch.args.push(key, value);
    return batch.written;
  }
}
