import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import type { OrderKeys } from "./keys.js";
import { isOpenQuote, isQuoteExpired } from "./lifecycle.js";
import { decodeRecord, type Stored } from "./record.js";
import type { Order, OrderFilter, OrderState, Page } from "./types.js";

/**
 * The read side of the order store (store.ts extends it with the writes): lists of orders out of
 * the indexes of keys.ts (a customer's, an operator filter's, a period's, the archive sweep's
 * candidates) and the chat's open quotes. Each list is one index read and one pipelined read of
 * the records; an order deleted in between is left out. A record of the earlier layout (a hash at
 * `order:<id>`) is moved to the current one (record.ts) when a read misses it.
 */

const READ_CHUNK = 500;

export class OrderLists {
  private readonly adoptScript: (...args: (string | number)[]) => Promise<unknown>;

  constructor(
    protected readonly redis: RedisClient,
    /** The key layout, for tests and tools that inspect Redis; the store's methods are the interface. */
    readonly keys: OrderKeys,
    protected readonly now: () => number,
  ) {
    this.adoptScript = defineScripts(redis, new URL("./lua/", import.meta.url), [
      "adoptRecords",
    ]).adoptRecords;
  }

  /** The orders of `ids` with their versions, in one pipeline; null where an order is missing. */
  protected async readStored(ids: readonly string[]): Promise<(Stored | null)[]> {
    const rows: (Stored | null)[] = [];
    if (ids.length === 1) {
      const [rec, sent] = await this.redis.mget(this.keys.order(ids[0]!), this.keys.sent(ids[0]!));
      rows.push(decodeRecord(rec, sent));
    } else {
      const pipe = this.redis.pipeline();
      for (const id of ids) pipe.mget(this.keys.order(id), this.keys.sent(id));
      for (const [err, row] of (await pipe.exec()) ?? []) {
        const [rec, sent] = (err ? [] : (row ?? [])) as (string | null)[];
        rows.push(decodeRecord(rec, sent));
      }
    }
    const missing = ids.filter((_, i) => rows[i] === null);
    if (missing.length === 0) return rows;
    const adopted = await this.adopt(missing);
    return rows.map((row, i) => row ?? adopted.get(ids[i]!) ?? null);
  }

  /** Moves the records of `ids` from the earlier layout, if any, and returns the orders found. */
  private async adopt(ids: readonly string[]): Promise<Map<string, Stored>> {
    const values = (await this.adoptScript(...this.adoptArgs(ids, "1"))) as (string | null)[];
    const found = new Map<string, Stored>();
    ids.forEach((id, i) => {
      const stored = decodeRecord(values[2 * i], values[2 * i + 1]);
      if (stored) found.set(id, stored);
    });
    return found;
  }

  /** Moves the records of `ids` from the earlier layout (lua/adoptRecords.lua); returns how many it moved. */
  async moveLegacy(ids: readonly string[]): Promise<number> {
    return Number(await this.adoptScript(...this.adoptArgs(ids, "0")));
  }

  private adoptArgs(ids: readonly string[], answer: "0" | "1"): (string | number)[] {
    const keys = ids.flatMap((id) => [this.keys.legacy(id), this.keys.order(id), this.keys.sent(id)]);
    return [keys.length, ...keys, answer];
  }

