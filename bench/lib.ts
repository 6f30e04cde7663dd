import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

/** p-th percentile (0..100) of a list of numbers, nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Total commands Redis has processed, by command, from INFO commandstats. */
export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info("commandstats");
  const out = new Map<string, number>();
  for (const line of info.split("\n")) {
    const m = line.match(/^cmdstat_([^:]+):calls=(\d+)/);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

export function diffStats(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [cmd, n] of after) {
    const d = n - (before.get(cmd) ?? 0);
    if (d > 0) out.set(cmd, d);
  }
  return out;
}

export function sum(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Samples this process's RSS every `everyMs` and keeps the peak. */
export function rssSampler(everyMs = 50) {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  timer.unref();
  return {
    stop(): number {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

export function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return "—";
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function mb(bytes: number): string {
  return `${fmt(bytes / 1024 / 1024, 0)} MB`;
}

/** Prints rows as an aligned plain-text table. */
export function printTable(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${title}\n${"-".repeat(title.length)}\n`);
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

/** Runs `fn` for each item with at most `limit` running at once. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until `check` holds, polling; throws after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  label: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
    await sleep(20);
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (getconf CLK_TCK; 100 on Linux almost everywhere). */
const CLK_TCK = (() => {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** User + system CPU time (ms) from a /proc stat file; NaN when it cannot be read (the process is gone). */
function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, "utf8");
    // Fields after the command name "(…)": state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system, ms) a process has used so far, all its threads; NaN once it is gone. */
export function processCpuMs(pid: number | undefined): number {
  return pid === undefined ? Number.NaN : statCpuMs(`/proc/${pid}/stat`);
}

/**
 * CPU time (ms) of a process's main thread alone, where its JavaScript runs; the rest of
 * {@link processCpuMs} is V8's helper threads (garbage collection, compilation) and libuv's pool.
 */
export function mainThreadCpuMs(pid: number | undefined): number {
  return pid === undefined ? Number.NaN : statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/** Resident set size (VmRSS, bytes) of a process now; NaN once it is gone. */
export function processRssBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples another process's VmRSS every `everyMs` (100 ms) and keeps the peak. */
export function processRssSampler(pid: number | undefined, everyMs = 100) {
  let peak = 0;
  const sample = () => {
    const rss = processRssBytes(pid);
    if (Number.isFinite(rss)) peak = Math.max(peak, rss);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    peak: () => peak,
    stop(): number {
      sample();
      clearInterval(timer);
      return peak;
    },
  };
}

/** Prints a table with a header row and any number of columns, aligned. */
export function printGrid(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  process.stdout.write(`\n${title}\n${"-".repeat(title.length)}\n`);
  process.stdout.write(`${line(header)}\n`);
  process.stdout.write(`${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(header.map((_, i) => r[i] ?? ""))}\n`);
}

/** "1.2 s" for durations of a second or more, else "340 ms". */
export function dur(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  return ms >= 1000 ? `${fmt(ms / 1000, 1)} s` : `${fmt(ms, 0)} ms`;
}

/** Counts a bot's log lines at warn (40) and above, by message, from its output as it is written. */
export function logTally() {
  const counts = new Map<string, number>();
  let warnings = 0;
  let errors = 0;
  let carry = "";
  return {
    feed(chunk: string): void {
      const lines = (carry + chunk).split("\n");
      carry = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("{")) continue;
        let entry: { level?: unknown; msg?: unknown; err?: { message?: unknown } };
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (typeof entry.level !== "number" || entry.level < 40) continue;
        if (entry.level >= 50) errors += 1;
        else warnings += 1;
        const err = entry.err?.message === undefined ? "" : `: ${String(entry.err.message).slice(0, 80)}`;
        const key = `${entry.level >= 50 ? "error" : "warn"} "${String(entry.msg ?? "")}${err}"`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    },
    summary(): { warnings: number; errors: number; top: string } {
      const top = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([k, n]) => `${k} ×${n}`)
        .join("; ");
      return { warnings, errors, top };
    },
  };
}
