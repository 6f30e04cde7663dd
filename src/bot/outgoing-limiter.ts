import type { Transformer } from "grammy";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.js";

/**
 * Telegram's sending limits (about 30 messages/s overall, about 1/s per chat) enforced with two
 * token buckets in Redis, so every process sharing the Redis shares the budget. One Lua script
 * refills and takes from both buckets atomically using the Redis server's clock.
 */
export interface OutgoingLimits {
  /** Sends per second for the whole bot. */
  globalPerSecond: number;
  globalBurst: number;
  /** Sends per second into one chat. */
  chatPerSecond: number;
  chatBurst: number;
  /** Longest a call waits for a token before it is sent anyway (auto-retry then handles a 429). */
  maxWaitMs: number;
}

export const DEFAULT_OUTGOING_LIMITS: OutgoingLimits = {
  globalPerSecond: 30,
  globalBurst: 30,
  chatPerSecond: 1,
  chatBurst: 3,
  maxWaitMs: 30_000,
};

/** Bot API methods that put a message into a chat and count against the limits. */
export const LIMITED_METHODS: ReadonlySet<string> = new Set([
  "sendMessage",
  "sendInvoice",
  "editMessageText",
  "editMessageReplyMarkup",
  "copyMessage",
  "sendPhoto",
  "sendDocument",
]);

/**
 * KEYS[1] global bucket, KEYS[2] chat bucket ("" = none).
 * ARGV: globalRate/s, globalBurst, chatRate/s, chatBurst.
 * Returns 0 when a token was taken from both buckets, else the milliseconds to wait.
 */
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function state(key, rate, burst)
  local v = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(v[1])
  local ts = tonumber(v[2])
  if tokens == nil or ts == nil then return burst end
  local elapsed = now - ts
  if elapsed < 0 then elapsed = 0 end
  return math.min(burst, tokens + elapsed * rate / 1000)
end
local gRate, gBurst = tonumber(ARGV[1]), tonumber(ARGV[2])
local cRate, cBurst = tonumber(ARGV[3]), tonumber(ARGV[4])
local g = state(KEYS[1], gRate, gBurst)
local c = nil
if KEYS[2] ~= '' then c = state(KEYS[2], cRate, cBurst) end
local wait = 0
if g < 1 then wait = math.max(wait, math.ceil((1 - g) * 1000 / gRate)) end
if c ~= nil and c < 1 then wait = math.max(wait, math.ceil((1 - c) * 1000 / cRate)) end
if wait > 0 then return wait end
redis.call('HSET', KEYS[1], 'tokens', g - 1, 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(gBurst * 1000 / gRate) + 1000)
if c ~= nil then
  redis.call('HSET', KEYS[2], 'tokens', c - 1, 'ts', now)
  redis.call('PEXPIRE', KEYS[2], math.ceil(cBurst * 1000 / cRate) + 1000)
end
return 0
`;

export interface OutgoingLimiter {
  /** Resolves when a send into `chatId` (or a chat-less send) may go out, or after maxWaitMs. */
  acquire(chatId: number | string | undefined): Promise<void>;
  /** Takes a token if one is free: 0 when taken, else the milliseconds until one will be. */
  tryAcquire(chatId: number | string | undefined): Promise<number>;
}

interface TakeTokenRedis {
  shopbotTakeToken(global: string, chat: string, ...args: (string | number)[]): Promise<number>;
}

export function createOutgoingLimiter(deps: {
  redis: Redis;
  prefix: string;
  logger: Logger;
  limits?: Partial<OutgoingLimits>;
}): OutgoingLimiter {
  const limits = { ...DEFAULT_OUTGOING_LIMITS, ...deps.limits };
  const redis = deps.redis as Redis & Partial<TakeTokenRedis>;
  if (typeof redis.shopbotTakeToken !== "function") {
    redis.defineCommand("shopbotTakeToken", { numberOfKeys: 2, lua: TAKE_LUA });
  }
  const globalKey = `${deps.prefix}tg-limit:global`;
  const take = (chatId: number | string | undefined) =>
    (redis as Redis & TakeTokenRedis).shopbotTakeToken(
      globalKey,
      chatId === undefined ? "" : `${deps.prefix}tg-limit:chat:${chatId}`,
      limits.globalPerSecond,
      limits.globalBurst,
      limits.chatPerSecond,
      limits.chatBurst,
    );
  return {
    tryAcquire: take,
    async acquire(chatId) {
      const deadline = Date.now() + limits.maxWaitMs;
      for (;;) {
        let wait: number;
        try {
          wait = await take(chatId);
        } catch (err) {
          // Redis trouble must not stop messages: send, and let auto-retry handle a 429.
          deps.logger.warn({ err }, "outgoing limiter unavailable; sending without it");
          return;
        }
        if (wait <= 0) return;
        const left = deadline - Date.now();
        if (left <= 0) {
          deps.logger.warn({ chatId }, "outgoing limiter wait exceeded; sending anyway");
          return;
        }
        await new Promise((r) => setTimeout(r, Math.min(wait, left)));
      }
    },
  };
}

function chatOf(payload: unknown): number | string | undefined {
  if (payload && typeof payload === "object" && "chat_id" in payload) {
    const id = (payload as { chat_id: unknown }).chat_id;
    if (typeof id === "number" || typeof id === "string") return id;
  }
  return undefined;
}

/** An API transformer that waits for the limiter before each limited method. */
export function outgoingLimiterTransformer(limiter: OutgoingLimiter): Transformer {
  return async (prev, method, payload, signal) => {
    if (LIMITED_METHODS.has(method)) await limiter.acquire(chatOf(payload));
    return prev(method, payload, signal);
  };
}

const LIMITED_FETCH = Symbol.for("shopbot.limitedFetch");

/** True when `fetch` is one made by {@link limitedFetch} (so a transformer must not limit twice). */
export function isLimitedFetch(fetchFn: unknown): boolean {
  return (
    typeof fetchFn === "function" && (fetchFn as unknown as Record<symbol, unknown>)[LIMITED_FETCH] === true
  );
}

/**
 * The same limit at the HTTP level, for the bot's client options. Conversations build their own
 * `Api` objects from the bot's client options (transformers on `bot.api` do not reach them), and
 * a transformer installed inside a conversation would also run on every replay; limiting the
 * real request here counts each message exactly once.
 */
export function limitedFetch(limiter: OutgoingLimiter): typeof fetch {
  const fn = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = url.slice(url.lastIndexOf("/") + 1).split("?")[0] ?? "";
    if (LIMITED_METHODS.has(method)) {
      let chatId: number | string | undefined;
      if (typeof init?.body === "string") {
        try {
          chatId = chatOf(JSON.parse(init.body));
        } catch {
          chatId = undefined;
        }
      }
      await limiter.acquire(chatId);
    }
    // grammY passes an AbortSignal from a polyfill; bridge it to a native one for Node's fetch.
    const { signal, ...rest } = init ?? {};
    const controller = new AbortController();
    const foreign = signal as unknown as
      | {
          aborted: boolean;
          addEventListener(t: string, f: () => void): void;
          removeEventListener(t: string, f: () => void): void;
        }
      | undefined;
    const abort = () => controller.abort();
    if (foreign?.aborted) controller.abort();
    foreign?.addEventListener("abort", abort);
    try {
      return await fetch(input, { ...(rest as RequestInit), signal: controller.signal });
    } finally {
      foreign?.removeEventListener("abort", abort);
    }
  };
  Object.defineProperty(fn, LIMITED_FETCH, { value: true });
  return fn as typeof fetch;
}
