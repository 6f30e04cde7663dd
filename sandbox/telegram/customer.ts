import type { ChatState, EmulatorCore, StoredMessage } from "./core.js";
import { unixNow } from "./core.js";
import { type InlineButton, inlineButtons } from "./markup.js";
import type { ChatMessage, ChatUser, SendOptions } from "./types.js";

const ANSWER_TIMEOUT_MS = 10_000;
/** How long a press or payment waits for its button or invoice to show up (the bot may still be editing). */
const APPEAR_TIMEOUT_MS = 3_000;
const DEFAULT_WAIT_MS = 10_000;

function labelMatches(label: string | RegExp, text: string): boolean {
  return typeof label === "string" ? text.trim() === label.trim() : label.test(text);
}

/** One line per message, for timeout errors that show what the customer actually saw. */
export function describeMessages(messages: ChatMessage[]): string {
  if (messages.length === 0) return "  (no messages)";
  return messages
    .map((m) => {
      const body = m.invoice
        ? `invoice "${m.invoice.title}" ${m.invoice.totalAmount} ${m.invoice.currency}`
        : m.successfulPayment
          ? "successful_payment"
          : JSON.stringify(m.text ?? (m.media ? `[${m.media}]` : ""));
      const labels = inlineButtons(m.replyMarkup).map((b) => b.text);
      const who = m.senderId !== undefined ? ` ${m.senderId}` : "";
      return [
        `  #${m.messageId} ${m.from}${who}: ${m.topicCreated !== undefined ? `[topic "${m.topicCreated}" created]` : body}`,
        m.threadId !== undefined ? ` (topic ${m.threadId})` : "",
        m.replyTo !== undefined ? ` (reply to #${m.replyTo})` : "",
        labels.length ? ` [buttons: ${labels.join(" | ")}]` : "",
        m.edits ? ` (edited ${m.edits}x)` : "",
        m.deleted ? " (deleted)" : "",
      ].join("");
    })
    .join("\n");
}

/**
 * A simulated user in one chat: a customer in their private chat (chat id == user id), or a member
 * (`sender`) of a group chat.
 */
export class Customer implements ChatUser {
  constructor(
    private readonly core: EmulatorCore,
    private readonly chat: ChatState,
    private readonly sender: ChatState = chat,
  ) {}

  get id(): number {
    return this.sender.id;
  }

  /** Where a new message goes, checked as the Telegram app would (a reply to a message that exists, a live topic). */
  private placement(opts: SendOptions): Pick<StoredMessage, "threadId" | "replyTo"> {
    const place: Pick<StoredMessage, "threadId" | "replyTo"> = {};
    if (opts.replyTo !== undefined) {
      const target = this.core.findMessage(this.chat, opts.replyTo);
      if (!target) throw new Error(`No message #${opts.replyTo} to reply to in chat ${this.chat.id}`);
      place.replyTo = opts.replyTo;
      if (target.threadId !== undefined) place.threadId = target.threadId;
    }
    if (opts.threadId !== undefined) {
      const topic = this.chat.group?.topics.get(opts.threadId);
      if (!topic || topic.deleted) throw new Error(`No topic ${opts.threadId} in chat ${this.chat.id}`);
      place.threadId = opts.threadId;
    }
    return place;
  }

  private addUserMessage(
    fields: Record<string, unknown>,
    stored: Partial<StoredMessage> = {},
    opts: SendOptions = {},
  ): StoredMessage {
    this.chat.started = true;
    const messageId = this.chat.nextMessageId;
    const place = this.placement(opts);
    const raw: Record<string, unknown> = {
      message_id: messageId,
      from: this.core.userObject(this.sender),
      chat: this.core.chatObject(this.chat),
      date: unixNow(),
      ...this.core.placementFields(this.chat, place),
      ...fields,
    };
    const text =
      typeof raw.text === "string" ? raw.text : typeof raw.caption === "string" ? raw.caption : undefined;
    const message = this.core.addMessage(this.chat, {
      from: "user",
      ...(text !== undefined ? { text } : {}),
      ...place,
      ...(this.chat.group ? { senderId: this.sender.id } : {}),
      ...stored,
      raw,
    });
    this.core.enqueue({ message: raw });
    return message;
  }

  async sendText(text: string, opts: SendOptions = {}): Promise<void> {
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
    this.addUserMessage(
      {
        text,
        ...(command ? { entities: [{ type: "bot_command", offset: 0, length: command[0].length }] } : {}),
      },
      {},
      opts,
    );
  }

