import { randomBytes } from "node:crypto";
import type { MessageEntity } from "./html.js";
import { ApiError, badRequest, inlineButtons } from "./markup.js";
import { SendRateLimiter } from "./rate-limit.js";
import type {
  BotCommand,
  CallbackAnswer,
  ChatMessage,
  InvoiceInfo,
  RateLimits,
  RecordedCall,
} from "./types.js";

/** Update kinds Telegram delivers when allowed_updates was never set (or set to []). */
const DEFAULT_EXCLUDED_UPDATES = new Set(["chat_member", "message_reaction", "message_reaction_count"]);
const UPDATE_QUEUE_LIMIT = 100_000;

export type Update = { update_id: number } & Record<string, unknown>;

export interface StoredMessage {
  messageId: number;
  chatId: number;
  from: "bot" | "user";
  date: number;
  editDate?: number;
  text?: string;
  html?: string;
  parseMode?: string;
  entities?: MessageEntity[];
  replyMarkup?: Record<string, unknown>;
  invoice?: InvoiceInfo;
  media?: { kind: string; value: unknown };
  /** The bytes of an uploaded media file. */
  file?: { name: string; data: Buffer };
  successfulPayment?: Record<string, unknown>;
  /** For user messages: the Message object as delivered in the update. */
  raw?: Record<string, unknown>;
  /** In a forum: the topic (message_thread_id) the message is in; none for the General topic. */
  threadId?: number;
  /** The message this one replies to. */
  replyTo?: number;
  /** In a group: the member who wrote a user message. */
  senderId?: number;
  /** A service message: `forum_topic_created` with the topic's name. */
  topicCreated?: string;
  /** forwardMessage: where the original came from. */
  forwardOrigin?: Record<string, unknown>;
  edits: number;
  deleted: boolean;
}

export interface ChatState {
  id: number;
  username?: string;
  firstName: string;
  languageCode?: string;
  started: boolean;
  blocked: boolean;
  nextMessageId: number;
  messages: StoredMessage[];
  listeners: Set<() => void>;
  /** Group chats (negative ids): a supergroup the bot is an admin of, optionally a forum. */
  group?: GroupState;
}

export interface GroupState {
  title: string;
  isForum: boolean;
  /** User ids of the members (besides the bot). */
  members: Set<number>;
  /** Forum topics by message_thread_id. */
  topics: Map<number, { name: string; deleted: boolean }>;
}

export interface WebhookState {
  url: string;
  secretToken?: string;
  maxConnections: number;
  lastError?: { date: number; message: string };
}

interface PendingAnswer<T> {
  userId: number;
  answered: boolean;
  resolve: (value: T) => void;
}

export interface Charge {
  userId: number;
  chargeId: string;
  currency: string;
  totalAmount: number;
  payload: string;
  refunded: boolean;
}

interface Poll {
  wake: () => void;
  terminate: () => void;
}

export const unixNow = () => Math.floor(Date.now() / 1000);

/** Shared state of one emulated bot: its chats, update queue, webhook, commands and payments. */
export class EmulatorCore {
  readonly botId: number;
  readonly botUsername: string;
  readonly chats = new Map<number, ChatState>();
  readonly recorded: RecordedCall[] = [];
  readonly byMethod: Record<string, number> = {};
  requests = 0;
  rateLimited = 0;
  limiter: SendRateLimiter | null = null;

  pending: Update[] = [];
  private nextUpdateId = 100_000_001;
  allowedUpdates: Set<string> | null = null;
  activePoll: Poll | null = null;
  webhookState: WebhookState | null = null;
  deliveryWake: (() => void) | null = null;

  readonly commandSets = new Map<string, BotCommand[]>();
  readonly menuButtons = new Map<string, unknown>();
  readonly callbackQueries = new Map<string, PendingAnswer<CallbackAnswer>>();
  readonly preCheckoutQueries = new Map<string, PendingAnswer<{ ok: boolean; error?: string }>>();
  readonly charges = new Map<string, Charge>();
  readonly refundList: { userId: number; chargeId: string }[] = [];
  readonly changeListeners = new Set<(chatId: number) => void>();
  private queryCounter = 0;
  closed = false;

  constructor(opts: { botId: number; botUsername: string; rateLimits?: RateLimits | false }) {
    this.botId = opts.botId;
    this.botUsername = opts.botUsername;
    this.setRateLimits(opts.rateLimits);
  }

  setRateLimits(limits: RateLimits | false | undefined): void {
    this.limiter = limits ? new SendRateLimiter(limits) : null;
  }

  botUser(): Record<string, unknown> {
    return { id: this.botId, is_bot: true, first_name: "Shop Test Bot", username: this.botUsername };
  }

