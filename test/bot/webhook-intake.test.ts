import type { Update } from "grammy/types";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type IntakeTimings, intakeKeys, WebhookIntake } from "../../src/bot/webhook-intake.js";
import { createLogger } from "../../src/logger.js";
import { freePort } from "../helpers/private-redis.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
const FAST: Partial<IntakeTimings> = {
  handleBudgetMs: 150,
  recordTimeoutMs: 1_000,
  leaseMs: 600,
  scanMs: 100,
  stopGraceMs: 300,
};

/** A chat message update; the intake only needs its id and chat. */
function message(updateId: number, chatId: number): Update {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 0,
      chat: { id: chatId, type: "private", first_name: "T" },
      text: `#${updateId}`,
    },
  } as Update;
}

/** Stands in for the bot: records what it handled, in order; an update can be held until released. */
class Receiver {
  readonly started: number[] = [];
  readonly handled: number[] = [];
  private readonly held = new Map<number, () => void>();

  constructor(private readonly hold: Set<number> = new Set()) {}

  async handleUpdate(update: Update): Promise<void> {
    this.started.push(update.update_id);
    if (this.hold.has(update.update_id)) {
      await new Promise<void>((resolve) => this.held.set(update.update_id, resolve));
    }
    this.handled.push(update.update_id);
  }

  release(updateId: number): void {
    this.held.get(updateId)?.();
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length)
    await cleanups
      .pop()?.()
      .catch(() => undefined);
});

function intake(redis: Redis, prefix: string, receiver: Receiver): WebhookIntake {
  const i = new WebhookIntake({ redis, prefix, receiver, logger, timings: FAST });
  i.start();
  cleanups.push(() => i.stop());
  return i;
}

function client(): Redis {
  const r = testRedis();
  cleanups.push(() => r.quit());
  return r;
}

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the webhook intake", () => {
  it("answers once an update is handled, and records one that takes longer than the budget", async () => {
    const prefix = uniquePrefix("intake");
    const redis = client();
    const bot = new Receiver(new Set([2]));
    const a = intake(redis, prefix, bot);
    expect(await a.take(message(1, 10))).toBe("handled");
    expect(bot.handled).toEqual([1]);

    expect(await a.take(message(2, 10))).toBe("recorded");
    const [updates] = intakeKeys(prefix);
    expect(JSON.parse((await redis.hget(updates, "2")) ?? "null")).toMatchObject({ update_id: 2 });
    // Sent again (as Telegram does after an error) while still in progress: not started twice.
    expect(await a.take(message(2, 10))).toBe("recorded");
    expect(bot.started).toEqual([1, 2]);
    bot.release(2);
    await until("the recorded update to be forgotten", async () => (await redis.hlen(updates)) === 0);
    expect(bot.handled).toEqual([1, 2]);
  });

  it("refuses updates before it starts and once it stops", async () => {
    const redis = client();
    const bot = new Receiver();
    const a = new WebhookIntake({
      redis,
      prefix: uniquePrefix("intake"),
      receiver: bot,
      logger,
      timings: FAST,
    });
    expect(await a.take(message(1, 10))).toBe("refused");
    a.start();
    expect(await a.take(message(2, 10))).toBe("handled");
    await a.stop();
    expect(await a.take(message(3, 10))).toBe("refused");
    expect(bot.started).toEqual([2]);
  });

  it("refuses an update it can neither handle nor record when Redis is unreachable", async () => {
    const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    redis.on("error", () => undefined);
    cleanups.push(async () => redis.disconnect());
    const bot = new Receiver();
    const a = intake(redis, uniquePrefix("intake"), bot);
    expect(await a.take(message(1, 10))).toBe("refused");
    expect(bot.started).toEqual([]);
    // An update without a chat (a pre-checkout query) needs nothing from Redis before the bot.
    const preCheckout = { update_id: 2, pre_checkout_query: { id: "q" } } as unknown as Update;
    expect(await a.take(preCheckout)).toBe("handled");
  });

  it("keeps a chat's order across processes: a newer update waits for an older one another process holds", async () => {
    const prefix = uniquePrefix("intake");
    const botA = new Receiver(new Set([1]));
    const botB = new Receiver();
    const a = intake(client(), prefix, botA);
    const b = intake(client(), prefix, botB);
    expect(await a.take(message(1, 20))).toBe("recorded");

    const second = b.take(message(2, 20));
    // Another chat is not held up.
    expect(await b.take(message(3, 21))).toBe("handled");
    // Chat 20's newer update waits past the budget, so it is recorded (and answered) meanwhile.
    expect(await second).toBe("recorded");
    await new Promise((r) => setTimeout(r, 300));
    expect(botB.started).toEqual([3]);
    botA.release(1);
    await until("the newer update", () => botB.handled.includes(2));
    expect(botA.handled).toEqual([1]);
    expect(botB.handled).toEqual([3, 2]);
  });

  it("handles the recorded updates of a process that died, oldest first and before the chat's newer ones", async () => {
    const prefix = uniquePrefix("intake");
    // The dying process: its updates hang and its Redis connection goes, so its leases run out.
    const deadRedis = testRedis();
    const dead = new Receiver(new Set([1, 2, 5]));
    const doomed = new WebhookIntake({ redis: deadRedis, prefix, receiver: dead, logger, timings: FAST });
    doomed.start();
    cleanups.push(() => doomed.stop());
    expect(await doomed.take(message(1, 30))).toBe("recorded");
    expect(await doomed.take(message(5, 31))).toBe("recorded");
    const queued = doomed.take(message(2, 30));
    expect(await queued).toBe("recorded");
    deadRedis.disconnect();
    const [updates, , leases] = intakeKeys(prefix);
    const redis = client();
    await until("the dead process's leases to run out", async () => {
      const ends = await redis.zrange(leases, 0, -1, "WITHSCORES");
      return ends.length === 6 && ends.every((v, i) => i % 2 === 0 || Number(v) < Date.now());
    });

    const survivor = new Receiver();
    const b = intake(client(), prefix, survivor);
    // A newer update of chat 30 arrives: the dead process's updates of that chat go first.
    expect(await b.take(message(3, 30))).toBe("handled");
    expect(survivor.handled.filter((id) => id !== 5)).toEqual([1, 2, 3]);
    // Chat 31 got no new update: the intake finds its orphan on its own.
    await until("the orphan of chat 31", () => survivor.handled.includes(5));
    await until("every recorded update to be forgotten", async () => (await redis.hlen(updates)) === 0);
    expect(dead.handled).toEqual([]);
  });
});