  /** Resolves with what `find` returns once it returns something, or rejects after `timeoutMs`. */
  private appear<T>(find: () => T | undefined, timeoutMs: number, failure: () => string): Promise<T> {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    let result: T | undefined;
    return this.waitFor(() => {
      result = find();
      return result !== undefined;
    }, timeoutMs).then(
      () => result as T,
      () => {
        throw new Error(failure());
      },
    );
  }

  private findButton(
    label: string | RegExp,
    messageId?: number,
  ): { message: StoredMessage; button: InlineButton } | undefined {
    const candidates = this.chat.messages
      .filter((m) => m.from === "bot" && !m.deleted && (messageId === undefined || m.messageId === messageId))
      .reverse();
    for (const message of candidates) {
      const button = inlineButtons(message.replyMarkup).find((b) => labelMatches(label, b.text));
      if (button) return { message, button };
    }
    return undefined;
  }

  async pressButton(
    label: string | RegExp,
    opts: { messageId?: number; timeoutMs?: number } = {},
  ): Promise<{ callbackAnswer?: { text?: string; show_alert?: boolean } }> {
    const where = opts.messageId === undefined ? "any bot message" : `bot message #${opts.messageId}`;
    const { message, button } = await this.appear(
      () => this.findButton(label, opts.messageId),
      opts.timeoutMs ?? APPEAR_TIMEOUT_MS,
      () =>
        `No inline button matching ${String(label)} on ${where} in chat ${this.id}. The chat:\n${describeMessages(this.messages())}`,
    );
    if (button.pay) {
      const paid = await this.payInvoice({ messageId: message.messageId });
      if (!paid.ok) throw new Error(`Paying invoice #${message.messageId} failed: ${paid.error}`);
      return {};
    }
    if (button.url !== undefined) return {};
    if (button.callback_data === undefined) {
      throw new Error(
        `Button "${button.text}" is neither a callback, URL nor pay button; the emulator cannot press it`,
      );
    }
    const answer = await this.sendCallback(button.callback_data, message);
    if (!answer) {
      throw new Error(
        `The bot did not answer the callback query for "${button.text}" (data ${JSON.stringify(button.callback_data)}) within ${ANSWER_TIMEOUT_MS / 1000} s`,
      );
    }
    const { url: _url, ...callbackAnswer } = answer;
    return { callbackAnswer };
  }

  private sendCallback(data: string, message: StoredMessage | undefined) {
    this.chat.started = true;
    const id = this.core.newQueryId();
    const waiting = this.core.waitForAnswer(this.core.callbackQueries, id, this.id, ANSWER_TIMEOUT_MS);
    this.core.enqueue({
      callback_query: {
        id,
        from: this.core.userObject(this.sender),
        ...(message ? { message: this.core.toTelegramMessage(message) } : {}),
        chat_instance: String(this.chat.id * 7 + 1_000_000_000_000),
        data,
      },
    });
    return waiting;
  }

  async pressCallbackData(data: string, messageId: number): Promise<void> {
    const message = this.chat.messages.find((m) => m.messageId === messageId && !m.deleted);
    void this.sendCallback(data, message);
  }

  async payInvoice(opts: { messageId?: number } = {}): Promise<{ ok: boolean; error?: string }> {
    const invoiceMessage = this.chat.messages
      .filter(
        (m) => m.invoice && !m.deleted && (opts.messageId === undefined || m.messageId === opts.messageId),
      )
      .at(-1);
    if (!invoiceMessage?.invoice) {
      throw new Error(
        `No invoice to pay in chat ${this.id}. The chat:\n${describeMessages(this.messages())}`,
      );
    }
    const invoice = invoiceMessage.invoice;
    const queryId = this.core.newQueryId();
    const waiting = this.core.waitForAnswer(
      this.core.preCheckoutQueries,
      queryId,
      this.id,
      ANSWER_TIMEOUT_MS,
    );
    this.core.enqueue({
      pre_checkout_query: {
        id: queryId,
        from: this.core.userObject(this.sender),
        currency: invoice.currency,
        total_amount: invoice.totalAmount,
        invoice_payload: invoice.payload,
      },
    });
    const answer = await waiting;
    if (!answer) return { ok: false, error: `The bot did not answer the pre_checkout_query within 10 s` };
    if (!answer.ok) return { ok: false, ...(answer.error !== undefined ? { error: answer.error } : {}) };
    const xtr = invoice.currency === "XTR";
    const chargeId = this.core.newChargeId(xtr ? "stx" : "tpc_");
    const successfulPayment = {
      currency: invoice.currency,
      total_amount: invoice.totalAmount,
      invoice_payload: invoice.payload,
      telegram_payment_charge_id: chargeId,
      ...(xtr ? {} : { provider_payment_charge_id: this.core.newChargeId("ppc_") }),
    };
    this.core.charges.set(chargeId, {
      userId: this.id,
      chargeId,
      currency: invoice.currency,
      totalAmount: invoice.totalAmount,
      payload: invoice.payload,
      refunded: false,
    });
    this.addUserMessage({ successful_payment: successfulPayment }, { successfulPayment });
    return { ok: true };
  }

