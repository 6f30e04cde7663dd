/**
 * Preloaded into the bot process by the rush benchmark (`node --import <this, compiled> dist/main.js`):
 * counts the commands the process's ioredis clients send and the round trips they take (a
 * pipeline or MULTI block is written at once: one round trip for all its commands). Redis's own
 * INFO commandstats cannot tell these apart from the commands Lua scripts run inside Redis.
 * The parent asks over the IPC channel ("redis-probe?") and gets the counts back. Nothing of the
 * bot is changed; counting costs a few increments per command.
 */
import { Redis } from "ioredis";

export interface RedisProbeCounts {
  /** Commands sent, pipelined ones included. */
  commands: number;
  /** Writes to Redis that wait for an answer: single commands plus one per pipeline. */
  roundTrips: number;
  /**
   * Commands sent by name; a script call as `evalsha <sha1>` (bench/rush.ts names the scripts), a
   * ZRANGE with the last part of its key (`zrange jobs`, `zrange queue`, `zrange leases`: the only
   * ZRANGEs the bot sends itself are its job worker's and dispatcher's idle looks).
   */
  byCommand: Record<string, number>;
}

const counts: RedisProbeCounts = { commands: 0, roundTrips: 0, byCommand: {} };
const pipelines = new WeakSet<object>();

type SendCommand = (
  this: Redis,
  command: unknown,
  stream?: { isPipeline?: boolean },
  node?: unknown,
) => unknown;
const proto = Redis.prototype as unknown as { sendCommand: SendCommand };
const original = proto.sendCommand;
proto.sendCommand = function (this: Redis, command, stream, node) {
  counts.commands += 1;
  const c = command as { name?: string; args?: unknown[] };
  const name =
    c.name === "evalsha"
      ? `evalsha ${String(c.args?.[0])}`
      : c.name === "zrange"
        ? `zrange ${String(c.args?.[0]).split(":").pop()}`
        : String(c.name);
  counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
  if (stream?.isPipeline) {
    if (!pipelines.has(stream)) {
      pipelines.add(stream);
      counts.roundTrips += 1;
    }
  } else {
    counts.roundTrips += 1;
  }
  return original.call(this, command, stream, node);
};

if (process.send) {
  process.on("message", (m) => {
    if (m === "redis-probe?")
      process.send?.({ redisProbe: { ...counts, byCommand: { ...counts.byCommand } } });
  });
  // The channel must not keep the bot alive once it has stopped.
  (process.channel as { unref?: () => void } | undefined)?.unref?.();
}
