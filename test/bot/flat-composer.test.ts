import { createHook } from "node:async_hooks";
import { setImmediate as tick } from "node:timers/promises";
import { Api, Composer, Context, type MiddlewareFn } from "grammy";
import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { FlatComposer } from "../../src/bot/flat-composer.js";
import { BOT_INFO } from "./helpers/telegram-recorder.js";

const me = BOT_INFO;
const api = new Api("1:test");
const from = { id: 42, is_bot: false, first_name: "Ann" };
const chat = { id: 42, type: "private" as const, first_name: "Ann" };

function message(text: string): Update {
  const entities = text.startsWith("/")
    ? [{ type: "bot_command" as const, offset: 0, length: text.split(" ")[0]?.length ?? 0 }]
    : undefined;
  return { update_id: 1, message: { message_id: 1, date: 0, chat, from, text, entities } };
}
function tap(data: string): Update {
  return {
    update_id: 2,
    callback_query: { id: "q", from, chat_instance: "c", data, message: { message_id: 5, date: 0, chat } },
  };
}

type Make = () => Composer<Context>;

/** A middleware tree touching what the shop uses: use, command, callbackQuery, on, filter, branch, errorBoundary. */
function build(make: Make, log: string[]): Composer<Context> {
  const root = make();
  root.use(async (_ctx, next) => {
    log.push("outer:before");
    await next();
    log.push("outer:after");
  });
  root.command("start", (ctx) => {
    log.push(`start:${ctx.match}`);
  });
  root.callbackQuery(/^pay:(\w+)$/, async (ctx) => {
    log.push(`pay:${ctx.match[1]}`);
  });
  const ops = root.filter((ctx) => ctx.from?.id === 7);
  ops.command("balance", () => {
    log.push("balance");
  });
  // Extended after registration: still part of the chain.
  const late = root.on("message:text");
  root.branch(
    async (ctx) => ctx.msg?.text === "branch",
    (_ctx) => {
      log.push("branch:yes");
    },
    [
      (_ctx, next) => {
        log.push("branch:no");
        return next();
      },
    ],
  );
  root.errorBoundary(
    (err) => {
      log.push(`caught:${(err.error as Error).message}`);
    },
    (ctx, next) => {
      if (ctx.msg?.text === "boom") throw new Error("boom");
      return next();
    },
  );
  root.use((ctx, next) => {
    log.push(`tail:${ctx.msg?.text ?? ctx.callbackQuery?.data}`);
    return next();
  });
  late.use(async (ctx, next) => {
    log.push(`late:${ctx.msg?.text}`);
    await next();
  });
  return root;
}

/** Runs one update through the composer; whether it called the final `next`. */
async function dispatch(c: Composer<Context>, update: Update): Promise<boolean> {
  const ctx = new Context(update, api, me);
  let passed = false;
  await c.middleware()(ctx, async () => {
    passed = true;
  });
  return passed;
}

describe("FlatComposer", () => {
  const updates = [
    message("/start promo"),
    message("/balance"),
    message("hello"),
    message("branch"),
    message("boom"),
    tap("pay:abc"),
    tap("other"),
  ];

  it("runs the same handlers in the same order as grammY's Composer", async () => {
    for (const u of updates) {
      const plainLog: string[] = [];
      const flatLog: string[] = [];
      const plain = await dispatch(
        build(() => new Composer<Context>(), plainLog),
        u,
      );
      const flat = await dispatch(
        build(() => new FlatComposer<Context>(), flatLog),
        u,
      );
      expect(flatLog, JSON.stringify(u)).toEqual(plainLog);
      expect(flat).toBe(plain);
      expect(flatLog.length).toBeGreaterThan(0);
    }
    // The cases above reach different handlers: the comparison is not between two empty logs.
    const seen = new Set<string>();
    for (const u of updates) {
      const log: string[] = [];
      await dispatch(
        build(() => new FlatComposer<Context>(), log),
        u,
      );
      for (const l of log) seen.add(l.split(":")[0] ?? l);
    }
    expect([...seen].sort()).toEqual(["branch", "caught", "late", "outer", "pay", "start", "tail"].sort());
  });

  it("lets an operator's command through its filter", async () => {
    const log: string[] = [];
    const u = message("/balance");
    u.message!.from = { ...from, id: 7 };
    await dispatch(
      build(() => new FlatComposer<Context>(), log),
      u,
    );
    expect(log).toEqual(["outer:before", "balance", "outer:after"]);
  });

  it("refuses a second call of next, and passes errors up as rejections", async () => {
    const c = new FlatComposer<Context>();
    c.use(async (_ctx, next) => {
      await next();
      await next();
    });
    await expect(dispatch(c, message("x"))).rejects.toThrow("`next` already called before!");

    const s = new FlatComposer<Context>();
    s.use(() => {
      throw new Error("sync");
    });
    const ctx = new Context(message("x"), api, me);
    const p = s.middleware()(ctx, async () => {});
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toThrow("sync");

    const f = new FlatComposer<Context>();
    f.filter(() => {
      throw new Error("predicate");
    });
    const q = f.middleware()(ctx, async () => {});
    expect(q).toBeInstanceOf(Promise);
    await expect(q).rejects.toThrow("predicate");
  });

  it("asks a middleware object for its function at every update", async () => {
    const log: string[] = [];
    let version = 1;
    const obj = {
      middleware: (): MiddlewareFn<Context> => {
        const v = version;
        return (_ctx, next) => {
          log.push(`v${v}`);
          return next();
        };
      },
    };
    const c = new FlatComposer<Context>(obj);
    await dispatch(c, message("a"));
    version = 2;
    await dispatch(c, message("b"));
    expect(log).toEqual(["v1", "v2"]);
  });

  it("keeps no waiting promise per skipped handler while a deep handler waits", async () => {
    let created = 0;
    const pendingWhileWaiting = async (make: Make): Promise<number> => {
      created = 0;
      const c = make();
      for (let i = 0; i < 100; i++) {
        c.command(`c${i}`, () => undefined);
        c.callbackQuery(`d${i}`, () => undefined);
      }
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      c.use(() => gate);
      const pending = new Set<number>();
      const hook = createHook({
        init(id, type) {
          if (type !== "PROMISE") return;
          pending.add(id);
          created++;
        },
        promiseResolve(id) {
          pending.delete(id);
        },
      });
      hook.enable();
      const done = c.middleware()(new Context(message("hello"), api, me), async () => {});
      await tick();
      const count = pending.size;
      hook.disable();
      release();
      await done;
      return count;
    };
    const plain = await pendingWhileWaiting(() => new Composer<Context>());
    const plainCreated = created;
    const flat = await pendingWhileWaiting(() => new FlatComposer<Context>());
    const flatCreated = created;
    // grammY's Composer holds a few promises for each of the 200 handlers passed on the way;
    // here the filters that do not match are skipped without making one.
    expect(plain).toBeGreaterThan(400);
    expect(flat).toBeLessThan(20);
    expect(plainCreated).toBeGreaterThan(600);
    expect(flatCreated).toBeLessThan(20);
  });
});
