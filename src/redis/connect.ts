import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { OutageLog } from "../util/outage-log.js";

/**
 * The bot's Redis connection, made in this one place from the configuration: a plain Redis
 * (REDIS_URL), a primary found through Sentinels (REDIS_SENTINELS, REDIS_SENTINEL_NAME) or a Redis
 * Cluster (REDIS_CLUSTER_NODES). Everything else takes a {@link RedisClient} and uses only what
 * all three offer: single-key commands, Lua scripts whose keys share one slot, MULTI and
 * pipelines within one slot, and pub/sub on a {@link subscriberOf} connection.
 *
 * Key layout in cluster mode. A Lua script or MULTI may only touch keys of one slot. An order's
 * write touches its record, the indexes it moves between, the job schedule and the outgoing
 * queue at once; the job and queue scripts touch their own several keys. So every key under
 * `config.redisPrefix` carries one hash tag (`{shopbot}:order:…`, `{shopbot}:jobs`, …) and lives
 * in one slot, on one primary: the orders' data stays small (an order is a few KB) and those
 * writes stay atomic. What is read one key at a time and makes up most of the keys — a chat's
 * session, rate-limit counters — uses `config.redisChatPrefix` without the tag and spreads over
 * the cluster. Nothing scans the keyspace (`KEYS`/`SCAN`): lists come from index zsets.
 */
export type RedisClient = Redis | Cluster;

/**
 * A connection that has sent a command and hears nothing back for this long is taken for dead
 * (a hung or frozen Redis keeps the socket open and answers nothing): it is dropped and made
 * again, which under Sentinel asks the Sentinels for the primary anew. Longer than the 1 s a
 * `WAIT` (src/redis/replica-wait.ts) may hold up a connection's answers.
 */
const NOT_ANSWERING_MS = 3000;

/** How often a connection is looked at: one that heard nothing since the last look is sent a PING. */
const WATCH_EVERY_MS = 1000;

/** Shared settings: fail commands quickly while Redis is away so customers hear "try again shortly". */
const COMMON: RedisOptions = {
  maxRetriesPerRequest: 2,
  retryStrategy: (times) => Math.min(times * 200, 2000),
  socketTimeout: NOT_ANSWERING_MS,
  // Commands issued in the same tick go out in one socket write: in a rush most of the Redis
  // client's CPU was one write system call per command.
  enableAutoPipelining: true,
};

export function connectRedis(config: Config, logger: Logger, connectionName = "shopbot"): RedisClient {
  const password = config.redisPassword;
  let client: RedisClient;
  if (config.redisClusterNodes.length > 0) {
    client = new Cluster(config.redisClusterNodes, {
      // Writes and the reads that decide them go to the primaries: a replica may lag behind.
      scaleReads: "master",
      enableAutoPipelining: true,
      redisOptions: { ...COMMON, connectionName, ...(password ? { password } : {}) },
      clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    });
  } else if (config.redisSentinels.length > 0) {
    client = new Redis({
      ...COMMON,
      connectionName,
      sentinels: config.redisSentinels,
      name: config.redisSentinelName,
      role: "master",
      ...(password ? { password, sentinelPassword: password } : {}),
      // A primary that dies closes the connection, and the reconnect asks the Sentinels for the new
      // one; one that hangs is dropped after NOT_ANSWERING_MS without an answer, with the same
      // effect. A primary demoted while it still runs answers writes with READONLY: reconnect then too.
      // (ioredis' `failoverDetector` is left off: when its signal lands while a reconnect is under
      // way, the client gives up for good and the bot would never reach Redis again.)
      reconnectOnError: (err) => (err.message.startsWith("READONLY") ? 2 : false),
      sentinelRetryStrategy: (times) => Math.min(times * 200, 2000),
    });
  } else {
    client = new Redis(config.redisUrl, {
      ...COMMON,
      connectionName,
      ...(password ? { password } : {}),
    });
  }
  reportOutages(client, logger, connectionName);
  watchLiveness(client);
  return client;
}

/**
 * Keeps a command in flight on a quiet connection, so that `socketTimeout` notices a Redis that
 * stopped answering even when the bot has nothing to ask it (a subscriber, a quiet shop): a PING
 * when nothing was read since the last look. A busy connection is sent nothing extra. A Cluster's
 * node connections have the same `socketTimeout` but are not sent PINGs.
 */
function watchLiveness(client: RedisClient): void {
  if (client instanceof Cluster) return;
  let read = -1;
  const timer = setInterval(() => {
    if (client.status !== "ready") {
      read = -1;
      return;
    }
    const now = client.stream.bytesRead;
    if (now !== read) {
      read = now;
      return;
    }
    client.ping().catch(() => {});
  }, WATCH_EVERY_MS);
  timer.unref();
  client.once("end", () => clearInterval(timer));
}

/**
 * Tells the log about a connection that is down: once when it goes (an error, or a close that
 * starts a reconnect), at most every 30 s while it stays down, and once when it is ready again.
 * ioredis retries on its own every 2 s at most and reports each failed attempt as an error.
 */
function reportOutages(client: RedisClient, logger: Logger, connection: string): void {
  const outage = new OutageLog(logger, "Redis connection back");
  client.on("error", (err: Error) =>
    outage.failed(
      // ioredis' own words for a socket that heard nothing for NOT_ANSWERING_MS.
      err.message.startsWith("Socket timeout")
        ? "Redis not answering; reconnecting"
        : "Redis connection down; reconnecting",
      { connection, err: { message: err.message } },
    ),
  );
  client.on("reconnecting", () => outage.failed("Redis connection down; reconnecting", { connection }));
  client.on("ready", () => outage.ended({ connection }));
}

/** Whether writes on `redis` are replicated (Sentinel or Cluster), so waiting for a replica makes sense. */
export function isReplicated(config: Config): boolean {
  return config.redisClusterNodes.length > 0 || config.redisSentinels.length > 0;
}

/**
 * A second connection for SUBSCRIBE (a subscribed connection takes no other commands). On a
 * Cluster, PUBLISH reaches every node, so subscribing through any one of them hears it.
 */
export function subscriberOf(redis: RedisClient, connectionName: string, logger: Logger): RedisClient {
  const sub =
    redis instanceof Cluster
      ? redis.duplicate(undefined, {
          enableAutoPipelining: false,
          redisOptions: { ...redis.options.redisOptions, connectionName },
        })
      : redis.duplicate({ connectionName, enableAutoPipelining: false });
  reportOutages(sub, logger, connectionName);
  watchLiveness(sub);
  return sub;
}
