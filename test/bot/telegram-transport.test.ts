import { createServer } from "node:net";
import { Api, GrammyError, HttpError, InlineKeyboard, InputFile } from "grammy";
import { describe, expect, it } from "vitest";
import { startTelegramEmulator } from "../../sandbox/telegram/index.js";
import { configureApi } from "../../src/bot/api.js";
import { TelegramHolds } from "../../src/bot/telegram-holds.js";
import { createTelegramTransport } from "../../src/bot/telegram-transport.js";
import { createLogger } from "../../src/logger.js";
import { uniquePrefix } from "../helpers/redis.js";

const logger = createLogger({ level: "silent" });
const token = "123456:TransportTestToken";

/** An Api as the bot builds one (bot/index.ts, main.ts), with its client's fetch counted. */
function api(apiRoot: string, holds = new TelegramHolds(undefined, uniquePrefix("transport"), logger)) {
  const transport = createTelegramTransport(holds);
  let fetched = 0;
  const fetch = ((...args: Parameters<typeof transport.fetch>) => {
    fetched++;
    return transport.fetch(...args);
  }) as typeof transport.fetch;
  const a = new Api(token, { apiRoot, fetch });
  configureApi(a, { transport });
  return { api: a, holds, transport, fetched: () => fetched };
}

/** A loopback port nothing listens on (for now). */
function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

describe("the Telegram transport", () => {
  it("sends JSON calls itself, leaves out nulls as grammY does, and hands uploads to grammY's request", async () => {
    const emulator = await startTelegramEmulator({ token });
    const t = api(emulator.apiRoot);
    // A chat exists once its customer has written to the bot.
    await emulator.user({ id: 501, username: "transport_buyer", languageCode: "en" }).sendText("/start");
    try {
      const sent = await t.api.sendMessage(501, "hello", {
        // A null grammY would not send; Telegram refuses some of them.
        reply_markup: null as unknown as undefined,
      });
      expect(sent.text).toBe("hello");
      const call = emulator.calls("sendMessage").at(-1)!;
      expect(call.payload).toMatchObject({ chat_id: 501, text: "hello" });
      // A keyboard's empty rows (InlineKeyboard starts with one; .row() after no button adds one)
      // are left out.
      await t.api.sendMessage(501, "keys", {
        reply_markup: new InlineKeyboard().row().text("A", "a").row().row().text("B", "b").row(),
      });
      expect(emulator.calls("sendMessage").at(-1)!.payload.reply_markup).toEqual({
        inline_keyboard: [[{ text: "A", callback_data: "a" }], [{ text: "B", callback_data: "b" }]],
      });
      expect(call.payload).not.toHaveProperty("reply_markup");
      // Not through the client's fetch (grammY's request with its abort controller and timer).
      expect(t.fetched()).toBe(0);

      // An upload is multipart: grammY builds it, the transport's fetch carries it.
      await t.api.sendDocument(501, new InputFile(Buffer.from("a,b\n1,2\n"), "rows.csv"), {
        caption: "rows",
      });
      expect(t.fetched()).toBe(1);
      expect(emulator.calls("sendDocument").at(-1)?.payload).toMatchObject({ caption: "rows" });

      // Telegram's refusals come back as grammY's errors, as from its own request.
      const refused = await t.api.sendMessage(999_999, "nobody").catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(GrammyError);
    } finally {
      await t.transport.close();
      await emulator.close();
    }
  });

  it("records a 429's retry_after as a hold on the chat, and the retry goes through after it", async () => {
    const emulator = await startTelegramEmulator({
      token,
      rateLimits: { globalPerSecond: 30, perChatPerSecond: 1 },
    });
    const t = api(emulator.apiRoot);
    await emulator.user({ id: 502, username: "held_transport_buyer", languageCode: "en" }).sendText("/start");
    try {
      const before = Date.now();
      await t.api.sendMessage(502, "first");
      // Refused with 429 by the emulator, held, and sent again by auto-retry after the hold.
      const second = await t.api.sendMessage(502, "second");
      expect(second.text).toBe("second");
      expect(t.holds.until(502)).toBeGreaterThan(before);
      expect(t.holds.until(503)).toBe(0);
      expect(emulator.stats().rateLimited).toBeGreaterThanOrEqual(1);
      expect(t.fetched()).toBe(0);
    } finally {
      await t.transport.close();
      await emulator.close();
    }
  });

  it("reports a failed request as grammY's HttpError naming the method, never the token", async () => {
    // A port nothing listens on.
    const port = await freePort();
    const transport = createTelegramTransport(
      new TelegramHolds(undefined, uniquePrefix("transport"), logger),
    );
    const a = new Api(token, { apiRoot: `http://127.0.0.1:${port}`, fetch: transport.fetch });
    a.config.use(transport.direct(token, `http://127.0.0.1:${port}`));
    try {
      const err = await a.getMe().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect(String((err as Error).message)).toContain("'getMe'");
      expect(String((err as Error).message)).not.toContain(token);
    } finally {
      await transport.close();
    }
  });

  it("says in the log that Telegram is out of reach, once while it lasts, and when it answers again", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    // A port nothing listens on yet; the emulator takes it later.
    const port = await freePort();
    const root = `http://127.0.0.1:${port}`;
    const transport = createTelegramTransport(
      new TelegramHolds(undefined, uniquePrefix("transport"), logger),
      log,
    );
    const a = new Api(token, { apiRoot: root, fetch: transport.fetch });
    a.config.use(transport.direct(token, root));
    const emulator = { close: async () => {} };
    try {
      for (let i = 0; i < 3; i++) await a.getMe().catch(() => undefined);
      const down = lines.filter((l) => l.msg === "Telegram Bot API out of reach; retrying");
      expect(down).toHaveLength(1);
      expect(down[0]).toMatchObject({ method: "getMe", reason: "ECONNREFUSED", level: 40 });
      expect(JSON.stringify(lines)).not.toContain(token);

      const up = await startTelegramEmulator({ token, port });
      emulator.close = () => up.close();
      await a.getMe();
      await a.getMe();
      const back = lines.filter((l) => l.msg === "Telegram Bot API reachable again");
      expect(back).toHaveLength(1);
      expect(back[0]).toMatchObject({ failures: 3 });
    } finally {
      await transport.close();
      await emulator.close();
    }
  });
});

