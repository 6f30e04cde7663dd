/**
 * The web chat of the Bot API emulator: a Telegram-like page (GET /) and the JSON endpoints it uses
 * (/demo/api/*), served on the emulator's own port. A person (or a browser test) acts as a simulated
 * user: reads the chat, writes to the bot, presses inline buttons and pays invoices.
 *
 * A group chat of the emulator (`emulator.group(...)`, e.g. the operators' forum) is shown too: its topics
 * and messages (GET /demo/api/group), and a member writes in a topic, replies and presses buttons there
 * (`group` in /demo/api/send and /demo/api/press); only the group's members may act in it.
 *
 * The endpoints act as any user id they are given; the emulator binds to 127.0.0.1 by default and the
 * page is meant for a local demo, never for a public address. Cross-origin requests are refused.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ChatState, type EmulatorCore, type StoredMessage, scopeKey } from "../core.js";
import type { MessageEntity } from "../html.js";
import { inlineButtons } from "../markup.js";
import type { BotCommand, ChatUser } from "../types.js";
import { webChatPage } from "./page.js";

/** Who the page can act as; the demo gives the operator's id to the bot as OPERATOR_IDS. */
export interface WebChatIdentity {
  role: "customer" | "operator";
  id: number;
  username: string;
  firstName: string;
}

export const WEB_CHAT_IDENTITIES: readonly WebChatIdentity[] = [
  { role: "customer", id: 1001, username: "demo_customer", firstName: "Anna" },
  { role: "operator", id: 9001, username: "demo_operator", firstName: "Oleg" },
];

export type WebChatButton =
  | { text: string; type: "callback"; data: string }
  | { text: string; type: "url"; url: string }
  | { text: string; type: "pay" }
  | { text: string; type: "other" };

/** One message as the page shows it. Deleted messages are left out, as in Telegram. */
export interface WebChatMessage {
  id: number;
  from: "bot" | "user";
  /** Unix seconds. */
  date: number;
  edited: boolean;
  /** Plain text (or caption) a person reads. */
  text?: string;
  /** The text as the bot sent it with parse_mode HTML; the page renders it from a tag whitelist. */
  html?: string;
  /** Formatting of `text` when the bot sent entities instead of HTML. */
  entities?: MessageEntity[];
  /** "photo", "document", … for media messages. */
  media?: string;
  /** `paid` once a successful_payment for the invoice's payload is in the chat. */
  invoice?: { title: string; description: string; currency: string; totalAmount: number; paid: boolean };
  /** A successful_payment service message sent by the user's client; `refunded` once the bot refunded it. */
  payment?: { currency: string; totalAmount: number; refunded: boolean };
  /** Inline keyboard rows. */
  keyboard?: WebChatButton[][];
  /** In a forum group: the topic the message is in (none: General). */
  threadId?: number;
  /** The message this one replies to. */
  replyTo?: number;
  /** In a group: the member who wrote a user message (first name). */
  sender?: string;
  /** A "topic created" service message: the topic's name. */
  topicCreated?: string;
}

/** A group chat the page can show, as /demo/api/config lists it. */
export interface WebChatGroupInfo {
  id: number;
  title: string;
  isForum: boolean;
}

/** A group chat as the page shows it: every message (each with its topic) and the live topics. */
export interface WebChatGroupSnapshot {
  group: WebChatGroupInfo;
  bot: { id: number; username: string; firstName: string };
  /** Live forum topics in creation order; General (0) is not listed. */
  topics: { threadId: number; name: string }[];
  messages: WebChatMessage[];
}

export interface WebChatSnapshot {
  user: { id: number; username?: string; firstName: string; languageCode?: string };
  bot: { id: number; username: string; firstName: string };
  /** The command menu this user sees (scope and language resolved as Telegram does). */
  commands: BotCommand[];
  /** The reply keyboard in force (rows of button texts), or null. */
  replyKeyboard: string[][] | null;
  messages: WebChatMessage[];
}

