import { HttpError, InputFile, type Transformer } from "grammy";
import { Pool } from "undici";
import { requestWhole } from "../http-client/read-whole.js";
import type { Logger } from "../logger.js";
import { CHAT_SEND_METHODS, type TelegramHolds } from "./telegram-holds.js";
import { reasonOf, TelegramReachability } from "./telegram-reachability.js";

/**
 * The bot's HTTP client for the Bot API. Requests go over a keep-alive undici pool per API root,
 * a send into a chat first waits out a standing 429 hold, and a 429 answer records its
 * `retry_after` for every process (telegram-holds.ts); @grammyjs/auto-retry then repeats the call.
 *
 * It serves grammY in two ways:
 * - `direct(token)`: an API transformer installed first on an Api (bot/api.ts), so it stands
 *   where grammY's own request would: it sends the call's JSON itself. grammY's request builds
 *   an abort controller, a timer and three promises per call, which in a rush was a steady share
 *   of the bot's garbage and CPU per update. Uploads (an `InputFile` anywhere in the payload) go
 *   on to grammY's request.
 * - `fetch`: the client's `fetch`, for those uploads. grammY reads only `json()` of the answer.
 */
export interface TelegramTransport {
  fetch: typeof fetch;
  /** The transformer that sends an Api's calls itself; install it before any other. */
  direct(token: string, apiRoot?: string): Transformer;
  close(): Promise<void>;
}

type Chat = number | string;

const DEFAULT_API_ROOT = "https://api.telegram.org";

/** The chat a call's payload names, if any. */
function chatIdOf(payload: unknown): Chat | undefined {
  const id = (payload as { chat_id?: unknown } | null | undefined)?.chat_id;
  return typeof id === "number" || typeof id === "string" ? id : undefined;
}

/** The chat a call's JSON body names, if any. */
function chatOf(body: unknown): Chat | undefined {
  return typeof body === "string" ? chatIdOf(parsed(body)) : undefined;
}

