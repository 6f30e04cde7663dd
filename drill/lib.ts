/**
 * What the fault drills share: the result row, the bot's log scanner, a stack whose bot can be
 * killed and restarted, patient customers, and readers of what ended up in Redis and in the chats.
 */
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import { sleep } from "../bench/lib.js";
import {
  API_KEY,
  BOT_TOKEN,
  type BotProcess,
  nextUserId,
  type Stack,
  type StackOptions,
  startBotProcess,
  startStack,
  WEBHOOK_SECRET,
} from "../bench/stack.js";
import type { EmulatorCore } from "../sandbox/telegram/core.js";
import type { ChatMessage, ChatUser, TelegramEmulator } from "../sandbox/telegram/index.js";
import { orderKeys } from "../src/orders/keys.js";
import { decodeRecord } from "../src/orders/record.js";
import type { Order } from "../src/orders/types.js";

/** One line of the drill table: a check, whether it held, and the figure behind the verdict. */
export interface Row {
  /** Drill number and letter, e.g. "1a". */
  id: string;
  check: string;
  pass: boolean;
  figure: string;
}

/** Lease of a claimed job and of a taken outgoing message, as in production (drill/bot-child.ts keeps it). */
export { JOB_LEASE_MS as LEASE_MS } from "../src/orders/worker.js";

export const BOT_CHILD = fileURLToPath(new URL("./bot-child.ts", import.meta.url));

export const rand = (min: number, max: number) => min + Math.random() * (max - min);
export const randInt = (min: number, maxInclusive: number) => Math.floor(rand(min, maxInclusive + 1));
export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

// ---------- log scan ----------

/** A log line at level error (50) or above. */
export interface ErrorLine {
  level: number;
  msg: string;
  err?: string;
  /** The first frames of the error's stack, where the log has one. */
  stack?: string;
  /** What the update carried, when the line names it (update_id) — for reproducing. */
  updateId?: number;
}

/** Credentials of the payment providers' emulators (drill 9). */
export const YOOKASSA_SHOP_ID = "506751";
export const YOOKASSA_SECRET = "test_drill-yookassa-secret-7c31";
export const CRYPTOPAY_TOKEN = "12345:AAdrill-cryptopay-token-5e02";

/** The secrets a drill bot knows, by label (the values themselves are never printed). */
export const SECRETS: { label: string; value: string }[] = [
  { label: "bot token", value: BOT_TOKEN },
  { label: "bot token (secret part)", value: BOT_TOKEN.slice(BOT_TOKEN.indexOf(":") + 1) },
  { label: "reseller API key", value: API_KEY },
  { label: "webhook secret", value: WEBHOOK_SECRET },
  { label: "YooKassa secret key", value: YOOKASSA_SECRET },
  { label: "Crypto Pay token", value: CRYPTOPAY_TOKEN },
];

/**
 * Reads a bot's output as it is written, line by line: counts lines, finds secrets and keeps
 * the error lines (level ≥ 50). Memory stays bounded whatever the log volume.
 */
export class LogSink {
  lines = 0;
  bytes = 0;
  /** Lines at level debug (20) or below: proof that LOG_LEVEL=debug took effect. */
  debugLines = 0;
  /** Bot processes whose output came here. */
  processes = 0;
  errorCount = 0;
  /** Error lines that do not say the bot will retry (see {@link unrecovered}). */
  unrecoveredCount = 0;
  /** Up to 200 error lines, oldest first. */
  readonly errors: ErrorLine[] = [];
  /** Lines containing each secret, by label. */
  readonly secretHits = new Map<string, number>();
  private carry = "";

  constructor(readonly name: string) {}

  feed = (chunk: string): void => {
    const text = this.carry + chunk;
    const parts = text.split("\n");
    this.carry = parts.pop() ?? "";
    for (const line of parts) this.line(line);
  };

  /** The process ended: its unfinished last line counts too. */
  flush(): void {
    if (this.carry) this.line(this.carry);
    this.carry = "";
  }

