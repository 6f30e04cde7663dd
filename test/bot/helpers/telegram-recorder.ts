import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { UserFromGetMe } from "grammy/types";

export interface RecordedCall {
  method: string;
  payload: Record<string, unknown>;
}

interface Failure {
  error_code: number;
  description: string;
  times: number;
}

/**
 * A minimal Bot API over real HTTP for bot unit tests: records every call and answers with
 * plausible results. Rejects callback data over 64 bytes like Telegram does. Failures can be scripted.
 */
export class TelegramRecorder {
  readonly calls: RecordedCall[] = [];
  private nextMessageId = 100;
  private failures = new Map<string, Failure>();
  private pair:
    | {
        methods: [string, string];
        timeoutMs: number;
        outcomes: string[];
        held: { method: string; release(by: string): void }[];
      }
    | undefined;
  private server: Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const method = (req.url ?? "").split("/").pop() ?? "";
        const raw = Buffer.concat(chunks).toString("utf8");
        const payload = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        const body = this.answer(method, payload);
        const reply = () => {
          res.writeHead(body.ok ? 200 : (body.error_code as number), { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        };
        const pair = this.pair;
        if (!pair?.methods.includes(method)) return reply();
        // Held until a call of the pair's other method arrives (both answered then), or the
        // timeout: shows whether the bot sends the two without waiting for either's answer.
        const other = pair.held.find((h) => h.method !== method);
        if (other) {
          pair.held = pair.held.filter((h) => h !== other);
          other.release("together");
          return reply();
        }
        const held = {
          method,
          release: (by: string) => {
            clearTimeout(timer);
            pair.held = pair.held.filter((h) => h !== held);
            pair.outcomes.push(by);
            reply();
          },
        };
        const timer = setTimeout(() => held.release("timeout"), pair.timeoutMs);
        pair.held.push(held);
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()));
  }

  /**
   * From now on, answers a call of `a` or `b` only once a call of the other arrives (both are
   * answered then), or after `timeoutMs`. Returns what released each pair or lone call, in order:
   * "together" or "timeout". Code that waits for one answer before sending the other times out.
   */
  holdTogether(a: string, b: string, timeoutMs = 1500): string[] {
    this.pair = { methods: [a, b], timeoutMs, outcomes: [], held: [] };
    return this.pair.outcomes;
  }

  /** The next `times` calls of `method` fail with this error. */
  fail(method: string, error_code: number, description: string, times = 1): void {
    this.failures.set(method, { error_code, description, times });
  }

  reset(): void {
    this.calls.length = 0;
  }

  of(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  last(method?: string): RecordedCall | undefined {
    const list = method ? this.of(method) : this.calls;
    return list[list.length - 1];
  }

  /** Texts the customer saw (sent or edited), in order. */
  texts(): string[] {
    return this.calls
      .filter((c) => c.method === "sendMessage" || c.method === "editMessageText")
      .map((c) => String(c.payload.text));
  }

  lastText(): string {
    return this.texts().at(-1) ?? "";
  }

  /** Buttons (text → callback_data) of the last message sent or edited with a keyboard. */
  lastButtons(): { text: string; data: string }[] {
    const withKb = this.calls.filter(
      (c) => (c.method === "sendMessage" || c.method === "editMessageText") && c.payload.reply_markup,
    );
    const markup = withKb.at(-1)?.payload.reply_markup as
      | { inline_keyboard: { text: string; callback_data: string }[][] }
      | undefined;
    return (markup?.inline_keyboard ?? []).flat().map((b) => ({ text: b.text, data: b.callback_data }));
  }

  button(label: string | RegExp): { text: string; data: string } {
    const b = this.lastButtons().find((x) =>
      typeof label === "string" ? x.text === label : label.test(x.text),
    );
    if (!b) throw new Error(`no button ${label} in ${JSON.stringify(this.lastButtons().map((x) => x.text))}`);
    return b;
  }

  private answer(method: string, payload: Record<string, unknown>): Record<string, unknown> {
    this.calls.push({ method, payload });
    const failure = this.failures.get(method);
    if (failure && failure.times > 0) {
      failure.times--;
      return { ok: false, error_code: failure.error_code, description: failure.description };
    }
    const markup = payload.reply_markup as
      | { inline_keyboard?: { text: string; callback_data?: string }[][] }
      | undefined;
    for (const b of markup?.inline_keyboard?.flat() ?? []) {
      if (b.text.trim() === "")
        return { ok: false, error_code: 400, description: "Bad Request: BUTTON_TEXT_INVALID" };
      if (b.callback_data !== undefined && Buffer.byteLength(b.callback_data) > 64) {
        return { ok: false, error_code: 400, description: "Bad Request: BUTTON_DATA_INVALID" };
      }
    }
    const chat = { id: Number(payload.chat_id), type: "private" };
    const date = Math.floor(Date.now() / 1000);
    switch (method) {
      case "getMe":
        return { ok: true, result: BOT_INFO };
      case "sendMessage":
        return { ok: true, result: { message_id: this.nextMessageId++, chat, date, text: payload.text } };
      case "sendInvoice":
        return { ok: true, result: { message_id: this.nextMessageId++, chat, date, invoice: {} } };
      case "editMessageText":
        return {
          ok: true,
          result: { message_id: Number(payload.message_id), chat, date, text: payload.text },
        };
      default:
        return { ok: true, result: true };
    }
  }
}

/** The bot's own getMe answer, for every bot a test builds (no getMe call at start-up). */
export const BOT_INFO: UserFromGetMe = {
  id: 999000,
  is_bot: true,
  first_name: "Shop",
  username: "shop_test_bot",
  can_join_groups: false,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_join_request_queries: false,
};