  /** The chat's unpaid quotes that have not expired, oldest first. */
  async openQuotes(chatId: number): Promise<Order[]> {
    const now = this.now();
    const ids = await this.redis.zrangebyscore(this.keys.open(chatId), `(${now}`, "+inf");
    if (ids.length === 0) return [];
    const orders = await this.readMany(ids);
    return orders
      .filter((o) => isOpenQuote(o) && !isQuoteExpired(o, now))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Newest first, one MULTI (ZREVRANGE, ZCARD) and one pipelined read for the page. */
  async page(indexKey: string, offset: number, limit: number): Promise<Page<Order>> {
    const replies = (await this.redis
      .multi()
      .zrevrange(indexKey, offset, offset + limit - 1)
      .zcard(indexKey)
      .exec()) as [Error | null, unknown][] | null;
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error("order page read was aborted");
    const ids = replies[0]![1] as string[];
    const total = replies[1]![1] as number;
    if (ids.length === 0) return { items: [], total };
    return { items: await this.readMany(ids), total };
  }

  /** A customer's orders, newest first. */
  pageByChat(chatId: number, offset: number, limit: number): Promise<Page<Order>> {
    return this.page(this.keys.chat(chatId), offset, limit);
  }

  /** An operator list, newest first. */
  pageByFilter(filter: OrderFilter, offset: number, limit: number): Promise<Page<Order>> {
    return this.page(this.keys.filter(filter), offset, limit);
  }

  /** Orders created between `from` and `to` (ms, inclusive), read pipelined in chunks. */
  async createdBetween(from: number, to: number): Promise<Order[]> {
    const ids = await this.redis.zrangebyscore(this.keys.all, from, to);
    const orders: Order[] = [];
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      orders.push(...(await this.readMany(ids.slice(i, i + READ_CHUNK))));
    }
    return orders;
  }

  /**
   * Orders created between `from` and `to` (ms, inclusive), oldest first, `chunk` records at a
   * time: the index is paged too, so a long period never sits in memory whole. Pages continue
   * from the last creation time seen (not an offset), so orders leaving Redis meanwhile (the
   * archive sweep) cannot make the next page skip one; an order deleted between its page and its
   * read is left out.
   */
  async *createdBetweenChunks(from: number, to: number, chunk = READ_CHUNK): AsyncGenerator<Order[]> {
    let min = from;
    // Ids already given whose score is `min`: the next page starts at `min` inclusive and skips them.
    let givenAtMin = new Set<string>();
    for (;;) {
      const want = chunk + givenAtMin.size;
      const reply = await this.redis.zrangebyscore(this.keys.all, min, to, "WITHSCORES", "LIMIT", 0, want);
      const page: [string, number][] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) {
        const id = reply[i]!;
        const score = Number(reply[i + 1]);
        if (score === min && givenAtMin.has(id)) continue;
        page.push([id, score]);
      }
      if (page.length > 0) {
        const orders = await this.readMany(page.map(([id]) => id));
        if (orders.length > 0) yield orders;
      }
      if (reply.length / 2 < want || page.length === 0) return;
      const last = page[page.length - 1]![1];
      const atLast = page.filter(([, score]) => score === last).map(([id]) => id);
      givenAtMin = last === min ? new Set([...givenAtMin, ...atLast]) : new Set(atLast);
      min = last;
    }
  }

  /** Ids of orders starting with `prefix` (lower-case hex), at most `max` of them. */
  async idsByPrefix(prefix: string, max: number): Promise<string[]> {
    const found = new Set<string>();
    let cursor = "0";
    do {
      const [next, members] = await this.redis.zscan(
        this.keys.all,
        cursor,
        "MATCH",
        `${prefix}*`,
        "COUNT",
        1000,
      );
      cursor = next;
      // ZSCAN returns member, score pairs.
      for (let i = 0; i < members.length; i += 2) found.add(members[i] as string);
      if (found.size >= max) break;
    } while (cursor !== "0");
    return [...found].slice(0, max);
  }

  /** The records of `ids` in one pipeline; missing ones and unreadable replies are left out. */
  protected async readMany(ids: string[]): Promise<Order[]> {
    return (await this.readStored(ids)).flatMap((row) => (row ? [row.order] : []));
  }

  /**
   * Orders in `state` created before `before` (ms), oldest first from the `offset`-th, with their
   * versions: the candidates of the archive sweep (an order changes after it is created, never
   * before, so nothing older than the retention is missed).
   */
  async createdBefore(state: OrderState, before: number, offset: number, count: number): Promise<Stored[]> {
    const index = this.keys.stateIndex(state);
    if (!index) return [];
    const ids = await this.redis.zrangebyscore(index, "-inf", `(${before}`, "LIMIT", offset, count);
    if (ids.length === 0) return [];
    return (await this.readStored(ids)).filter((row): row is Stored => row !== null);
  }
}
