import { createReadStream } from "node:fs";
import { mkdir, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { OrdersApi } from "./api.js";
import { needsAttention } from "./lifecycle.js";
import type { OrderStore } from "./store.js";
import type { Order, OrderFilter, Page } from "./types.js";

/**
 * The order archive: orders that left Redis (see retention.ts), as JSON Lines, one file per
 * month in `dir`, named `orders-YYYY-MM.jsonl` after the month (UTC) in which each order was
 * *created* — the time operators' lists and stats are by — whatever month it was archived in.
 *
 * Lines are only ever appended. An order may appear more than once (the sweep writes the file
 * before it deletes from Redis; a crash in between, or a change of the order meanwhile, leaves it
 * in Redis and it is archived again later): readers take the last line of an id. A line torn by a
 * crash in the middle of a write is skipped by readers, and the next append starts on a new line.
 */
export class OrderArchive {
  /** Per month file: its size and mtime when counted, and its orders per operator filter. */
  private readonly counted = new Map<string, { size: number; mtimeMs: number; counts: FilterCounts }>();

  constructor(readonly dir: string) {}

  /** `YYYY-MM` (UTC) of a time in ms. */
  static monthOf(ms: number): string {
    return new Date(ms).toISOString().slice(0, 7);
  }

  fileOf(month: string): string {
    return join(this.dir, `orders-${month}.jsonl`);
  }

  /**
   * Appends the orders to their months' files and fsyncs each file (and the directory when a file
   * is new) before returning: once this resolves, the lines survive a crash of the machine.
   */
  async append(orders: readonly Order[]): Promise<void> {
    if (orders.length === 0) return;
    const byMonth = new Map<string, string[]>();
    for (const order of orders) {
      const month = OrderArchive.monthOf(order.createdAt);
      const lines = byMonth.get(month) ?? [];
      lines.push(`${JSON.stringify(order)}\n`);
      byMonth.set(month, lines);
    }
    await mkdir(this.dir, { recursive: true });
    let created = false;
    for (const [month, lines] of byMonth) {
      const file = await open(this.fileOf(month), "a+");
      try {
        const { size } = await file.stat();
        created ||= size === 0;
        // A torn last line (a crash mid-write) must not swallow the first line written now.
        let text = lines.join("");
        if (size > 0) {
          const last = Buffer.alloc(1);
          await file.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) text = `\n${text}`;
        }
        await file.appendFile(text);
        await file.sync();
      } finally {
        await file.close();
      }
    }
    if (created) await syncDir(this.dir);
  }

  /** Months that have a file, oldest first. */
  async months(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return names
      .map((n) => /^orders-(\d{4}-\d{2})\.jsonl$/.exec(n)?.[1])
      .filter((m): m is string => m !== undefined)
      .sort();
  }

  /** The orders of one month file, one per id (its last line), read line by line. */
  async readMonth(month: string): Promise<Order[]> {
    const byId = new Map<string, Order>();
    const input = createReadStream(this.fileOf(month), { encoding: "utf8" });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    try {
      for await (const line of lines) {
        const order = parseLine(line);
        if (!order) continue;
        byId.delete(order.id); // last line wins, and keeps the order of the file
        byId.set(order.id, order);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    } finally {
      lines.close();
      input.destroy();
    }
    return [...byId.values()];
  }

  /** Archived orders created between `from` and `to` (ms, inclusive): only the month files of that period are read. */
  async createdBetween(from: number, to: number): Promise<Order[]> {
    if (to < from) return [];
    const first = OrderArchive.monthOf(from);
    const last = OrderArchive.monthOf(to);
    const out: Order[] = [];
    for (const month of await this.months()) {
      if (month < first || month > last) continue;
      for (const order of await this.readMonth(month)) {
        if (order.createdAt >= from && order.createdAt <= to) out.push(order);
      }
    }
    return out;
  }

  /**
   * Archived orders created between `from` and `to` (ms, inclusive), one at a time, month file by
   * month file, each order once (its last line). Two passes over each file: the first keeps, per
   * id in the period, the number of its last line; the second parses only those lines. Memory is
   * that map of ids (one month's orders in the period), never the orders themselves.
   */
  async *eachCreatedBetween(from: number, to: number): AsyncGenerator<Order> {
    if (to < from) return;
    const first = OrderArchive.monthOf(from);
    const last = OrderArchive.monthOf(to);
    for (const month of await this.months()) {
      if (month < first || month > last) continue;
      const lastLine = new Map<string, number>();
      for await (const [n, line] of this.linesOf(month)) {
        const order = parseLine(line);
        if (order && order.createdAt >= from && order.createdAt <= to) lastLine.set(order.id, n);
      }
      if (lastLine.size === 0) continue;
      const wanted = new Set(lastLine.values());
      lastLine.clear();
      for await (const [n, line] of this.linesOf(month)) {
        if (!wanted.has(n)) continue;
        const order = parseLine(line);
        if (order) yield order;
      }
    }
  }

  /** The lines of a month file with their numbers; none when the file is gone. */
  private async *linesOf(month: string): AsyncGenerator<[number, string]> {
    const input = createReadStream(this.fileOf(month), { encoding: "utf8" });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let n = 0;
    try {
      for await (const line of lines) yield [n++, line];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    } finally {
      lines.close();
      input.destroy();
    }
  }

  /**
   * Archived orders whose id starts with `prefix` (lower-case), at most `max`, newest month first.
   * Reads month files until it has found them: meant for an operator's look-up, not a hot path.
   */
  async find(prefix: string, max: number): Promise<Order[]> {
    const needle = `"id":"${prefix}`;
    const found: Order[] = [];
    for (const month of (await this.months()).reverse()) {
      const byId = new Map<string, Order>();
      const input = createReadStream(this.fileOf(month), { encoding: "utf8" });
      const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
      try {
        for await (const line of lines) {
          if (!line.includes(needle)) continue; // cheap: most lines are not parsed at all
          const order = parseLine(line);
          if (order?.id.startsWith(prefix)) byId.set(order.id, order);
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      } finally {
        lines.close();
        input.destroy();
      }
      found.push(...byId.values());
      if (found.length >= max) break;
    }
    return found.slice(0, max);
  }

  /** How many archived orders an operator filter matches, over every month. */
  async count(filter: OrderFilter): Promise<number> {
    let total = 0;
    for (const month of await this.months()) total += (await this.countsOf(month))[filter];
    return total;
  }

  /**
   * A page of an operator list over the archive: newest month first, newest order first within
   * a month. Counts per month are kept while a file is unchanged, so a page reads only the month
   * files its rows come from.
   */
  async page(filter: OrderFilter, offset: number, limit: number): Promise<Page<Order>> {
    const months = (await this.months()).reverse();
    const items: Order[] = [];
    let total = 0;
    for (const month of months) {
      const n = (await this.countsOf(month))[filter];
      const start = offset - total; // this month's rows before the page starts
      total += n;
      if (items.length >= limit || n === 0 || start >= n) continue;
      const rows = (await this.readMonth(month))
        .filter((o) => matchesFilter(o, filter))
        .sort((a, b) => b.createdAt - a.createdAt);
      items.push(...rows.slice(Math.max(0, start), Math.max(0, start) + limit - items.length));
    }
    return { items, total };
  }

  private async countsOf(month: string): Promise<FilterCounts> {
    const file = this.fileOf(month);
    const st = await stat(file).catch(() => null);
    if (!st) return emptyCounts();
    const known = this.counted.get(month);
    if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.counts;
    const counts = emptyCounts();
    for (const order of await this.readMonth(month)) {
      for (const f of FILTERS) if (matchesFilter(order, f)) counts[f] += 1;
    }
    this.counted.set(month, { size: st.size, mtimeMs: st.mtimeMs, counts });
    return counts;
  }
}

type FilterCounts = Record<OrderFilter, number>;
const FILTERS: readonly OrderFilter[] = ["all", "pending", "delivered", "failed", "attention"];
const emptyCounts = (): FilterCounts => ({ all: 0, pending: 0, delivered: 0, failed: 0, attention: 0 });

/** The operator list filters as Redis indexes them (keys.ts), applied to one order. */
export function matchesFilter(order: Order, filter: OrderFilter): boolean {
  if (filter === "all") return true;
  if (filter === "attention") return needsAttention(order);
  if (filter === "pending") return order.state === "paid" || order.state === "pending";
  return order.state === filter;
}

function parseLine(line: string): Order | null {
  if (line.trim() === "") return null;
  try {
    const order = JSON.parse(line) as Order;
    return typeof order?.id === "string" && typeof order.createdAt === "number" ? order : null;
  } catch {
    return null; // a line torn by a crash mid-write
  }
}

/** Makes a new file's directory entry durable. Not every platform can open a directory: best effort. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r").catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // fsync of a directory is not supported here
  } finally {
    await handle.close();
  }
}

/**
 * The operators' reads over Redis and the archive together. The list shows what Redis holds
 * (newest first), then the archive's months (newest first); statistics take the orders of a
 * period from both, Redis winning for an order found in both (a sweep interrupted by a crash).
 * A customer's own /orders reads Redis only: archived orders drop out of it.
 */
export function withArchive(
  store: Pick<OrderStore, "pageByFilter" | "createdBetween">,
  archive: OrderArchive,
): { listAll: OrdersApi["listAll"]; createdBetween: OrdersApi["createdBetween"] } {
  return {
    async listAll(filter, offset, limit) {
      const live = await store.pageByFilter(filter, offset, limit);
      const archivedTotal = await archive.count(filter);
      const total = live.total + archivedTotal;
      if (live.items.length >= limit || archivedTotal === 0) return { items: live.items, total };
      const rest = await archive.page(filter, Math.max(0, offset - live.total), limit - live.items.length);
      return { items: [...live.items, ...rest.items], total };
    },
    async createdBetween(from, to) {
      const orders = await store.createdBetween(from, to);
      const inRedis = new Set(orders.map((o) => o.id));
      for (const order of await archive.createdBetween(from, to)) {
        if (!inRedis.has(order.id)) orders.push(order);
      }
      return orders;
    },
  };
}
