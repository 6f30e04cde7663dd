import { Pool } from "undici";
import { requestWhole } from "../http-client/read-whole.js";
import { CHAT_SEND_METHODS, type TelegramHolds } from "./telegram-holds.js";

/**
 * The bot's HTTP client for the Bot API, handed to grammY as the client's `fetch`: requests go
 * over a keep-alive undici pool per API root (Node's global fetch builds WHATWG requests,
 * streams and abort signals per call, which was the largest CPU cost per update), a send into a
 * chat first waits out a standing 429 hold, and a 429 answer records its `retry_after` for
 * every process (telegram-holds.ts); @grammyjs/auto-retry then repeats the call.
 *
 * Being the client's `fetch`, it also serves the Api objects conversations build from the
 * client options, and counts each real request once (a transformer inside a conversation would
 * also run on every replay). grammY reads only `json()` of the answer.
 */
export interface TelegramTransport {
  fetch: typeof fetch;
  close(): Promise<void>;
}

type Chat = number | string;

function chatOf(body: unknown): Chat | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const id = (JSON.parse(body) as { chat_id?: unknown }).chat_id;
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterOf(text: string): number | undefined {
  try {
    const v = (JSON.parse(text) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof v === "number" ? v : undefined;
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

export function createTelegramTransport(holds: TelegramHolds): TelegramTransport {
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: 64, keepAliveTimeout: 30_000 });
      pools.set(origin, pool);
    }
    return pool;
  };

  const fetchFn = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(href);
    const method = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const sends = CHAT_SEND_METHODS.has(method);
    // The chat is looked up only when it matters: a hold stands, or Telegram said 429.
    let chat: Chat | undefined;
    if (sends && holds.any) {
      chat = chatOf(init?.body);
      await holds.wait(chat);
    }
    const headers = { ...((init?.headers as Record<string, string> | undefined) ?? {}) };
    delete headers.connection; // undici manages connections; the header is not allowed here
    const res = await requestWhole(poolFor(url.origin), url.origin, {
      path: url.pathname + url.search,
      method: (init?.method ?? "GET") as "GET" | "POST",
      headers,
      body: init?.body as string | undefined,
      signal: init?.signal ?? undefined,
    });
    if (res.status === 429) {
      const retryAfter = retryAfterOf(res.text);
      if (retryAfter !== undefined) holds.note(sends ? (chat ?? chatOf(init?.body)) : undefined, retryAfter);
    }
    return answer(res.status, res.text);
  };

  return {
    fetch: fetchFn as typeof fetch,
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