  private line(line: string): void {
    if (line.length === 0) return;
    this.lines += 1;
    this.bytes += line.length + 1;
    for (const s of SECRETS) {
      if (line.includes(s.value)) this.secretHits.set(s.label, (this.secretHits.get(s.label) ?? 0) + 1);
    }
    if (!line.startsWith("{")) return;
    let parsed: {
      level?: unknown;
      msg?: unknown;
      err?: { message?: unknown; stack?: unknown };
      update_id?: unknown;
    };
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed.level !== "number") return;
    if (parsed.level <= 20) this.debugLines += 1;
    if (parsed.level < 50) return;
    const error: ErrorLine = {
      level: parsed.level,
      msg: String(parsed.msg ?? ""),
      ...(parsed.err?.message !== undefined ? { err: String(parsed.err.message).slice(0, 200) } : {}),
      ...(typeof parsed.err?.stack === "string"
        ? { stack: parsed.err.stack.split("\n").slice(1, 6).join("\n") }
        : {}),
      ...(typeof parsed.update_id === "number" ? { updateId: parsed.update_id } : {}),
    };
    this.errorCount += 1;
    if (unrecovered([error]).length > 0) this.unrecoveredCount += 1;
    if (this.errors.length < 200) this.errors.push(error);
  }
}

/** Every bot log of a drill run, one sink per drill. */
export class LogBook {
  readonly sinks: LogSink[] = [];
  sink(name: string): LogSink {
    const s = new LogSink(name);
    this.sinks.push(s);
    return s;
  }
}

/** Error lines that do not say the bot recovers by itself ("will retry", "retrying"). */
export function unrecovered(errors: ErrorLine[]): ErrorLine[] {
  return errors.filter((e) => !/retry|retrying/i.test(e.msg));
}

/** "msg ×n; msg ×m" for a list of error lines. */
export function summarizeErrors(errors: ErrorLine[], max = 4): string {
  const counts = new Map<string, number>();
  for (const e of errors) {
    const key = e.err ? `${e.msg}: ${e.err}` : e.msg;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([k, n]) => `"${k.slice(0, 120)}" ×${n}`)
    .join("; ");
}

// ---------- the stack ----------

/** The bench stack running drill/bot-child.ts at LOG_LEVEL=debug, with a bot that can be killed and restarted. */
export interface DrillStack {
  stack: Stack;
  sink: LogSink;
  /** The bot process running now. */
  bot(): BotProcess;
  /** SIGKILL, as a crash or an OOM kill would. */
  kill9(): Promise<void>;
  /** Starts the bot again with the same environment; resolves once it is ready. */
  restart(): Promise<void>;
  /** A new simulated customer (English, with a username). */
  customer(): ChatUser;
  close(): Promise<void>;
}

export async function startDrillStack(
  opts: Partial<StackOptions> & { liftLimits?: boolean },
  sink: LogSink,
): Promise<DrillStack> {
  const { liftLimits, extraEnv, ...rest } = opts;
  sink.processes += 1;
  const stack = await startStack({
    webhooks: true,
    pollIntervalSeconds: 1,
    deliveryDelayMs: 300,
    ...rest,
    botArgs: ["--import", "tsx", BOT_CHILD],
    onBotOutput: sink.feed,
    extraEnv: {
      LOG_LEVEL: "debug",
      DEFAULT_LOCALE: "en",
      ...(liftLimits ? { DRILL_LIFT_LIMITS: "1" } : {}),
      ...extraEnv,
    },
  });
  let current = stack.bot;
  return {
    stack,
    sink,
    bot: () => current,
    async kill9() {
      await current.kill("SIGKILL");
      sink.flush();
    },
    async restart() {
      sink.processes += 1;
      current = await startBotProcess(stack.env, stack.httpPort, ["--import", "tsx", BOT_CHILD], {
        onOutput: sink.feed,
      });
    },
    customer() {
      const id = nextUserId();
      return stack.emulator.user({ id, username: `drill_${id}`, languageCode: "en" });
    },
    async close() {
      await current.kill("SIGTERM");
      sink.flush();
      await stack.close();
    },
  };
}

