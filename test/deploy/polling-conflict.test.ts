import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AppBackends, newAppCustomer, startAppBackends } from "../helpers/app-harness.js";
import { type AppProcess, spawnApp } from "../helpers/app-process.js";

const CONFLICT = "Telegram refused getUpdates (409 Conflict)";
const REVOKED = "Telegram refused the bot token (401 Unauthorized)";

let backends: AppBackends;
const processes: AppProcess[] = [];

/** Starts `src/main.ts` (BOT_MODE=polling, the default) against the backends; resolves once it polls. */
async function startPolling(): Promise<AppProcess> {
  const app = spawnApp({ ...backends.env, LOG_LEVEL: "info" });
  processes.push(app);
  await app.waitForOutput("shop bot started");
  await app.waitForOutput("bot polling for updates");
  return app;
}

/** Every stdout line, parsed: each one must be a JSON log line. */
function logLines(app: AppProcess): Record<string, unknown>[] {
  return app
    .stdout()
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeEach(async () => {
  backends = await startAppBackends();
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
  await backends.close();
});

describe("a polling bot when Telegram refuses getUpdates", () => {
  it("keeps running through a 409 Conflict from another poller, says so once, and polls again once it is alone", async () => {
    const app = await startPolling();
    const getUpdates = `${backends.telegram.apiRoot}/bot${backends.env.BOT_TOKEN}/getUpdates`;

    // Another poller with the same token for a while: each of its long polls ends the bot's (409),
    // and the bot's next one ends this one's.
    const until = Date.now() + 2_500;
    let conflicts = 0;
    while (Date.now() < until) {
      const res = (await (await fetch(`${getUpdates}?timeout=1`)).json()) as { error_code?: number };
      if (res.error_code === 409) conflicts++;
    }
    expect(app.child.exitCode).toBeNull();
    // The bot polled again during the conflict (ending this poller's polls), with its backoff.
    expect(conflicts).toBeGreaterThan(0);

    // Alone again, the bot answers its customers.
    const customer = newAppCustomer(backends.telegram);
    await customer.sendText("/start");
    await customer.waitForBotMessage(/./, 20_000);
    expect(app.child.exitCode).toBeNull();

    const lines = logLines(app);
    const said = lines.filter((l) => String(l.msg).startsWith(CONFLICT));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 50, error_code: 409 });
    expect(lines.some((l) => l.msg === "polling for updates again")).toBe(true);
    expect(app.stderr()).toBe("");
    expect(app.stdout() + app.stderr()).not.toContain(backends.env.BOT_TOKEN!);
  });

  it("stops cleanly with one clear line and exit code 1 when the token is revoked (401)", async () => {
    const app = await startPolling();
    backends.telegram.revokeToken("123456789:AANewTokenAfterRevoke_0123456789abcd");

    const exit = await app.waitForExit(20_000);
    expect(exit).toEqual({ code: 1, signal: null });
    const lines = logLines(app);
    const said = lines.filter((l) => String(l.msg).startsWith(REVOKED));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 60, error_code: 401 });
    // The graceful stop ran: jobs handed back, Redis closed.
    expect(lines.some((l) => l.msg === "stopped")).toBe(true);
    expect(app.stderr()).toBe("");
    expect(app.stdout()).not.toContain(backends.env.BOT_TOKEN!);
  });
});
