import type { Logger } from "../logger.js";
import type { RedisClient } from "../redis/connect.js";
import { retryUntilDone } from "../util/timers.js";
import type { OrderKeys } from "./keys.js";
import type { OrderLists } from "./order-lists.js";

/**
 * What earlier versions left in Redis, brought up to the current layout (keys.ts) at start-up.
 * Each step is idempotent, so every process may run it; none holds up the start (a record of the
 * earlier layout is moved when a read misses it, order-lists.ts).
 */

/** Orders of the earlier record layout moved per script call. */
const MOVE_CHUNK = 200;

/**
 * Runs every step in the background, logging what it did; a step that fails (Redis away at
 * start-up) is tried again until it is done. Returns what stops the tries.
 */
export function migrateAtStart(redis: RedisClient, store: OrderLists, log: Logger): Array<() => void> {
  return [
    retryUntilDone(() => migrateIndexes(redis, store.keys), log, {
      failed: "could not bring the order indexes up to date; trying again",
      done: "order indexes brought up to date",
    }),
    retryUntilDone(
      async () => {
        const moved = await migrateRecords(redis, store);
        if (moved > 0) log.info({ moved }, "order records moved to the current layout");
      },
      log,
      {
        failed: "could not move the order records to the current layout; trying again",
        done: "order records are in the current layout",
      },
    ),
  ];
}

/**
 * Orders paid or pending used to have one index per state (draft and quoted too); they are now in
 * `idx:inflight`, and unpaid quotes in none. One MULTI.
 */
export async function migrateIndexes(redis: RedisClient, keys: OrderKeys): Promise<void> {
  const old = (s: string) => `${keys.prefix}idx:state:${s}`;
  const replies = await redis
    .multi()
    .zunionstore(keys.inflight, 3, keys.inflight, old("paid"), old("pending"), "AGGREGATE", "MIN")
    .del(old("draft"), old("quoted"), old("paid"), old("pending"))
    .exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (failed) throw failed;
}

/**
 * Moves every order record of the earlier layout (a hash at `order:<id>`) to the current one
 * (record.ts), walking `idx:all`, which lists every order in Redis; done once (`layout:orders`).
 * A record written the old way after that (a process of the old version still running) is moved
 * when it is first read. Returns how many were moved.
 */
export async function migrateRecords(redis: RedisClient, store: OrderLists): Promise<number> {
  const { keys } = store;
  if ((await redis.get(keys.layout)) === "2") return 0;
  let moved = 0;
  let cursor = "0";
  do {
    const [next, reply] = await redis.zscan(keys.all, cursor, "COUNT", MOVE_CHUNK);
    cursor = next;
    const ids = reply.filter((_, i) => i % 2 === 0);
    for (let i = 0; i < ids.length; i += MOVE_CHUNK) {
      moved += await store.moveLegacy(ids.slice(i, i + MOVE_CHUNK));
    }
  } while (cursor !== "0");
  await redis.set(keys.layout, "2");
  return moved;
}
