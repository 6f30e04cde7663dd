import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsxCli = join(root, "node_modules/tsx/dist/cli.mjs");
const cliPath = join(root, "sandbox/yookassa/cli.ts");
const children: ChildProcess[] = [];
const servers: http.Server[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** Runs the CLI through tsx in an empty directory (so no .env is picked up). */
function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, [tsxCli, cliPath], {
    cwd: mkdtempSync(join(tmpdir(), "yookassa-cli-")),
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
  url.catch(() => {});
  return { child, url, exited, out: () => stdout, err: () => stderr };
}

describe("YooKassa sandbox CLI", () => {
  it("serves the configured shop, sends notifications where told, and stops on SIGTERM", async () => {
    const got: string[] = [];
    const hook = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        got.push(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(200).end();
      });
    });
    servers.push(hook);
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/webhooks/yookassa`;
    const run = runCli({
      YOOKASSA_SANDBOX_PORT: "0",
      YOOKASSA_SHOP_ID: "4242",
      YOOKASSA_SECRET_KEY: "cli-secret-key",
      YOOKASSA_NOTIFICATION_URL: hookUrl,
    });
    const url = await run.url;
    for (let i = 0; i < 500 && !run.out().includes("notifications:"); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(run.out()).toContain(`YOOKASSA_API_URL=${url}/v3`);
    expect(run.out()).toContain(`notifications: ${hookUrl}`);
    const res = await fetch(`${url}/v3/payments`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from("4242:cli-secret-key").toString("base64")}`,
        "idempotence-key": "pay:cli",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        amount: { value: "10.00", currency: "RUB" },
        confirmation: { type: "redirect", return_url: "https://t.me/bot" },
      }),
    });
    const payment = (await res.json()) as { id: string; confirmation: { confirmation_url: string } };
    expect(payment.confirmation.confirmation_url).toBe(`${url}/pay/${payment.id}`);
    await fetch(payment.confirmation.confirmation_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=pay",
      redirect: "manual",
    });
    for (let i = 0; i < 500 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(got[0]!)).toMatchObject({ event: "payment.succeeded", object: { id: payment.id } });
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain("stopped");
    expect(run.out() + run.err()).not.toContain("cli-secret-key");
  });

  it("exits with 1 and names every bad variable", async () => {
    const run = runCli({ YOOKASSA_SANDBOX_PORT: "eighty", YOOKASSA_NOTIFICATION_URL: "ftp://x" });
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain("YOOKASSA_SANDBOX_PORT");
    expect(run.err()).toContain("YOOKASSA_NOTIFICATION_URL");
  });
});