/**
 * The emulator's in-process state, read without copies: the public accessors copy every
 * message and call on each read, which is too slow for thousands of inputs. Only the fuzz drill
 * and answer detection use it, read-only.
 */
export function emulatorCore(emulator: TelegramEmulator): EmulatorCore {
  const core = (emulator as unknown as { core?: EmulatorCore }).core;
  if (!core) throw new Error("the Telegram emulator does not expose its state (core)");
  return core;
}

// ---------- customers ----------

export const STARS = "⭐ Telegram Stars";
export const FIFTY = "50 ⭐";
export const TO_MYSELF = /^🙋 To myself/;
export const PAY = /^💳 Pay/;

/** Id of the newest message in the chat (0 when empty): later messages have larger ids. */
export function lastMessageId(user: ChatUser): number {
  return user.messages().at(-1)?.messageId ?? 0;
}

function labelMatches(label: string | RegExp, text: string): boolean {
  return typeof label === "string" ? text.trim() === label : label.test(text);
}

function buttonLabels(m: ChatMessage): string[] {
  const kb = (m.replyMarkup as { inline_keyboard?: { text: string }[][] } | undefined)?.inline_keyboard;
  return (kb ?? []).flat().map((b) => b.text);
}

/** Waits for a bot message newer than `after` that has a button with this label; returns its id. */
export async function waitForButton(
  user: ChatUser,
  label: string | RegExp,
  after: number,
  timeoutMs: number,
): Promise<number> {
  let found: number | undefined;
  await user.waitFor((msgs) => {
    const m = msgs
      .filter(
        (x) =>
          x.from === "bot" &&
          !x.deleted &&
          x.messageId > after &&
          buttonLabels(x).some((l) => labelMatches(label, l)),
      )
      .at(-1);
    found = m?.messageId;
    return found !== undefined;
  }, timeoutMs);
  return found as number;
}

/** Presses the button with this label on the newest bot message newer than `after`. */
export async function pressNew(user: ChatUser, label: string | RegExp, after: number, timeoutMs: number) {
  const messageId = await waitForButton(user, label, after, timeoutMs);
  await user.pressButton(label, { messageId, timeoutMs });
}

/** Sends /start and walks the Stars flow up to the invoice; returns the invoice's message id. */
export async function walkToInvoice(user: ChatUser, stepMs: number): Promise<number> {
  const mark = lastMessageId(user);
  await user.sendText("/start");
  await pressNew(user, STARS, mark, stepMs);
  await pressNew(user, FIFTY, mark, stepMs);
  await pressNew(user, TO_MYSELF, mark, stepMs);
  await pressNew(user, PAY, mark, stepMs);
  let invoiceId = 0;
  await user.waitFor((msgs) => {
    invoiceId = msgs.filter((m) => m.invoice && m.messageId > mark).at(-1)?.messageId ?? 0;
    return invoiceId > 0;
  }, stepMs);
  return invoiceId;
}

export interface Purchase {
  /** The order the customer paid (the invoice payload), when a payment went through. */
  orderId?: string;
  attempts: number;
  /** Why the last failed attempt failed. */
  lastError?: string;
}

/**
 * A customer who copes with a bot that may be down: walks the Stars flow and pays, and when a
 * step is not answered in time starts again (/start) or pays the invoice already held. At most
 * `attempts` tries, and never past `deadline` (ms since epoch).
 */