  userObject(chat: ChatState): Record<string, unknown> {
    return {
      id: chat.id,
      is_bot: false,
      first_name: chat.firstName,
      ...(chat.username ? { username: chat.username } : {}),
      ...(chat.languageCode ? { language_code: chat.languageCode } : {}),
    };
  }

  chatObject(chat: ChatState): Record<string, unknown> {
    if (chat.group) {
      return {
        id: chat.id,
        type: "supergroup",
        title: chat.group.title,
        ...(chat.group.isForum ? { is_forum: true } : {}),
      };
    }
    return {
      id: chat.id,
      type: "private",
      first_name: chat.firstName,
      ...(chat.username ? { username: chat.username } : {}),
    };
  }

  newQueryId(): string {
    this.queryCounter += 1;
    return (4_611_686_018_427_387_904n + BigInt(Date.now()) * 1000n + BigInt(this.queryCounter)).toString();
  }

  newChargeId(prefix: string): string {
    return `${prefix}${randomBytes(12).toString("base64url")}`;
  }

  /** The chat the bot may act in, or the Bot API's error for it. */
  chatFor(chatIdRaw: unknown, opts: { sending: boolean }): ChatState {
    if (chatIdRaw === undefined || chatIdRaw === "") throw badRequest("chat_id is empty");
    const id = typeof chatIdRaw === "number" ? chatIdRaw : Number(chatIdRaw);
    const chat = Number.isSafeInteger(id) ? this.chats.get(id) : undefined;
    if (!chat?.started) throw badRequest("chat not found");
    if (opts.sending && chat.blocked) throw new ApiError(403, "Forbidden: bot was blocked by the user");
    return chat;
  }

  /** Applies the configured flood limits to one send into a chat. */
  takeSendToken(chatId: number): void {
    if (!this.limiter) return;
    const verdict = this.limiter.take(chatId);
    if (!verdict.ok) {
      throw new ApiError(429, `Too Many Requests: retry after ${verdict.retryAfter}`, verdict.retryAfter);
    }
  }

  addMessage(
    chat: ChatState,
    message: Omit<StoredMessage, "messageId" | "chatId" | "edits" | "deleted" | "date">,
  ) {
    const stored: StoredMessage = {
      ...message,
      messageId: chat.nextMessageId++,
      chatId: chat.id,
      date: unixNow(),
      edits: 0,
      deleted: false,
    };
    chat.messages.push(stored);
    this.changed(chat);
    return stored;
  }

  findMessage(chat: ChatState, messageId: unknown): StoredMessage | undefined {
    const id = Number(messageId);
    return chat.messages.find((m) => m.messageId === id && !m.deleted);
  }

  changed(chat: ChatState): void {
    for (const listener of [...chat.listeners]) listener();
    for (const listener of [...this.changeListeners]) {
      try {
        listener(chat.id);
      } catch {
        // A listener's failure (e.g. a demo UI) must not break the Bot API call that caused the change.
      }
    }
  }

  /** The Bot API Message object for a stored message, as a bot would receive it. */
  toTelegramMessage(m: StoredMessage, nested = false): Record<string, unknown> {
    const chat = this.chats.get(m.chatId)!;
    if (m.from === "user" && m.raw) {
      if (!nested) return m.raw;
      const { reply_to_message: _inner, ...shallow } = m.raw;
      return shallow;
    }
    const message: Record<string, unknown> = {
      message_id: m.messageId,
      from: m.from === "bot" ? this.botUser() : this.userObject(chat),
      chat: this.chatObject(chat),
      date: m.date,
    };
    if (m.editDate !== undefined) message.edit_date = m.editDate;
    Object.assign(message, this.placementFields(chat, m, nested));
    if (m.forwardOrigin) message.forward_origin = m.forwardOrigin;
    if (m.topicCreated !== undefined)
      message.forum_topic_created = { name: m.topicCreated, icon_color: 7322096 };
    if (m.media) {
      message[m.media.kind] = m.media.value;
      if (m.text !== undefined) message.caption = m.text;
      if (m.entities?.length) message.caption_entities = m.entities;
    } else if (m.text !== undefined) {
      message.text = m.text;
      if (m.entities?.length) message.entities = m.entities;
    }
    if (m.invoice) {
      message.invoice = {
        title: m.invoice.title,
        description: m.invoice.description,
        start_parameter: "",
        currency: m.invoice.currency,
        total_amount: m.invoice.totalAmount,
      };
    }
    if (m.successfulPayment) message.successful_payment = m.successfulPayment;
    if (m.replyMarkup?.inline_keyboard && inlineButtons(m.replyMarkup).length > 0) {
      message.reply_markup = { inline_keyboard: m.replyMarkup.inline_keyboard };
    }
    return message;
  }

