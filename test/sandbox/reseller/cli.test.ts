import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsxCli = join(root, "node_modules/tsx/dist/cli.mjs");
const cliPath = join(root, "sandbox/reseller/cli.ts");
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** Runs the CLI through tsx in an empty directory (so no .env is picked up). */
function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, [tsxCli, cliPath], {
    cwd: mkdtempSync(join(tmpdir(), "sandbox-cli-")),
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`exited early: ${stderr}`)));
  });
  url.catch(() => {}); // awaited only by tests that expect a start
  return { child, url, exited, out: () => stdout, err: () => stderr };
}

describe("reseller sandbox CLI", () => {
  it("prints its base URL, serves the configured key and balance, and stops on SIGTERM", async () => {
    const run = runCli({ SANDBOX_PORT: "0", RESELLER_API_KEY: "cli-secret-key", SANDBOX_BALANCE_RUB: "777" });
    const url = await run.url;
    const res = await fetch(`${url}/api/reseller/balance`, {
      headers: { authorization: "Bearer cli-secret-key" },
    });
    expect(await res.json()).toMatchObject({ success: true, balance_rub: 777 });
    const denied = await fetch(`${url}/api/reseller/balance`, {
      headers: { authorization: "Bearer sandbox-key" },
    });
    expect(denied.status).toBe(401);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain("stopped");
    expect(run.out() + run.err()).not.toContain("cli-secret-key");
  });

  it("uses the default key when none is set and stops on SIGINT", async () => {
    const run = runCli({ SANDBOX_PORT: "0" });
    const url = await run.url;
    const res = await fetch(`${url}/api/reseller/balance`, {
      headers: { authorization: "Bearer sandbox-key" },
    });
    expect(await res.json()).toMatchObject({ balance_rub: 100000 });
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
  });

  it("exits with 1 and names the bad variable when the configuration is wrong", async () => {
    const run = runCli({ SANDBOX_PORT: "eighty", SANDBOX_WEBHOOK_REWRITE: "nonsense" });
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain("SANDBOX_PORT");
    expect(run.err()).toContain("SANDBOX_WEBHOOK_REWRITE");
  });
});