export async function buyStarsPatiently(
  user: ChatUser,
  opts: { attempts: number; stepMs: number; deadline: number },
): Promise<Purchase> {
  const refused = new Set<number>();
  let lastError: string | undefined;
  let attempts = 0;
  while (attempts < opts.attempts && Date.now() < opts.deadline) {
    attempts += 1;
    try {
      let invoice = user
        .messages()
        .filter((m) => m.invoice && !m.deleted && !refused.has(m.messageId))
        .at(-1);
      if (!invoice) {
        const id = await walkToInvoice(user, opts.stepMs);
        invoice = user.messages().find((m) => m.messageId === id);
      }
      if (!invoice?.invoice) throw new Error("no invoice");
      const paid = await user.payInvoice({ messageId: invoice.messageId });
      if (paid.ok) return { orderId: invoice.invoice.payload, attempts };
      // Refused by the bot (not a timeout): this invoice is done with; get a new one.
      if (paid.error && !/did not answer/.test(paid.error)) refused.add(invoice.messageId);
      throw new Error(`payment not accepted: ${paid.error ?? "?"}`);
    } catch (err) {
      lastError = (err instanceof Error ? err.message : String(err)).split("\n")[0];
    }
  }
  return { attempts, ...(lastError !== undefined ? { lastError } : {}) };
}

// ---------- what ended up where ----------

/** The order as Redis has it (its record and final message's sent mark, src/orders/keys.ts). */
export async function storedOrder(redis: Redis, prefix: string, id: string): Promise<Order | null> {
  const keys = orderKeys(prefix);
  const [rec, sent] = await redis.mget(keys.order(id), keys.sent(id));
  return decodeRecord(rec, sent)?.order ?? null;
}

/** Order state as Redis has it. */
export interface StoredOrder {
  state: string;
  stuck: boolean;
  finalNotifiedAt?: number;
}

export async function readOrder(redis: Redis, prefix: string, id: string): Promise<StoredOrder | null> {
  const order = await storedOrder(redis, prefix, id);
  if (!order) return null;
  return {
    state: order.state,
    stuck: order.stuck === true,
    ...(order.finalNotifiedAt !== undefined ? { finalNotifiedAt: order.finalNotifiedAt } : {}),
  };
}

export const FINAL_STATES = ["delivered", "failed", "rejected", "expired", "cancelled"];

/** Final message texts (English) of one order: delivered, failed or refused. */
export function finalTextRe(orderId: string): RegExp {
  return new RegExp(`Order #${orderId.slice(0, 8)} (delivered|could not be delivered|was refused)`);
}

/**
 * New messages (sendMessage calls, not edits) the bot sent into each chat, by chat id: the
 * texts of accepted calls.
 */
export function sentTexts(emulator: TelegramEmulator): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const c of emulator.calls("sendMessage")) {
    if (!c.ok) continue;
    const chat = Number(c.payload.chat_id);
    const text = typeof c.payload.text === "string" ? c.payload.text : "";
    const list = out.get(chat) ?? [];
    list.push(text);
    out.set(chat, list);
  }
  return out;
}

/**
 * A final message goes out at least once: one Telegram accepted just before a kill, before the
 * bot recorded it, is sent again after the restart (`sendMessage` has no idempotency key, so the
 * bot repeats rather than risk never sending). A repeat whose first copy reached Telegram at most
 * this long before a kill is that case; any other repeat fails a drill's check.
 */
export const SEND_RECORD_WINDOW_MS = 250;

/**
 * One order's final message sent more than once: when its copies went out, relative to `started`,
 * the kill nearest the first, and whether that kill came within {@link SEND_RECORD_WINDOW_MS}
 * after it (the repeat the bot accepts, see there).
 */
export function explainRepeat(
  emulator: TelegramEmulator,
  chatId: number,
  orderId: string,
  killedAt: readonly number[],
  started: number,
): { inFlight: boolean; text: string } {
  const re = finalTextRe(orderId);
  const at = emulator
    .calls("sendMessage")
    .filter((c) => c.ok && Number(c.payload.chat_id) === chatId && re.test(String(c.payload.text ?? "")))
    .map((c) => c.at);
  const first = at[0] ?? 0;
  const kill = killedAt.reduce((best, k) => (Math.abs(k - first) < Math.abs(best - first) ? k : best), 0);
  const rel = (t: number) => `+${((t - started) / 1000).toFixed(3)} s`;
  return {
    inFlight: kill >= first && kill - first <= SEND_RECORD_WINDOW_MS,
    text: `${orderId.slice(0, 8)} sent at ${at.map(rel).join(" and ")}, nearest kill ${rel(kill)}`,
  };
}