function retryAfterOf(answer: unknown): number | undefined {
  const v = (answer as { parameters?: { retry_after?: unknown } } | null)?.parameters?.retry_after;
  return typeof v === "number" ? v : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The subset of a fetch Response that grammY and this module use. */
function answer(status: number, text: string): Response {
  const res = {
    status,
    ok: status >= 200 && status < 300,
    json: async () => JSON.parse(text) as unknown,
    text: async () => text,
    clone: () => res,
  };
  return res as unknown as Response;
}

/** Whether grammY must upload this payload as multipart form data (its own test, payload.ts). */
function hasUpload(value: unknown): boolean {
  if (value instanceof InputFile) return true;
  if (typeof value !== "object" || value === null) return false;
  for (const v of Object.values(value)) {
    if (v instanceof InputFile) return true;
    if (typeof v === "object" && v !== null && hasUpload(v)) return true;
  }
  return false;
}

const dropNulls = (_key: string, v: unknown) => v ?? undefined;

type WithKeyboard = { reply_markup?: { inline_keyboard?: unknown[] } };
const emptyRow = (row: unknown) => Array.isArray(row) && row.length === 0;

/**
 * JSON of a payload the way grammY writes it (`null` values are left out), less the empty rows of
 * an inline keyboard (grammY's `InlineKeyboard` starts with one, and `.row()` after no button adds
 * one). A replacer makes `JSON.stringify` several times slower, so it is used only when the plain
 * text has a null; a keyboard is copied only when it has an empty row.
 */
function payloadJson(payload: unknown): string {
  let plain = JSON.stringify(payload);
  const markup = (payload as WithKeyboard | undefined)?.reply_markup;
  if (plain.includes("[]") && markup?.inline_keyboard?.some(emptyRow)) {
    const inline_keyboard = markup.inline_keyboard.filter((row) => !emptyRow(row));
    payload = { ...(payload as object), reply_markup: { ...markup, inline_keyboard } };
    plain = JSON.stringify(payload);
  }
  return plain.includes("null") ? JSON.stringify(payload, dropNulls) : plain;
}

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * How long a Bot API request may wait for its answer's headers, and then between parts of its body:
 * beyond a long poll's 30 s, and far below undici's 300 s, so that a Telegram (or a proxy) that
 * takes requests and answers nothing is given up on and tried again (api.ts) instead of holding
 * the bot's sends for minutes.
 */
export const TELEGRAM_REQUEST_TIMEOUT_MS = 45_000;

export function createTelegramTransport(
  holds: TelegramHolds,
  logger?: Logger,
  opts: { timeoutMs?: number } = {},
): TelegramTransport {
  const reach = new TelegramReachability(logger);
  const pools = new Map<string, Pool>();
  const timeoutMs = opts.timeoutMs ?? TELEGRAM_REQUEST_TIMEOUT_MS;
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 64,
        keepAliveTimeout: 30_000,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  /**
   * One request: waits out a hold on its chat first (`chat` is asked only when a hold stands or
   * Telegram said 429), and records the `retry_after` of a 429.
   */
  const request = async (
    origin: string,
    path: string,
    method: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
    chat: () => Chat | undefined,
  ): Promise<{ status: number; text: string }> => {
    const sends = CHAT_SEND_METHODS.has(method);
    if (sends && holds.any) await holds.wait(chat());
    let res: Awaited<ReturnType<typeof requestWhole>>;
    try {
      res = await requestWhole(poolFor(origin), origin, {
        path,
        method: init.method as "GET" | "POST",
        headers: init.headers,
        body: init.body,
        signal: init.signal,
      });
    } catch (err) {
      // A request this process gave up on (stopping, a lost lease) says nothing of Telegram.
      if (!init.signal?.aborted) reach.failed(method, reasonOf(err));
      throw err;
    }
    if (res.status >= 500) reach.failed(method, `HTTP ${res.status}`);
    else reach.answered();
    if (res.status === 429) {
      const retryAfter = retryAfterOf(parsed(res.text));
      if (retryAfter !== undefined) holds.note(sends ? chat() : undefined, retryAfter);
    }
    return res;
  };

  const fetchFn = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(href);
    const method = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const headers = { ...((init?.headers as Record<string, string> | undefined) ?? {}) };
    delete headers.connection; // undici manages connections; the header is not allowed here
    const body = init?.body as string | undefined;
    const res = await request(
      url.origin,
      url.pathname + url.search,
      method,
      { method: init?.method ?? "GET", headers, body, signal: init?.signal ?? undefined },
      () => chatOf(body),
    );
    return answer(res.status, res.text);
  };

  const direct = (token: string, apiRoot = DEFAULT_API_ROOT): Transformer => {
    const root = new URL(apiRoot);
    const base = `${root.pathname.replace(/\/$/, "")}/bot${token}/`;
    return async (prev, method, payload, signal) => {
      if (hasUpload(payload)) return prev(method, payload, signal);
      let data: unknown;
      try {
        const res = await request(
          root.origin,
          base + method,
          method,
          {
            method: "POST",
            headers: JSON_HEADERS,
            body: payloadJson(payload ?? {}),
            // grammY types it as its polyfill's signal; undici takes either kind.
            signal: signal as AbortSignal | undefined,
          },
          () => chatIdOf(payload),
        );
        data = JSON.parse(res.text) as unknown;
      } catch (err) {
        // As grammY's request reports it: the method, never the URL (it holds the token).
        throw new HttpError(`Network request for '${method}' failed!`, err);
      }
      // Telegram's answer as grammY's request returns it: { ok, result } or { ok: false, error_code, … }.
      return data as Awaited<ReturnType<typeof prev>>;
    };
  };

  return {
    fetch: fetchFn as typeof fetch,
    direct,
    async close() {
      // In-flight requests get a moment to finish; whatever still hangs is cut off.
      await Promise.allSettled(
        [...pools.values()].map((p) =>
          Promise.race([p.close(), new Promise((r) => setTimeout(r, 1000).unref())]).then(() =>
            p.closed ? undefined : p.destroy(),
          ),
        ),
      );
    },
  };
}
