import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { DemoError, isRunning, waitForExit } from "./util.js";

export interface BotProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines the bot printed, for start-up errors. */
  recentOutput(): string[];
  /** SIGTERM (the bot's graceful stop), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  kill(): void;
}

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const HIDDEN_FIELDS = new Set(["level", "time", "pid", "hostname", "msg", "v"]);

/** One pino JSON line as `LEVEL message key=value …`; anything else unchanged. */
export function formatLogLine(line: string): string {
  if (!line.startsWith("{")) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = LEVELS[Number(entry.level)] ?? String(entry.level ?? "");
  const extras = Object.entries(entry)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return [level.padEnd(5), String(entry.msg ?? ""), ...extras].join(" ").trimEnd();
}

/**
 * Runs the bot the way production does — `node` with the project's `src/main.ts` (through the tsx loader,
 * since the demo needs no build) and configuration from the environment alone. The child gets its own
 * process group, so a terminal's Ctrl-C reaches only the launcher, which stops it with SIGTERM.
 */
export function startBotProcess(opts: {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  print: (line: string) => void;
}): BotProcess {
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid === undefined)
    throw new DemoError(`could not start the bot (${opts.command} ${opts.args.join(" ")})`);
  const recent: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      opts.print(`  bot      │ ${formatLogLine(line)}`);
    });
  }
  return {
    child,
    pid: child.pid,
    exited,
    recentOutput: () => [...recent],
    stop: (graceMs = 15_000) => waitForExit(child, "SIGTERM", graceMs),
    kill: () => {
      if (isRunning(child)) child.kill("SIGKILL");
    },
  };
}
