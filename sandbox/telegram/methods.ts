import { type ChatState, type EmulatorCore, type StoredMessage, scopeKey, unixNow } from "./core.js";
import { type MessageEntity, parseTelegramHtml } from "./html.js";
import { ApiError, badRequest, inlineButtons, jsonField, validateReplyMarkup } from "./markup.js";
import type { BotCommand, InvoiceInfo } from "./types.js";

export type Params = Record<string, unknown>;

/** A file the bot uploaded in a multipart request (sendDocument with a local file, …). */
export class UploadedFile {
  constructor(
    readonly name: string,
    readonly data: Buffer,
  ) {}
}

export interface MethodContext {
  /** Aborted when the HTTP client goes away (long polls end early). */
  signal: AbortSignal;
  /** Starts (or wakes) webhook delivery after setWebhook. */
  startDelivery: () => void;
}

type Handler = (core: EmulatorCore, p: Params, ctx: MethodContext) => unknown;

const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
const MEDIA_METHODS: Record<string, string> = {
  sendPhoto: "photo",
  sendDocument: "document",
  sendVideo: "video",
  sendAnimation: "animation",
  sendAudio: "audio",
  sendVoice: "voice",
  sendSticker: "sticker",
};

function optInt(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

function bool(value: unknown): boolean {
  return value === true || value === "true" || value === 1 || value === "1";
}

/** JSON with sorted keys, so two markups compare equal regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

interface FormattedText {
  text: string;
  html?: string;
  parseMode?: string;
  entities?: MessageEntity[];
}

/** Applies parse_mode the way Telegram does; HTML is validated, Markdown only has its escapes removed. */
function formatText(raw: unknown, parseModeRaw: unknown, entitiesRaw: unknown): FormattedText {
  const source = raw === undefined || raw === null ? "" : String(raw);
  const parseMode = typeof parseModeRaw === "string" && parseModeRaw !== "" ? parseModeRaw : undefined;
  if (!parseMode) {
    const entities = jsonField(entitiesRaw, "entities");
    return { text: source, ...(Array.isArray(entities) ? { entities: entities as MessageEntity[] } : {}) };
  }
  const mode = parseMode.toLowerCase();
  if (mode === "html") {
    const parsed = parseTelegramHtml(source);
    if (!parsed.ok) throw badRequest(parsed.error);
    return { text: parsed.text, html: source, parseMode, entities: parsed.entities };
  }
  if (mode === "markdownv2" || mode === "markdown") {
    return { text: source.replace(/\\([_*[\]()~`>#+\-=|{}.!\\])/g, "$1"), html: source, parseMode };
  }
  throw badRequest(`unsupported parse_mode "${parseMode}"`);
}

function checkLength(f: FormattedText, max: number, what: "text" | "caption"): void {
  if (what === "text" && f.text.trim() === "") throw badRequest("message text is empty");
  if (f.text.length > max)
    throw badRequest(what === "text" ? "message is too long" : "message caption is too long");
}

/**
 * Where a bot message goes: `message_thread_id` (a live topic of a forum; in other chats it must
 * name a thread that exists) and a reply (`reply_parameters` or the older `reply_to_message_id`).
 */
function placement(
  core: EmulatorCore,
  chat: ChatState,
  p: Params,
): Pick<StoredMessage, "threadId" | "replyTo"> {
  const place: Pick<StoredMessage, "threadId" | "replyTo"> = {};
  const threadId = optInt(p.message_thread_id);
  if (threadId !== undefined) {
    const topic = chat.group?.isForum ? chat.group.topics.get(threadId) : undefined;
    if (!topic || topic.deleted) throw badRequest("message thread not found");
    place.threadId = threadId;
  }
  const reply = jsonField(p.reply_parameters, "reply_parameters") as Record<string, unknown> | undefined;
  const replyTo = optInt(reply?.message_id ?? p.reply_to_message_id);
  if (replyTo !== undefined) {
    const target = core.findMessage(chat, replyTo);
    const lenient = bool(reply?.allow_sending_without_reply ?? p.allow_sending_without_reply);
    if (target) {
      place.replyTo = replyTo;
      if (place.threadId === undefined && target.threadId !== undefined) place.threadId = target.threadId;
    } else if (!lenient) {
      throw badRequest("message to be replied not found");
    }
  }
  return place;
}

function inlineOnly(markup: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return markup?.inline_keyboard && inlineButtons(markup).length > 0 ? markup : undefined;
}

function editTarget(core: EmulatorCore, p: Params): { chat: ChatState; message: StoredMessage } {
  if (p.chat_id === undefined && p.inline_message_id !== undefined) throw badRequest("MESSAGE_ID_INVALID");
  const chat = core.chatFor(p.chat_id, { sending: false });
  const message = core.findMessage(chat, p.message_id);
  if (!message) throw badRequest("message to edit not found");
  if (message.from !== "bot") throw badRequest("message can't be edited");
  return { chat, message };
}

function newInlineMarkup(raw: unknown): Record<string, unknown> | undefined {
  const markup = validateReplyMarkup(raw);
  if (markup && markup.inline_keyboard === undefined) throw badRequest("inline keyboard expected");
  return inlineOnly(markup);
}

function applyEdit(
  core: EmulatorCore,
  chat: ChatState,
  m: StoredMessage,
  next: { text?: FormattedText; markup: Record<string, unknown> | undefined },
) {
  const sameMarkup = canonical(inlineOnly(m.replyMarkup) ?? null) === canonical(next.markup ?? null);
  const sameText =
    !next.text ||
    (next.text.text === m.text && canonical(next.text.entities ?? []) === canonical(m.entities ?? []));
  if (sameMarkup && sameText) throw badRequest(NOT_MODIFIED);
  if (next.text) {
    m.text = next.text.text;
    m.html = next.text.html;
    m.parseMode = next.text.parseMode;
    m.entities = next.text.entities;
  }
  // Telegram drops the inline keyboard when an edit does not repeat it; a reply keyboard is not part of the message.
  m.replyMarkup =
    next.markup ?? (m.replyMarkup && !m.replyMarkup.inline_keyboard ? m.replyMarkup : undefined);
  m.edits += 1;
  m.editDate = unixNow();
  core.changed(chat);
  return core.toTelegramMessage(m);
}

function validateInvoice(p: Params): InvoiceInfo {
  const title = typeof p.title === "string" ? p.title : "";
  const description = typeof p.description === "string" ? p.description : "";
  const payload = typeof p.payload === "string" ? p.payload : "";
  const currency = typeof p.currency === "string" ? p.currency : "";
  if (title.length < 1 || title.length > 32) throw badRequest("INVOICE_TITLE_INVALID");
  if (description.length < 1 || description.length > 255) throw badRequest("INVOICE_DESCRIPTION_INVALID");
  const payloadBytes = Buffer.byteLength(payload, "utf8");
  if (payloadBytes < 1 || payloadBytes > 128) throw badRequest("INVOICE_PAYLOAD_INVALID");
  if (!/^[A-Z]{3}$/.test(currency)) throw badRequest("CURRENCY_INVALID");
  const prices = jsonField(p.prices, "prices");
  if (!Array.isArray(prices) || prices.length === 0) throw badRequest("can't parse prices JSON object");
  let total = 0;
  for (const price of prices as { label?: unknown; amount?: unknown }[]) {
    if (typeof price?.label !== "string" || price.label === "" || !Number.isInteger(Number(price.amount))) {
      throw badRequest("can't parse prices JSON object");
    }
    total += Number(price.amount);
  }
  if (total <= 0) throw badRequest("CURRENCY_TOTAL_AMOUNT_INVALID");
  const providerToken = typeof p.provider_token === "string" ? p.provider_token : "";
  if (currency === "XTR") {
    if (providerToken !== "" || prices.length !== 1 || p.max_tip_amount !== undefined) {
      throw badRequest("STARS_INVOICE_INVALID");
    }
  } else if (providerToken === "") {
    throw badRequest("PAYMENT_PROVIDER_INVALID");
  }
  return { title, description, payload, currency, totalAmount: total };
}

function confirmOffset(core: EmulatorCore, offset: number | undefined): void {
  if (offset === undefined || offset === 0) return;
  core.pending = offset > 0 ? core.pending.filter((u) => u.update_id >= offset) : core.pending.slice(offset);
}

function setAllowedUpdates(core: EmulatorCore, raw: unknown): void {
  if (raw === undefined) return;
  const list = jsonField(raw, "allowed_updates");
  core.allowedUpdates = Array.isArray(list) && list.length > 0 ? new Set(list.map(String)) : null;
}

const WEBHOOK_CONFLICT =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";

async function getUpdates(core: EmulatorCore, p: Params, ctx: MethodContext) {
  if (core.webhookState) throw new ApiError(409, WEBHOOK_CONFLICT);
  core.activePoll?.terminate();
  const limit = Math.min(100, Math.max(1, optInt(p.limit) ?? 100));
  const timeout = Math.max(0, optInt(p.timeout) ?? 0);
  setAllowedUpdates(core, p.allowed_updates);
  confirmOffset(core, optInt(p.offset));
  const ready = core.deliverable().slice(0, limit);
  if (ready.length > 0 || timeout === 0 || core.closed) return ready;
  let terminated = false;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", done);
      if (core.activePoll === poll) core.activePoll = null;
      resolve();
    };
    const timer = setTimeout(done, timeout * 1000);
    const poll = {
      wake: done,
      terminate: () => {
        terminated = true;
        done();
      },
    };
    core.activePoll = poll;
    ctx.signal.addEventListener("abort", done);
  });
  if (terminated) {
    throw new ApiError(
      409,
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    );
  }
  if (core.webhookState) throw new ApiError(409, WEBHOOK_CONFLICT);
  return core.deliverable().slice(0, limit);
}

function sendMedia(kind: string): Handler {
  return (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: true });
    const value = p[kind];
    if (value === undefined || value === "") throw badRequest(`there is no ${kind} in the request`);
    const caption = formatText(p.caption, p.parse_mode, p.caption_entities);
    checkLength(caption, 1024, "caption");
    const markup = validateReplyMarkup(p.reply_markup);
    const upload = value instanceof UploadedFile ? value : undefined;
    const place = placement(core, chat, p);
    const fileId =
      typeof value === "string" ? value : upload ? `emulated-file:${upload.name}` : `emulated-${kind}`;
    const file = {
      file_id: fileId,
      file_unique_id: fileId.slice(0, 16),
      ...(upload && kind === "document" ? { file_name: upload.name } : {}),
      ...(upload ? { file_size: upload.data.length } : {}),
    };
    const stored = core.addMessage(chat, {
      from: "bot",
      media: { kind, value: kind === "photo" ? [{ ...file, width: 800, height: 600 }] : file },
      ...(upload ? { file: { name: upload.name, data: upload.data } } : {}),
      ...(caption.text !== "" ? caption : {}),
      replyMarkup: markup,
      ...place,
    });
    return core.toTelegramMessage(stored);
  };
}

/** copyMessage / forwardMessage: the target chat, the source chat and message, where the copy goes. */
function relayed(core: EmulatorCore, p: Params) {
  const chat = core.chatFor(p.chat_id, { sending: true });
  const from = core.chatFor(p.from_chat_id, { sending: false });
  const source = core.findMessage(from, p.message_id);
  if (!source) throw badRequest("message to copy not found");
  if (source.invoice || source.successfulPayment || source.topicCreated !== undefined) {
    throw badRequest("message can't be copied");
  }
  return { chat, from, source, place: placement(core, chat, p) };
}

/** A topic and its messages go away; sends into it fail from now on. */
export function deleteTopic(core: EmulatorCore, chat: ChatState, threadId: number): void {
  const topic = chat.group?.topics.get(threadId);
  if (!topic) return;
  topic.deleted = true;
  for (const m of chat.messages) if (m.threadId === threadId) m.deleted = true;
  core.changed(chat);
}

export const METHODS: Record<string, Handler> = {
  getMe: (core) => ({
    ...core.botUser(),
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
  }),
  getUpdates,
  setWebhook: (core, p, ctx) => {
    const url = typeof p.url === "string" ? p.url : "";
    if (url === "") return METHODS.deleteWebhook!(core, p, ctx);
    let protocol = "";
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = "";
    }
    // Telegram insists on HTTPS; the emulator also takes http:// so tests can run a plain local receiver.
    if (protocol !== "https:" && protocol !== "http:") {
      throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
    }
    const secret = p.secret_token;
    if (secret !== undefined && (typeof secret !== "string" || !/^[A-Za-z0-9_-]{1,256}$/.test(secret))) {
      throw badRequest("secret token contains unallowed characters");
    }
    setAllowedUpdates(core, p.allowed_updates);
    if (bool(p.drop_pending_updates)) core.pending = [];
    core.webhookState = {
      url,
      ...(typeof secret === "string" ? { secretToken: secret } : {}),
      maxConnections: optInt(p.max_connections) ?? 40,
    };
    core.activePoll?.wake();
    ctx.startDelivery();
    return true;
  },
  deleteWebhook: (core, p) => {
    core.webhookState = null;
    if (bool(p.drop_pending_updates)) core.pending = [];
    core.deliveryWake?.();
    return true;
  },
  getWebhookInfo: (core) => {
    const state = core.webhookState;
    return {
      url: state?.url ?? "",
      has_custom_certificate: false,
      pending_update_count: core.deliverable().length,
      ...(state?.lastError
        ? { last_error_date: state.lastError.date, last_error_message: state.lastError.message }
        : {}),
      ...(state ? { max_connections: state.maxConnections } : {}),
      ...(core.allowedUpdates ? { allowed_updates: [...core.allowedUpdates] } : {}),
    };
  },
  logOut: () => true,
  close: () => true,
  getChat: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: false });
    return { ...core.chatObject(chat), accent_color_id: 0, max_reaction_count: 11 };
  },
  sendMessage: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: true });
    const text = formatText(p.text, p.parse_mode, p.entities);
    checkLength(text, 4096, "text");
    const markup = validateReplyMarkup(p.reply_markup);
    const place = placement(core, chat, p);
    core.takeSendToken(chat.id);
    const stored = core.addMessage(chat, { from: "bot", ...text, replyMarkup: markup, ...place });
    return core.toTelegramMessage(stored);
  },
  copyMessage: (core, p) => {
    const { chat, source, place } = relayed(core, p);
    const caption =
      p.caption === undefined ? undefined : formatText(p.caption, p.parse_mode, p.caption_entities);
    if (caption && !source.media) throw badRequest("there is no caption in the message to copy");
    core.takeSendToken(chat.id);
    const stored = core.addMessage(chat, {
      from: "bot",
      ...(source.text !== undefined ? { text: source.text } : {}),
      ...(source.entities ? { entities: structuredClone(source.entities) } : {}),
      ...(source.media ? { media: structuredClone(source.media) } : {}),
      ...(caption ?? {}),
      replyMarkup: validateReplyMarkup(p.reply_markup),
      ...place,
    });
    return { message_id: stored.messageId };
  },
  forwardMessage: (core, p) => {
    const { chat, from, source, place } = relayed(core, p);
    core.takeSendToken(chat.id);
    const origin =
      source.from === "bot"
        ? { type: "user", sender_user: core.botUser(), date: source.date }
        : {
            type: "user",
            sender_user: core.userObject(core.chats.get(source.senderId ?? from.id) ?? from),
            date: source.date,
          };
    const stored = core.addMessage(chat, {
      from: "bot",
      ...(source.text !== undefined ? { text: source.text } : {}),
      ...(source.entities ? { entities: structuredClone(source.entities) } : {}),
      ...(source.media ? { media: structuredClone(source.media) } : {}),
      forwardOrigin: origin,
      ...place,
    });
    return core.toTelegramMessage(stored);
  },
  createForumTopic: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: true });
    if (!chat.group?.isForum) throw badRequest("the chat is not a forum");
    const name = typeof p.name === "string" ? p.name : "";
    if (name.length < 1 || name.length > 128) throw badRequest("TOPIC_TITLE_EMPTY");
    core.takeSendToken(chat.id);
    // The topic's id is the id of the service message that opens it.
    const threadId = chat.nextMessageId;
    chat.group.topics.set(threadId, { name, deleted: false });
    core.addMessage(chat, { from: "bot", topicCreated: name, threadId });
    return { message_thread_id: threadId, name, icon_color: 7322096 };
  },
  deleteForumTopic: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: false });
    const topic = chat.group?.isForum ? chat.group.topics.get(optInt(p.message_thread_id) ?? -1) : undefined;
    if (!topic || topic.deleted) throw badRequest("TOPIC_ID_INVALID");
    deleteTopic(core, chat, optInt(p.message_thread_id)!);
    return true;
  },
  ...Object.fromEntries(Object.entries(MEDIA_METHODS).map(([method, kind]) => [method, sendMedia(kind)])),
  editMessageText: (core, p) => {
    const { chat, message } = editTarget(core, p);
    if (message.media || message.text === undefined)
      throw badRequest("there is no text in the message to edit");
    const text = formatText(p.text, p.parse_mode, p.entities);
    checkLength(text, 4096, "text");
    return applyEdit(core, chat, message, { text, markup: newInlineMarkup(p.reply_markup) });
  },
  editMessageCaption: (core, p) => {
    const { chat, message } = editTarget(core, p);
    if (!message.media) throw badRequest("there is no caption in the message to edit");
    const caption = formatText(p.caption, p.parse_mode, p.caption_entities);
    checkLength(caption, 1024, "caption");
    return applyEdit(core, chat, message, { text: caption, markup: newInlineMarkup(p.reply_markup) });
  },
  editMessageReplyMarkup: (core, p) => {
    const { chat, message } = editTarget(core, p);
    return applyEdit(core, chat, message, { markup: newInlineMarkup(p.reply_markup) });
  },
  deleteMessage: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: false });
    const message = core.findMessage(chat, p.message_id);
    if (!message) throw badRequest("message to delete not found");
    message.deleted = true;
    core.changed(chat);
    return true;
  },
  deleteMessages: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: false });
    const ids = jsonField(p.message_ids, "message_ids");
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100)
      throw badRequest("message_ids is invalid");
    for (const id of ids) {
      const message = core.findMessage(chat, id);
      if (message) message.deleted = true;
    }
    core.changed(chat);
    return true;
  },
  answerCallbackQuery: (core, p) => {
    const text = typeof p.text === "string" ? p.text : undefined;
    if (text !== undefined && text.length > 200) throw badRequest("MESSAGE_TOO_LONG");
    core.answer(core.callbackQueries, p.callback_query_id, {
      ...(text !== undefined ? { text } : {}),
      ...(p.show_alert !== undefined ? { show_alert: bool(p.show_alert) } : {}),
      ...(typeof p.url === "string" ? { url: p.url } : {}),
    });
    return true;
  },
  sendInvoice: (core, p) => {
    const chat = core.chatFor(p.chat_id, { sending: true });
    const invoice = validateInvoice(p);
    const markup = validateReplyMarkup(p.reply_markup) ?? {
      inline_keyboard: [
        [{ text: invoice.currency === "XTR" ? `Pay ⭐️${invoice.totalAmount}` : "Pay", pay: true }],
      ],
    };
    core.takeSendToken(chat.id);
    const stored = core.addMessage(chat, { from: "bot", invoice, replyMarkup: markup });
    return core.toTelegramMessage(stored);
  },
  createInvoiceLink: (core, p) => {
    validateInvoice(p);
    return `https://t.me/$${core.newChargeId("")}`;
  },
  answerPreCheckoutQuery: (core, p) => {
    const ok = bool(p.ok);
    const error = typeof p.error_message === "string" ? p.error_message : undefined;
    if (!ok && !error) throw badRequest("ERROR_MESSAGE_EMPTY");
    core.answer(core.preCheckoutQueries, p.pre_checkout_query_id, { ok, ...(ok ? {} : { error }) });
    return true;
  },
  refundStarPayment: (core, p) => {
    const userId = optInt(p.user_id);
    const charge =
      typeof p.telegram_payment_charge_id === "string"
        ? core.charges.get(p.telegram_payment_charge_id)
        : undefined;
    if (!charge || charge.userId !== userId || charge.currency !== "XTR")
      throw badRequest("CHARGE_NOT_FOUND");
    if (charge.refunded) throw badRequest("CHARGE_ALREADY_REFUNDED");
    charge.refunded = true;
    core.refundList.push({ userId: charge.userId, chargeId: charge.chargeId });
    return true;
  },
  setMyCommands: (core, p) => {
    const commands = jsonField(p.commands, "commands");
    if (!Array.isArray(commands) || commands.length > 100)
      throw badRequest("can't parse commands JSON object");
    const list: BotCommand[] = [];
    for (const item of commands as { command?: unknown; description?: unknown }[]) {
      const command = typeof item?.command === "string" ? item.command : "";
      const description = typeof item?.description === "string" ? item.description : "";
      if (!/^[a-z0-9_]{1,32}$/.test(command)) throw badRequest("BOT_COMMAND_INVALID");
      if (description.length < 1 || description.length > 256)
        throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
      list.push({ command, description });
    }
    core.commandSets.set(scopeKey(jsonField(p.scope, "scope"), p.language_code), list);
    return true;
  },
  getMyCommands: (core, p) =>
    (core.commandSets.get(scopeKey(jsonField(p.scope, "scope"), p.language_code)) ?? []).map((c) => ({
      ...c,
    })),
  deleteMyCommands: (core, p) => {
    core.commandSets.delete(scopeKey(jsonField(p.scope, "scope"), p.language_code));
    return true;
  },
  sendChatAction: (core, p) => {
    core.chatFor(p.chat_id, { sending: true });
    if (typeof p.action !== "string" || p.action === "") throw badRequest("action is empty");
    return true;
  },
  setChatMenuButton: (core, p) => {
    if (p.chat_id !== undefined) core.chatFor(p.chat_id, { sending: false });
    core.menuButtons.set(
      String(p.chat_id ?? ""),
      jsonField(p.menu_button, "menu_button") ?? { type: "default" },
    );
    return true;
  },
  getChatMenuButton: (core, p) => core.menuButtons.get(String(p.chat_id ?? "")) ?? { type: "commands" },
};

/** Canonical method names by lower case: the Bot API matches method names case-insensitively. */
export const METHOD_NAMES = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name]));