  /**
   * message_thread_id / is_topic_message / reply_to_message of a message, as Telegram fills them:
   * in a forum topic a message that replies to nothing replies to the topic's creation message.
   */
  placementFields(
    chat: ChatState,
    m: { messageId?: number; threadId?: number; replyTo?: number },
    nested = false,
  ): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    if (m.threadId !== undefined && chat.group?.isForum) {
      fields.message_thread_id = m.threadId;
      fields.is_topic_message = true;
    }
    // One level deep, as Telegram does: the replied-to message carries no reply of its own.
    if (nested) return fields;
    const target = m.replyTo ?? (chat.group?.isForum ? m.threadId : undefined);
    const replied =
      target === undefined || target === m.messageId
        ? undefined
        : chat.messages.find((x) => x.messageId === target);
    if (replied) fields.reply_to_message = this.toTelegramMessage(replied, true);
    return fields;
  }

  toChatMessage(m: StoredMessage): ChatMessage {
    const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));
    return {
      messageId: m.messageId,
      from: m.from,
      ...(m.text !== undefined ? { text: m.text } : {}),
      ...(m.html !== undefined ? { html: m.html } : {}),
      ...(m.parseMode !== undefined ? { parseMode: m.parseMode } : {}),
      ...(m.replyMarkup !== undefined ? { replyMarkup: copy(m.replyMarkup) } : {}),
      ...(m.invoice ? { invoice: { ...m.invoice } } : {}),
      ...(m.media ? { media: m.media.kind } : {}),
      ...(m.file ? { file: { name: m.file.name, data: Buffer.from(m.file.data) } } : {}),
      ...(m.successfulPayment ? { successfulPayment: copy(m.successfulPayment) } : {}),
      ...(m.threadId !== undefined ? { threadId: m.threadId } : {}),
      ...(m.replyTo !== undefined ? { replyTo: m.replyTo } : {}),
      ...(m.senderId !== undefined ? { senderId: m.senderId } : {}),
      ...(m.topicCreated !== undefined ? { topicCreated: m.topicCreated } : {}),
      ...(m.forwardOrigin ? { forwarded: true } : {}),
      edits: m.edits,
      deleted: m.deleted,
      date: m.date,
    };
  }

  /** Queues an update for getUpdates or the webhook. */
  enqueue(update: Record<string, unknown>): Update {
    const full = { update_id: this.nextUpdateId++, ...update } as Update;
    this.pending.push(full);
    if (this.pending.length > UPDATE_QUEUE_LIMIT) this.pending.shift();
    this.activePoll?.wake();
    this.deliveryWake?.();
    return full;
  }

  isAllowed(update: Update): boolean {
    const kind = Object.keys(update).find((key) => key !== "update_id");
    if (!kind) return false;
    return this.allowedUpdates ? this.allowedUpdates.has(kind) : !DEFAULT_EXCLUDED_UPDATES.has(kind);
  }

  /** Drops updates the bot did not ask for, as Telegram does, and returns what is left. */
  deliverable(): Update[] {
    this.pending = this.pending.filter((u) => this.isAllowed(u));
    return this.pending;
  }

  waitForAnswer<T>(
    table: Map<string, PendingAnswer<T>>,
    id: string,
    userId: number,
    timeoutMs: number,
  ): Promise<T | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        table.delete(id);
        resolve(null);
      }, timeoutMs);
      timer.unref();
      table.set(id, {
        userId,
        answered: false,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      });
    });
  }

  /** Resolves a pending query answer; throws Telegram's error for unknown or already answered ids. */
  answer<T>(table: Map<string, PendingAnswer<T>>, id: unknown, value: T): void {
    const pending = typeof id === "string" ? table.get(id) : undefined;
    if (!pending || pending.answered) {
      throw badRequest("query is too old and response timeout expired or query ID is invalid");
    }
    pending.answered = true;
    pending.resolve(value);
  }

  /** Rejects all waiters so nothing hangs after close(). */
  shutdown(): void {
    this.closed = true;
    this.activePoll?.wake();
    this.deliveryWake?.();
    for (const table of [this.callbackQueries, this.preCheckoutQueries] as Map<
      string,
      PendingAnswer<unknown>
    >[]) {
      for (const pending of table.values()) pending.resolve(null);
      table.clear();
    }
  }
}

/** A stable key for a BotCommandScope object. */
export function scopeKey(scope: unknown, languageCode: unknown): string {
  const s = (scope ?? { type: "default" }) as Record<string, unknown>;
  const type = typeof s.type === "string" ? s.type : "default";
  const id = (value: unknown) => (value === undefined || value === null ? null : String(value));
  return JSON.stringify([
    type,
    id(s.chat_id),
    id(s.user_id),
    typeof languageCode === "string" ? languageCode : "",
  ]);
}