export interface WebChatDeps {
  core: EmulatorCore;
  user(init: { id: number; username?: string; firstName?: string; languageCode?: string }): ChatUser;
  /** A member of a group chat the emulator knows (joins it); undefined when there is no such group. */
  member?(groupId: number, init: { id: number }): ChatUser | undefined;
}

export interface WebChat {
  /** Answers the request when it is one of the web chat's routes; returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** Ends every open event stream. */
  close(): void;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_TEXT_CHARS = 4096;
const ANSWER_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 15_000;
/** Several changes in quick succession (an edit right after a send) become one event. */
const COALESCE_MS = 25;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, "send the body as application/json");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, "the body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

function positiveId(value: unknown, field: string): number {
  const n = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0) {
    throw new HttpError(400, `${field} must be a positive whole number`);
  }
  return n;
}

function groupId(value: unknown): number {
  const n = typeof value === "string" && /^-\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n >= 0) {
    throw new HttpError(400, "group must be a group chat id (a negative whole number)");
  }
  return n;
}

function optionalLanguage(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(value)) {
    throw new HttpError(400, 'lang must be a language code such as "en" or "ru"');
  }
  return value;
}

/** Is this request from a page of another site (a CSRF attempt or DNS rebinding)? */
function crossOrigin(req: IncomingMessage): boolean {
  if (req.headers["sec-fetch-site"] === "cross-site") return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

function toButtons(markup: Record<string, unknown> | undefined): WebChatButton[][] | undefined {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows) || inlineButtons(markup).length === 0) return undefined;
  return (rows as Record<string, unknown>[][]).map((row) =>
    row.map((b): WebChatButton => {
      const text = String(b.text);
      if (typeof b.callback_data === "string") return { text, type: "callback", data: b.callback_data };
      if (typeof b.url === "string") return { text, type: "url", url: b.url };
      if (b.pay === true) return { text, type: "pay" };
      return { text, type: "other" };
    }),
  );
}

function toWebMessage(m: StoredMessage, paidPayloads: Set<string>, core: EmulatorCore): WebChatMessage {
  const isHtml = m.parseMode?.toLowerCase() === "html" && m.html !== undefined;
  const payment = m.successfulPayment as
    | { currency?: unknown; total_amount?: unknown; telegram_payment_charge_id?: unknown }
    | undefined;
  const charge = core.charges.get(String(payment?.telegram_payment_charge_id));
  const keyboard = toButtons(m.replyMarkup);
  return {
    id: m.messageId,
    from: m.from,
    date: m.date,
    edited: m.edits > 0,
    ...(m.text !== undefined ? { text: m.text } : {}),
    ...(isHtml ? { html: m.html } : {}),
    ...(!isHtml && m.entities?.length ? { entities: m.entities } : {}),
    ...(m.media ? { media: m.media.kind } : {}),
    ...(m.invoice
      ? {
          invoice: {
            title: m.invoice.title,
            description: m.invoice.description,
            currency: m.invoice.currency,
            totalAmount: m.invoice.totalAmount,
            paid: paidPayloads.has(m.invoice.payload),
          },
        }
      : {}),
    ...(payment
      ? {
          payment: {
            currency: String(payment.currency),
            totalAmount: Number(payment.total_amount),
            refunded: charge?.refunded === true,
          },
        }
      : {}),
    ...(keyboard ? { keyboard } : {}),
    ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
    ...(m.replyTo !== undefined ? { replyTo: m.replyTo } : {}),
    ...(m.senderId !== undefined
      ? { sender: core.chats.get(m.senderId)?.firstName ?? `User ${m.senderId}` }
      : {}),
    ...(m.topicCreated !== undefined ? { topicCreated: m.topicCreated } : {}),
  };
}

/** The newest reply keyboard the bot sent, unless a later message removed it. */
function replyKeyboardOf(chat: ChatState): string[][] | null {
  for (let i = chat.messages.length - 1; i >= 0; i--) {
    const m = chat.messages[i]!;
    if (m.from !== "bot" || m.deleted || !m.replyMarkup) continue;
    if (m.replyMarkup.remove_keyboard === true) return null;
    const rows = m.replyMarkup.keyboard;
    if (Array.isArray(rows)) {
      return (rows as unknown[][]).map((row) =>
        row.map((b) => (typeof b === "string" ? b : String((b as { text?: unknown }).text ?? ""))),
      );
    }
  }
  return null;
}

