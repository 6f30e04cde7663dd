import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const MAIN = join(ROOT, "src/main.ts");
/** tsx's ESM loader, by absolute URL so the child can run from any directory. */
const TSX_LOADER = pathToFileURL(createRequire(join(ROOT, "package.json")).resolve("tsx")).href;

export interface AppProcess {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout has a line containing `text` (rejects if the process exits first or time runs out). */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit, or rejects when the process is still running after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the process if it still runs. */
  kill(): Promise<void>;
}

/**
 * Runs `src/main.ts` (the `npm start` entry, through tsx) as a separate process with exactly `env`
 * (plus PATH), in an empty working directory so no developer's .env file is read.
 */
export function spawnApp(env: Record<string, string>): AppProcess {
  const cwd = mkdtempSync(join(tmpdir(), "shopbot-app-"));
  const child = spawn(process.execPath, ["--import", TSX_LOADER, MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
    for (const l of listeners) l();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once("exit", (code, signal) => {
      rmSync(cwd, { recursive: true, force: true });
      for (const l of listeners) l();
      res({ code, signal });
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(text, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (out.includes(text)) return done(resolve);
          if (!running())
            done(() => reject(new Error(`app exited before printing "${text}":\n${err}${out}`)));
        };
        const timer = setTimeout(
          () =>
            done(() => reject(new Error(`app did not print "${text}" in ${timeoutMs} ms:\n${err}${out}`))),
          timeoutMs,
        );
        const done = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
    waitForExit(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`app still running after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
    },
    async kill() {
      if (running()) child.kill("SIGKILL");
      await exited;
    },
  };
}