describe("the Bot API's retries after an outage", () => {
  it("resume a call made while Telegram refused connections within seconds of its return", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    // A port nothing listens on for a while; the emulator takes it later.
    const port = await freePort();
    const root = `http://127.0.0.1:${port}`;
    const transport = createTelegramTransport(
      new TelegramHolds(undefined, uniquePrefix("transport"), logger),
      log,
    );
    const a = new Api(token, { apiRoot: root, fetch: transport.fetch });
    configureApi(a, { transport });
    let emulator: Awaited<ReturnType<typeof startTelegramEmulator>> | undefined;
    try {
      const answeredAt = (p: Promise<unknown>) => p.then(() => Date.now());
      const me = answeredAt(a.getMe());
      const updates = answeredAt(a.getUpdates({ timeout: 0 }));
      // Long enough for retries whose pause kept doubling (3, 6, 12 s…) to fall far behind.
      await new Promise((r) => setTimeout(r, 10_000));
      emulator = await startTelegramEmulator({ token, port });
      const upAt = Date.now();
      // At most one pause (5 s) after Telegram is back, plus slack for a busy machine; pauses
      // doubling from 3 s would answer about 11 s after.
      expect((await me) - upAt).toBeLessThan(9_000);
      expect((await updates) - upAt).toBeLessThan(9_000);
      const down = lines.filter((l) => l.msg === "Telegram Bot API out of reach; retrying");
      expect(down).toHaveLength(1);
      // Neither call knocked more than a few times a second.
      const failures = (lines.find((l) => l.msg === "Telegram Bot API reachable again")?.failures ??
        0) as number;
      expect(failures).toBeGreaterThan(2);
      expect(failures).toBeLessThan(2 * 10 * 3);
    } finally {
      await transport.close();
      await emulator?.close();
    }
  });
  it("gives up on a Bot API that takes a request and never answers, after its timeout, instead of waiting on", async () => {
    // A listener that accepts connections and says nothing: a hung Telegram (or a proxy before it).
    const sockets: import("node:net").Socket[] = [];
    const server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const root = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const transport = createTelegramTransport(
      new TelegramHolds(undefined, uniquePrefix("transport"), logger),
      logger,
      {
        timeoutMs: 300,
      },
    );
    try {
      const res = transport.fetch(`${root}/bot${token}/getMe`, { method: "POST", body: "{}" });
      await expect(res).rejects.toThrow();
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const s of sockets) s.destroy();
      await transport.close();
      await new Promise((r) => server.close(r));
    }
  });
});