/** Creates the web chat for one emulator; the emulator's HTTP server calls `handle` first. */
export function createWebChat(deps: WebChatDeps): WebChat {
  const { core } = deps;
  const streams = new Set<() => void>();

  /** The chat of a user id, created (with the demo identity's names when it is one) on first use. */
  const chatOf = (id: number, lang?: string): ChatState => {
    if (!core.chats.has(id)) {
      const known = WEB_CHAT_IDENTITIES.find((i) => i.id === id);
      deps.user({
        id,
        firstName: known?.firstName ?? `User ${id}`,
        ...(known ? { username: known.username } : {}),
        ...(lang ? { languageCode: lang } : {}),
      });
    } else if (lang) {
      deps.user({ id, languageCode: lang });
    }
    return core.chats.get(id)!;
  };

  /** Commands for a private chat, looked up in Telegram's order: chat, all private chats, default. */
  const commandsFor = (chat: ChatState): BotCommand[] => {
    const scopes = [{ type: "chat", chat_id: chat.id }, { type: "all_private_chats" }, { type: "default" }];
    for (const scope of scopes) {
      for (const lang of [chat.languageCode, ""]) {
        if (lang === undefined) continue;
        const set = core.commandSets.get(scopeKey(scope, lang));
        if (set) return set.map((c) => ({ ...c }));
      }
    }
    return [];
  };

  const snapshot = (chat: ChatState): WebChatSnapshot => {
    const bot = core.botUser();
    const paidPayloads = new Set(
      chat.messages
        .map((m) => m.successfulPayment?.invoice_payload)
        .filter((p): p is string => typeof p === "string"),
    );
    return {
      user: {
        id: chat.id,
        ...(chat.username ? { username: chat.username } : {}),
        firstName: chat.firstName,
        ...(chat.languageCode ? { languageCode: chat.languageCode } : {}),
      },
      bot: { id: core.botId, username: core.botUsername, firstName: String(bot.first_name) },
      commands: commandsFor(chat),
      replyKeyboard: replyKeyboardOf(chat),
      messages: chat.messages.filter((m) => !m.deleted).map((m) => toWebMessage(m, paidPayloads, core)),
    };
  };

  const groupInfo = (chat: ChatState): WebChatGroupInfo => ({
    id: chat.id,
    title: chat.group?.title ?? "",
    isForum: chat.group?.isForum ?? false,
  });
  const groups = (): WebChatGroupInfo[] =>
    [...core.chats.values()].filter((c) => c.group !== undefined).map(groupInfo);

  /** A group chat the emulator knows, or 404. */
  const groupOf = (id: number): ChatState => {
    const chat = core.chats.get(id);
    if (!chat?.group) throw new HttpError(404, `there is no group chat ${id}`);
    return chat;
  };

  /** The group and the member acting in it; only members may write or press there. */
  const memberOf = (body: Record<string, unknown>, userId: number): { chat: ChatState; member: ChatUser } => {
    const chat = groupOf(groupId(body.group));
    if (!chat.group?.members.has(userId)) {
      throw new HttpError(403, `user ${userId} is not a member of the group ${chat.id}`);
    }
    const member = deps.member?.(chat.id, { id: userId });
    if (!member) throw new HttpError(404, `there is no group chat ${chat.id}`);
    return { chat, member };
  };

  const groupSnapshot = (chat: ChatState): WebChatGroupSnapshot => {
    const bot = core.botUser();
    const topics = [...(chat.group?.topics ?? new Map<number, { name: string; deleted: boolean }>())]
      .filter(([, t]) => !t.deleted)
      .map(([threadId, t]) => ({ threadId, name: t.name }));
    return {
      group: groupInfo(chat),
      bot: { id: core.botId, username: core.botUsername, firstName: String(bot.first_name) },
      topics,
      messages: chat.messages.filter((m) => !m.deleted).map((m) => toWebMessage(m, new Set(), core)),
    };
  };

  /** Where a member's message goes in a group: a topic and/or a reply, both checked before anything is sent. */
  const placement = (chat: ChatState, body: Record<string, unknown>) => {
    const place: { threadId?: number; replyTo?: number } = {};
    if (body.threadId !== undefined && body.threadId !== null && body.threadId !== 0) {
      const threadId = positiveId(body.threadId, "threadId");
      const topic = chat.group?.topics.get(threadId);
      if (!chat.group?.isForum || !topic || topic.deleted) {
        throw new HttpError(404, `there is no topic ${threadId} in the group ${chat.id}`);
      }
      place.threadId = threadId;
    }
    if (body.replyTo !== undefined && body.replyTo !== null) {
      const replyTo = positiveId(body.replyTo, "replyTo");
      const target = chat.messages.find((m) => m.messageId === replyTo && !m.deleted);
      if (!target) throw new HttpError(404, `there is no message ${replyTo} in the group ${chat.id}`);
      if (place.threadId !== undefined && (target.threadId ?? 0) !== place.threadId) {
        throw new HttpError(400, `message ${replyTo} is not in topic ${place.threadId}`);
      }
      place.replyTo = replyTo;
    }
    return place;
  };

  const sendText = async (body: Record<string, unknown>) => {
    const userId = positiveId(body.user, "user");
    const lang = optionalLanguage(body.lang);
    if (typeof body.text !== "string" || body.text.trim() === "")
      throw new HttpError(400, "text must be a non-empty string");
    if (body.text.length > MAX_TEXT_CHARS)
      throw new HttpError(400, `text is longer than ${MAX_TEXT_CHARS} characters`);
    if (body.group !== undefined) {
      const { chat, member } = memberOf(body, userId);
      const place = placement(chat, body);
      chatOf(userId, lang);
      await member.sendText(body.text, place);
      return { ok: true };
    }
    chatOf(userId, lang);
    await deps.user({ id: userId }).sendText(body.text);
    return { ok: true };
  };

  /** Sends a callback_query for a button of a bot message and waits (up to 10 s) for the bot's answer. */
  const press = async (body: Record<string, unknown>) => {
    const userId = positiveId(body.user, "user");
    const messageId = positiveId(body.messageId, "messageId");
    const lang = optionalLanguage(body.lang);
    const data = body.data;
    const bytes = typeof data === "string" ? Buffer.byteLength(data, "utf8") : 0;
    if (typeof data !== "string" || bytes < 1 || bytes > 64)
      throw new HttpError(400, "data must be 1-64 bytes of text");
    const chat = body.group !== undefined ? memberOf(body, userId).chat : chatOf(userId, lang);
    const message = chat.messages.find((m) => m.messageId === messageId && m.from === "bot" && !m.deleted);
    if (!message) throw new HttpError(404, `there is no bot message ${messageId} in chat ${chat.id}`);
    const user = chatOf(userId, lang);
    chat.started = true;
    const queryId = core.newQueryId();
    const waiting = core.waitForAnswer(core.callbackQueries, queryId, userId, ANSWER_TIMEOUT_MS);
    core.enqueue({
      callback_query: {
        id: queryId,
        from: core.userObject(user),
        message: core.toTelegramMessage(message),
        chat_instance: String(chat.id * 7 + 1_000_000_000_000),
        data,
      },
    });
    const answer = await waiting;
    return {
      ok: true,
      answer: answer ? { text: answer.text, show_alert: answer.show_alert, url: answer.url } : null,
    };
  };

  const pay = async (body: Record<string, unknown>) => {
    const userId = positiveId(body.user, "user");
    const messageId = positiveId(body.messageId, "messageId");
    const lang = optionalLanguage(body.lang);
    const chat = chatOf(userId, lang);
    if (!chat.messages.some((m) => m.messageId === messageId && m.invoice && !m.deleted)) {
      throw new HttpError(404, `there is no invoice ${messageId} in chat ${userId}`);
    }
    let result: { ok: boolean; error?: string };
    try {
      result = await deps.user({ id: userId }).payInvoice({ messageId });
    } catch (error) {
      throw new HttpError(404, error instanceof Error ? error.message : String(error));
    }
    return result.ok ? { ok: true } : { ok: false, error: result.error ?? "the bot declined the payment" };
  };

  /** Server-sent events: the chat's snapshot at once and after every change (a user's chat, or a group's). */
  const events = (res: ServerResponse, chatId: number) => {
    const chat = chatId < 0 ? groupOf(chatId) : chatOf(chatId);
    const current = () => (chat.group ? groupSnapshot(chat) : snapshot(chat));
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.write("retry: 1000\n\n");
    let timer: NodeJS.Timeout | undefined;
    const push = () => {
      timer = undefined;
      if (!res.writableEnded) res.write(`event: chat\ndata: ${JSON.stringify(current())}\n\n`);
    };
    const listener = (changed: number) => {
      if (changed === chatId && timer === undefined) timer = setTimeout(push, COALESCE_MS);
    };
    core.changeListeners.add(listener);
    const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    const stop = () => {
      core.changeListeners.delete(listener);
      clearInterval(heartbeat);
      clearTimeout(timer);
      streams.delete(stop);
      if (!res.writableEnded) res.end();
    };
    streams.add(stop);
    res.on("close", stop);
    push();
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (crossOrigin(req)) throw new HttpError(403, "requests from other sites are not accepted");
    const route = url.pathname.slice("/demo/api/".length).replace(/\/$/, "");
    const method = req.method ?? "GET";
    const getRoutes = ["config", "chat", "events", "group"];
    const postRoutes: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
      send: sendText,
      press,
      pay,
    };
    if (getRoutes.includes(route)) {
      if (method !== "GET") throw new HttpError(405, `use GET for /demo/api/${route}`);
      if (route === "config") {
        const bot = core.botUser();
        json(res, 200, {
          bot: { id: core.botId, username: core.botUsername, firstName: String(bot.first_name) },
          identities: WEB_CHAT_IDENTITIES,
          groups: groups(),
        });
        return;
      }
      if (route === "group") {
        json(res, 200, groupSnapshot(groupOf(groupId(url.searchParams.get("id") ?? undefined))));
        return;
      }
      if (route === "events" && url.searchParams.has("group")) {
        events(res, groupOf(groupId(url.searchParams.get("group") ?? undefined)).id);
        return;
      }
      const userId = positiveId(url.searchParams.get("user") ?? undefined, "user");
      if (route === "events") {
        events(res, userId);
        return;
      }
      json(res, 200, snapshot(chatOf(userId, optionalLanguage(url.searchParams.get("lang") ?? undefined))));
      return;
    }
    const handler = postRoutes[route];
    if (!handler) throw new HttpError(404, `no such endpoint: /demo/api/${route}`);
    if (method !== "POST") throw new HttpError(405, `use POST for /demo/api/${route}`);
    json(res, 200, await handler(await readJson(req)));
  };

  return {
    async handle(req, res, url) {
      const path = url.pathname;
      if (path === "/" || path === "/demo" || path === "/demo/") {
        if (req.method !== "GET" && req.method !== "HEAD") {
          json(res, 405, { ok: false, error: "use GET for the web chat page" });
          return true;
        }
        const page = webChatPage();
        res.writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": page.csp,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
        });
        res.end(req.method === "HEAD" ? undefined : page.html);
        return true;
      }
      if (!path.startsWith("/demo/")) return false;
      if (!path.startsWith("/demo/api/")) {
        json(res, 404, { ok: false, error: "Not Found" });
        return true;
      }
      try {
        await api(req, res, url);
      } catch (error) {
        if (error instanceof HttpError) json(res, error.status, { ok: false, error: error.message });
        else json(res, 500, { ok: false, error: `internal error: ${String(error)}` });
      }
      return true;
    },
    close() {
      for (const stop of [...streams]) stop();
    },
  };
}