/** How many final messages of `orderId` were sent into `chatId`. */
export function finalMessages(texts: Map<number, string[]>, chatId: number, orderId: string): number {
  const re = finalTextRe(orderId);
  return (texts.get(chatId) ?? []).filter((t) => re.test(t)).length;
}

/** Work still waiting or running, by type: jobs (`submit`, `track`, …) and outgoing messages (`final`, `card`, `alert`). */
/**
 * Reads the paid orders `orderIds` into `states` and says whether they have settled: each final or
 * flagged stuck, no `pay`, poll, notification, refund or card update left in the schedule or the
 * outgoing queue, and no next step left for a final one.
 */
export async function paidOrdersSettled(
  { client: redis, prefix }: { client: Redis; prefix: string },
  orderIds: string[],
  states: Map<string, StoredOrder | null>,
): Promise<boolean> {
  for (const id of orderIds) states.set(id, await readOrder(redis, prefix, id));
  const final = (o: StoredOrder | null) => o !== null && FINAL_STATES.includes(o.state);
  if (![...states.values()].every((o) => final(o) || o?.stuck)) return false;
  const jobs = await jobsByType(redis, prefix);
  if (!["submit", "track", "final", "refund", "card"].every((t) => !jobs.get(t))) return false;
  const settledIds = [...states.entries()].filter(([, o]) => final(o)).map(([id]) => id);
  return (await ordersWithStep(redis, prefix, settledIds)) === 0;
}

/** How many of `orderIds` still have their next step (`step:<id>`: expiry, pay, polling) in the schedule. */
export async function ordersWithStep(redis: Redis, prefix: string, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const scores = await redis.zmscore(`${prefix}jobs`, ...orderIds.map((id) => `step:${id}`));
  return scores.filter((s) => s !== null).length;
}

export async function jobsByType(redis: Redis, prefix: string): Promise<Map<string, number>> {
  // Jobs of the schedule, and messages waiting in the outgoing queue or being sent (final, card, alert).
  const members = [
    ...(await redis.zrange(`${prefix}jobs`, 0, -1)),
    ...(await redis.zrange(`${prefix}out:queue`, 0, -1)),
    ...(await redis.zrange(`${prefix}out:leases`, 0, -1)),
  ];
  const out = new Map<string, number>();
  for (const m of members) {
    const type = m.split(":")[0] ?? "";
    out.set(type, (out.get(type) ?? 0) + 1);
  }
  return out;
}

/** Waits until `check` holds or `timeoutMs` passes; returns whether it held. */
export async function settle(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  everyMs = 250,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** When the first final message of `orderId` went into `chatId` (ms since epoch), if one did. */
export function finalSentAt(emulator: TelegramEmulator, chatId: number, orderId: string): number | undefined {
  const re = finalTextRe(orderId);
  return emulator
    .calls("sendMessage")
    .find((c) => c.ok && Number(c.payload.chat_id) === chatId && re.test(String(c.payload.text ?? "")))?.at;
}

export const PAY_ENDPOINT = "POST /api/reseller/order/pay";

/** How many of `orderIds` have a `pay` the reseller sandbox is holding without an answer (its "hang" fault). */
export function hangingPays(sandbox: Stack["sandbox"], orderIds: readonly string[]): number {
  const ids = new Set(orderIds);
  const held = new Set<string>();
  for (const r of sandbox.requests()) {
    const id = (r.body as { custom_id?: unknown } | null)?.custom_id;
    if (r.path === "/api/reseller/order/pay" && r.status === 0 && typeof id === "string" && ids.has(id))
      held.add(id);
  }
  return held.size;
}

/** The order's record as Redis has it, for its transition times. */
export async function orderTimes(redis: Redis, prefix: string, id: string): Promise<Record<string, number>> {
  return (await storedOrder(redis, prefix, id))?.times ?? {};
}
