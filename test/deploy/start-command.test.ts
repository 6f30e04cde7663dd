import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const start = (
  JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { scripts: { start: string } }
).scripts.start;
const dockerfile = readFileSync(new URL("Dockerfile", root), "utf8");

/** `npm start`'s words: the environment set before `node`, then node's arguments. */
function startCommand(): { env: Record<string, string>; args: string[] } {
  const words = start.split(/\s+/).filter((w) => w !== "exec");
  const node = words.indexOf("node");
  expect(node, "npm start runs node").toBeGreaterThanOrEqual(0);
  const env: Record<string, string> = {};
  for (const w of words.slice(0, node)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(\S+)$/.exec(w);
    expect(m, `"${w}" before node is an environment assignment`).not.toBeNull();
    env[m![1]!] = m![2]!;
  }
  return { env, args: words.slice(node + 1) };
}

describe("the start command", () => {
  it("holds glibc's malloc to two arenas (less peak memory in a rush, BENCHMARKS.md)", () => {
    expect(startCommand().env.MALLOC_ARENA_MAX).toBe("2");
  });

  it("is what the image runs: the same node arguments and the same environment", () => {
    const { env, args } = startCommand();
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd, "the Dockerfile has an exec-form CMD").toBeDefined();
    expect(JSON.parse(cmd!)).toEqual(["node", ...args]);
    for (const [name, value] of Object.entries(env)) {
      expect(dockerfile, `the image sets ${name}`).toMatch(new RegExp(`^ENV ${name}=${value}$`, "m"));
    }
  });

  it("gives the bot the environment it sets, through the shell npm runs scripts with", () => {
    // What `npm start` does with the script: `sh -c`, here with node printing its environment
    // instead of starting the bot.
    const { env } = startCommand();
    const probe = start.replace(/node .*$/, `node -e "process.stdout.write(JSON.stringify(process.env))"`);
    const run = spawnSync("sh", ["-c", probe], { env: { PATH: process.env.PATH ?? "" }, encoding: "utf8" });
    expect(run.status).toBe(0);
    const seen = JSON.parse(run.stdout) as Record<string, string>;
    for (const [name, value] of Object.entries(env)) expect(seen[name]).toBe(value);
  });

  it("makes the shell npm runs it with become node, so that a stop signal sent to it reaches the bot", () => {
    // npm passes SIGTERM and SIGINT on to the script's shell; without `exec` the shell (dash) would
    // keep node as its child and the signal would stop only the shell.
    const probe = start.replace(/node .*$/, `node -e "process.stdout.write(String(process.pid))"`);
    const run = spawnSync("sh", ["-c", `${probe}; echo never`], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain("never");
  });
});