  async sendUpdate(partial: Record<string, unknown>, opts: SendOptions = {}): Promise<void> {
    const { message, ...rest } = partial;
    if (message && typeof message === "object") {
      this.addUserMessage(message as Record<string, unknown>, {}, opts);
      return;
    }
    this.chat.started = true;
    this.core.enqueue(rest);
  }

  block(): void {
    this.setBlocked(true);
  }

  unblock(): void {
    this.setBlocked(false);
  }

  /** Telegram tells the bot about a block or unblock with a my_chat_member update. */
  private setBlocked(blocked: boolean): void {
    if (this.chat.group) throw new Error("a group member cannot block the bot; only a private chat can");
    if (this.chat.blocked === blocked) return;
    this.chat.blocked = blocked;
    if (!this.chat.started) return;
    const bot = { user: this.core.botUser() };
    this.core.enqueue({
      my_chat_member: {
        chat: this.core.chatObject(this.chat),
        from: this.core.userObject(this.chat),
        date: unixNow(),
        old_chat_member: {
          ...bot,
          status: blocked ? "member" : "kicked",
          ...(blocked ? {} : { until_date: 0 }),
        },
        new_chat_member: {
          ...bot,
          status: blocked ? "kicked" : "member",
          ...(blocked ? { until_date: 0 } : {}),
        },
      },
    });
  }

  startChat(): void {
    this.chat.started = true;
  }

  messages(): ChatMessage[] {
    return this.chat.messages.map((m) => this.core.toChatMessage(m));
  }

  botMessages(): ChatMessage[] {
    return this.messages().filter((m) => m.from === "bot");
  }

  lastBotMessage(): ChatMessage | undefined {
    return this.botMessages()
      .filter((m) => !m.deleted)
      .at(-1);
  }

  waitFor(predicate: (msgs: ChatMessage[]) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<ChatMessage[]> {
    return new Promise((resolve, reject) => {
      let lastError: unknown;
      const check = () => {
        const msgs = this.messages();
        let satisfied = false;
        try {
          satisfied = predicate(msgs);
        } catch (error) {
          lastError = error;
        }
        if (satisfied) {
          finish();
          resolve(msgs);
        }
      };
      const timer = setTimeout(() => {
        finish();
        const because = lastError instanceof Error ? ` (last predicate error: ${lastError.message})` : "";
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for chat ${this.id}${because}. The chat:\n${describeMessages(this.messages())}`,
          ),
        );
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.chat.listeners.delete(check);
      };
      this.chat.listeners.add(check);
      check();
    });
  }

  async waitForBotMessage(match: string | RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<ChatMessage> {
    const matches = (m: ChatMessage) =>
      m.from === "bot" &&
      !m.deleted &&
      m.text !== undefined &&
      (typeof match === "string" ? m.text.includes(match) : match.test(m.text));
    const msgs = await this.waitFor((all) => all.some(matches), timeoutMs).catch((error: Error) => {
      throw new Error(`No bot message matching ${String(match)}: ${error.message}`);
    });
    return msgs.filter(matches).at(-1)!;
  }

  buttons(messageId?: number): string[] {
    const message = this.chat.messages
      .filter(
        (m) =>
          m.from === "bot" &&
          !m.deleted &&
          (messageId === undefined || m.messageId === messageId) &&
          inlineButtons(m.replyMarkup).length > 0,
      )
      .at(-1);
    return inlineButtons(message?.replyMarkup).map((b) => b.text);
  }
}
