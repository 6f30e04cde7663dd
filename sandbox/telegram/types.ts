/** Public contract of the Bot API emulator used by end-to-end tests, benchmarks and the offline demo. */

export interface RateLimits {
  /** Sends (sendMessage, sendInvoice) allowed per second over all chats. */
  globalPerSecond: number;
  /** Sends allowed per second into one chat. */
  perChatPerSecond: number;
  /** How many sends one chat may make back to back before the per-chat rate applies (default: perChatPerSecond, at least 1). */
  burst?: number;
}

export interface TelegramEmulatorOptions {
  /** Port to listen on; 0 or omitted picks a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The only bot token the emulator accepts; any other gets 401 Unauthorized. */
  token: string;
  /** Default "shop_test_bot". */
  botUsername?: string;
  /** Default: the number before the colon in the token, else 7000000001. */
  botId?: number;
  /** Off (false / omitted) by default. */
  rateLimits?: RateLimits | false;
}

export interface RecordedCall {
  method: string;
  payload: Record<string, unknown>;
  ok: boolean;
  at: number;
}

export interface EmulatorStats {
  requests: number;
  rateLimited: number;
  byMethod: Record<string, number>;
}

export interface BotCommand {
  command: string;
  description: string;
}

export interface TelegramEmulator {
  /** e.g. http://127.0.0.1:PORT — what TELEGRAM_API_ROOT gets. */
  apiRoot: string;
  /** Ends pending long polls, stops webhook delivery, closes sockets. */
  close(): Promise<void>;
  /** Returns the simulated customer with this id (created on first call); the private chat id equals the user id. */
  user(init: { id: number; username?: string; firstName?: string; languageCode?: string }): ChatUser;
  /** Every Bot API call the bot made (optionally of one method), in order. */
  calls(method?: string): RecordedCall[];
  stats(): EmulatorStats;
  setRateLimits(limits: TelegramEmulatorOptions["rateLimits"]): void;
  /**
   * Revokes the bot's token, as @BotFather's "Revoke current token" does: from now on only
   * `newToken` is accepted and the old one gets 401 Unauthorized; a long poll in progress ends.
   */
  revokeToken(newToken: string): void;
  webhook(): { url: string; secretToken?: string } | null;
  /** Commands set for exactly this scope (default `{ type: "default" }`) and language ("" when omitted). */
  commands(scope?: object, languageCode?: string): BotCommand[];
  refunds(): { userId: number; chargeId: string }[];
  /**
   * A supergroup (id negative) the bot is an admin of, so it gets every member's message; created on
   * the first call, with `forum: true` a forum with topics. Members are added with `member()`.
   */
  group(init: { id: number; title?: string; forum?: boolean }): GroupChat;
  /** Called whenever a chat gets a new message, an edit or a deletion; returns unsubscribe. */
  onChange(listener: (chatId: number) => void): () => void;
}

export interface InvoiceInfo {
  title: string;
  description: string;
  payload: string;
  currency: string;
  totalAmount: number;
}

export interface ChatMessage {
  messageId: number;
  from: "bot" | "user";
  /** What a person sees: HTML tags stripped, entities decoded (a caption for media messages). */
  text?: string;
  /** The text as sent with parse_mode. */
  html?: string;
  parseMode?: string;
  replyMarkup?: unknown;
  invoice?: InvoiceInfo;
  /** For sendPhoto/sendDocument/...: the method's media kind ("photo", "document", ...). */
  media?: string;
  /** An uploaded media file (not one sent by file_id or URL): its name and bytes. */
  file?: { name: string; data: Buffer };
  edits: number;
  deleted: boolean;
  date: number;
  successfulPayment?: unknown;
  /** In a forum: the topic the message is in (none: General). */
  threadId?: number;
  /** The message it replies to. */
  replyTo?: number;
  /** In a group: the member who wrote it (user messages). */
  senderId?: number;
  /** A "topic created" service message: the topic's name. */
  topicCreated?: string;
  /** Forwarded by the bot (forwardMessage). */
  forwarded?: boolean;
}

/** Where a message goes: a reply to one message, and in a forum a topic. */
export interface SendOptions {
  replyTo?: number;
  threadId?: number;
}

export interface CallbackAnswer {
  text?: string;
  show_alert?: boolean;
  url?: string;
}

export interface ChatUser {
  id: number;
  /**
   * Adds a user message and its update; a leading "/command" carries a bot_command entity. `replyTo`
   * makes it a reply; in a forum group `threadId` puts it in that topic.
   */
  sendText(text: string, opts?: SendOptions): Promise<void>;
  /**
   * Presses the inline button with this label (exact text, or a RegExp) on the newest bot message having it
   * (or the given message), waiting up to `timeoutMs` (default 3 s) for it to appear; sends the
   * callback_query and waits up to 10 s for answerCallbackQuery. Rejects, listing the chat, when there is no
   * such button or no answer. A `pay` button pays its invoice instead; a URL button does nothing.
   */
  pressButton(
    label: string | RegExp,
    opts?: { messageId?: number; timeoutMs?: number },
  ): Promise<{ callbackAnswer?: { text?: string; show_alert?: boolean } }>;
  /** Sends a callback_query with arbitrary (forged or stale) data for a message; does not wait for an answer. */
  pressCallbackData(data: string, messageId: number): Promise<void>;
  /**
   * Pays the newest invoice (or the given one; waits up to `timeoutMs`, default 3 s, for it to appear): sends
   * pre_checkout_query, waits up to 10 s for answerPreCheckoutQuery; when approved, sends a message with
   * successful_payment (and returns before the bot handled it).
   */
  payInvoice(opts?: { messageId?: number; timeoutMs?: number }): Promise<{ ok: boolean; error?: string }>;
  /** Queues a raw update; a partial `message` gets message_id, from, chat and date filled in. */
  sendUpdate(partial: Record<string, unknown>, opts?: SendOptions): Promise<void>;
  block(): void;
  unblock(): void;
  startChat(): void;
  messages(): ChatMessage[];
  botMessages(): ChatMessage[];
  lastBotMessage(): ChatMessage | undefined;
  waitFor(predicate: (msgs: ChatMessage[]) => boolean, timeoutMs?: number): Promise<ChatMessage[]>;
  waitForBotMessage(match: string | RegExp, timeoutMs?: number): Promise<ChatMessage>;
  buttons(messageId?: number): string[];
}

/** A group chat as its members see it. */
export interface GroupChat {
  id: number;
  isForum: boolean;
  /** A member of the group (joined on the first call): writes, replies and presses buttons there. */
  member(init: { id: number; username?: string; firstName?: string; languageCode?: string }): ChatUser;
  /** The forum's topics, in creation order. */
  topics(): { threadId: number; name: string; deleted: boolean }[];
  /** A member deletes a topic (and its messages): sends into it fail with "message thread not found". */
  deleteTopic(threadId: number): void;
  /** Everything in the group (or in one topic: `threadId`; 0 is General), as every member sees it. */
  messages(threadId?: number): ChatMessage[];
  waitFor(predicate: (msgs: ChatMessage[]) => boolean, timeoutMs?: number): Promise<ChatMessage[]>;
  /** The newest bot message matching (in one topic with `threadId`). */
  waitForBotMessage(
    match: string | RegExp,
    opts?: { threadId?: number; timeoutMs?: number },
  ): Promise<ChatMessage>;
}
