import type { Logger } from "../logger.js";
import type { RedisClient } from "./connect.js";

/**
 * Waits until a write has reached a replica (`WAIT 1 <timeout>`), for the writes a failover must
 * not lose: Redis replicates asynchronously, so a primary that dies right after answering may take
 * its last writes with it, and the replica promoted by Sentinel (or the Cluster) never saw them.
 *
 * WAIT covers every earlier write of the connection it is sent on, so it goes in a pipeline
 * with a command on the written key: on a Cluster that routes it to the primary that took the write.
 * When the primary has no replica (a Cluster without replicas, or the new primary right after a
 * failover, before the old one comes back as its replica) there is nothing to wait for and
 * writes go on at once; the replica count is looked up again every few seconds. A replica that
 * stops answering costs one timed-out wait, then writes go on without waiting until the next look.
 */
export class ReplicaWait {
  private replicas = -1;
  private checkedAt = 0;
  private warnedAt = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Logger,
    private readonly opts: { timeoutMs?: number; recheckMs?: number; now?: () => number } = {},
  ) {}

  /** Resolves once the writes made so far through `key`'s primary are on a replica (or the wait timed out). */
  async after(key: string): Promise<void> {
    const now = (this.opts.now ?? Date.now)();
    if (this.replicas < 0 || now - this.checkedAt >= (this.opts.recheckMs ?? 5000)) {
      const res = await this.redis.pipeline().exists(key).info("replication").exec();
      const info = res?.[1]?.[1];
      const m = typeof info === "string" ? /connected_slaves:(\d+)/.exec(info) : null;
      this.replicas = m ? Number(m[1]) : 0;
      this.checkedAt = now;
    }
    if (this.replicas === 0) return;
    const timeoutMs = this.opts.timeoutMs ?? 1000;
    const res = await this.redis.pipeline().exists(key).wait(1, timeoutMs).exec();
    const acked = Number(res?.[1]?.[1] ?? 0);
    if (acked >= 1) return;
    // No replica answered in time. WAIT holds up every command on the connection, so the next
    // writes do not wait for it again: the replica count is looked up afresh after `recheckMs`.
    this.replicas = 0;
    this.checkedAt = now;
    if (now - this.warnedAt > 10_000) {
      this.warnedAt = now;
      this.logger.warn({ timeoutMs }, "no Redis replica acknowledged a write in time; continuing without");
    }
  }
}
