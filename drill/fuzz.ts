/**
 * Drill 4: random customer inputs spread over every step of every flow. Simulated customers walk
 * into random product flows and steps by pressing the buttons they are shown, and in between
 * send random text (numbers out of range, good and bad usernames, long strings, emoji, HTML-like
 * text), press stale buttons of old messages, send forged callback data (operator `op:` payloads
 * included), unexpected message kinds and commands. Each customer paces its inputs under the
 * bot's incoming rate limit and waits for an answer to each one.
 *
 * Pass: no unhandled error in the bot's log, no `create` the reseller refused as invalid, and
 * every input answered (a new message, an edit, or a callback answer in that chat).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mapLimit, sleep } from "../bench/lib.js";
import type { EmulatorCore, StoredMessage } from "../sandbox/telegram/core.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import { INCOMING_LIMIT } from "../src/bot/index.js";
import {
  emulatorCore,
  type LogSink,
  pick,
  type Row,
  randInt,
  secs,
  startDrillStack,
  summarizeErrors,
  unrecovered,
} from "./lib.js";

export interface FuzzOptions {
  inputs: number;
  customers: number;
  /** Hard stop. */
  maxMs: number;
  /**
   * Whether reaching every step is a pass/fail check. A few hundred random inputs (the short form)
   * cannot promise to land on every step, so there it is reported only; the full drill enforces it.
   */
  requireEveryStep: boolean;
}

/** How long an input may wait for its answer. */
const ANSWER_MS = 10_000;
/** After the first sign of an answer, trailing messages of the same answer are let in. */
const QUIET_MS = 60;
/** Inputs one customer sends per window stay below the bot's incoming limit (12 per 4 s). */
const MIN_GAP_MS = Math.ceil(INCOMING_LIMIT.windowMs / (INCOMING_LIMIT.updates - 2));

type Kind = "press" | "stale" | "answer" | "text" | "forged" | "message-kind" | "command" | "pay";

/** Half the customers mix everything; the other half mostly press and answer, so deep steps are reached too. */
const EXPLORER: [Kind, number][] = [
  ["press", 60],
  ["answer", 25],
  ["text", 4],
  ["forged", 2],
  ["message-kind", 3],
  ["command", 1],
  ["pay", 3],
];

const CHAOTIC: [Kind, number][] = [
  ["press", 40],
  ["stale", 6],
  ["answer", 14],
  ["text", 12],
  ["forged", 9],
  ["message-kind", 8],
  ["command", 7],
  ["pay", 4],
];

/** Steps a customer can be at, named by the question the bot shows (English texts). */
const STEPS: [string, RegExp][] = [
  ["menu", /What would you like to buy/],
  ["amount", /How many stars/],
  ["months", /Telegram Premium — for how long/],
  ["gift", /Choose a gift/],
  ["recipient", /Who gets it/],
  ["login", /Your Steam login/],
  ["top-up", /How much to top up/],
  ["service", /Choose an AI service/],
  ["game", /Choose a game/],
  ["region", /choose the region/],
  ["package", /choose a package/],
  ["quantity", /How many\?/],
  ["field", /^✏️/],
  ["card", /Order #[0-9a-f]{8}[\s\S]*Price/],
  ["my orders", /Your orders|You have no orders/],
  ["language", /Choose your language/],
];

/** Every step of every flow, as `flow:step`, plus the places outside flows. */
const EXPECTED = [
  "stars:amount",
  "stars:recipient",
  "stars:card",
  "premium:months",
  "premium:recipient",
  "premium:card",
  "gift:gift",
  "gift:recipient",
  "gift:card",
  "steam:login",
  "steam:top-up",
  "steam:card",
  "neural:service",
  "neural:card",
  "game:game",
  "game:region",
  "game:package",
  "game:quantity",
  "game:field",
  "game:card",
  "menu",
  "my orders",
  "language",
  "invoice",
];

/** Favourite products are handed out in this order: the deepest flow first, so small runs reach it twice. */
const FAVOURITES = ["game", "steam", "gift", "premium", "neural", "stars"];

/** Commands some customers send third, so the places outside flows are visited in small runs too. */
const OPENERS = ["/language", "/orders", "/help", "/cancel"];

const FLOW_OF_BUTTON: [RegExp, string][] = [
  [/Telegram Stars/, "stars"],
  [/Telegram Premium/, "premium"],
  [/Gifts/, "gift"],
  [/Steam top-up/, "steam"],
  [/AI services/, "neural"],
  [/Games/, "game"],
];

const BAD_NUMBERS = [
  "0",
  "49",
  "-1",
  "-50",
  "1000001",
  "50001",
  "11",
  "99999999999999999999999",
  "1.5",
  "1,5",
  "50.0",
  "1e3",
  "0x40",
  "NaN",
  "Infinity",
  "½",
  "٥٠",
  "５０",
  "1 000 000 000",
  "50 stars",
];
const USERNAMES = [
  "@durov_fan",
  "t.me/some_user",
  "https://t.me/another_user",
  "telegram.me/good_name",
  "@a",
  "ab",
  "a__b_c",
  "_abcde",
  "abcde_",
  "1abcde",
  `@${"a".repeat(40)}`,
  "@",
  "t.me/",
  "https://t.me/joinchat/AbCdEf",
  "@name with space",
  "@имя_юзера",
  "user@example.com",
];
const WEIRD = [
  "🙂",
  "👨‍👩‍👧‍👦".repeat(30),
  "💩".repeat(2000),
  "x".repeat(4096),
  "<b>bold</b>",
  "<script>alert(1)</script>",
  "</code>",
  "<a href='tg://user?id=1'>x</a>",
  "&amp;&lt;&gt;&quot;",
  "<b>unclosed",
  "{{ $name }}",
  "{ $count }",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text a customer might type
  "${jndi:ldap://127.0.0.1/x}",
  "%s%s%n",
  "\r\nFLUSHALL\r\n",
  "*1\r\n$8\r\nFLUSHALL\r\n",
  '{"custom_id":"x"}',
  "   ",
  "\u200b",
  "\u202eevil",
  "\u0007bell",
  "line one\nline two",
  "/",
  "/notacommand",
  "cancel",
  "back",
  "‹ Back",
  "✖️ Cancel",
  "⭐ Telegram Stars",
];
const COMMANDS = [
  "/start",
  "/cancel",
  "/orders",
  "/help",
  "/language",
  "/balance",
  "/paysupport",
  "/stats",
  "/start@shop_test_bot",
  "/start some_payload",
  "/START",
  "/orders 999",
  "/order 12345678",
  "/nonexistent",
];

function weighted<T>(items: [T, number][]): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = Math.random() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r <= 0) return item;
  }
  return items[items.length - 1]![0];
}

interface Button {
  text: string;
  data?: string;
  pay?: boolean;
}

function buttonsOf(m: StoredMessage): Button[] {
  const kb = (m.replyMarkup as { inline_keyboard?: Button[][] } | undefined)?.inline_keyboard;
  return (kb ?? []).flat().map((b) => ({
    text: b.text,
    ...((b as { callback_data?: string }).callback_data !== undefined
      ? { data: (b as { callback_data?: string }).callback_data }
      : {}),
    ...((b as { pay?: boolean }).pay ? { pay: true } : {}),
  }));
}

/** What one input did, for the table. */
interface Outcome {
  kind: Kind | "edited_message";
  label: string;
  answered: boolean;
  expected: boolean;
}

/** An input just sent: what it was and how its answer shows. */
interface SentInput {
  kind: Kind | "edited_message";
  label: string;
  /** A callback query whose answer counts. */
  queryId?: string;
  /** Resolves with whether the bot answered (payments: the pre-checkout answer). */
  answered?: Promise<boolean>;
  /** False when the bot never receives this input (not in allowed_updates). */
  expected?: boolean;
}

interface Shared {
  core: EmulatorCore;
  changes: Map<number, number>;
  /** Order ids seen in invoices (forged buttons name other customers' orders). */
  orderIds: string[];
  reached: Set<string>;
  sent: number;
  deadline: number;
  total: number;
}

class FuzzCustomer {
  /** The flow the customer last entered from the menu. */
  private flow: string | undefined;
  private readonly knownQueries = new Set<string>();
  /** Inputs left in which an explorer walks its favourite flow straight to the order card. */
  private guided: number;
  /** Invoices this customer tried to pay already. */
  private readonly paidInvoices = new Set<number>();

  constructor(
    readonly user: ChatUser,
    private readonly shared: Shared,
    private readonly weights: [Kind, number][],
    /** The product flow this customer picks most often in the menu. */
    private readonly favourite: string,
    /** A command sent third, after the menu and the favourite product. */
    private readonly opener?: string,
  ) {
    this.guided = weights === EXPLORER ? 30 : 0;
  }

  private messages(): StoredMessage[] {
    return this.shared.core.chats.get(this.user.id)?.messages ?? [];
  }

  private botMessages(): StoredMessage[] {
    return this.messages().filter((m) => m.from === "bot" && !m.deleted);
  }

  /** The newest bot message with buttons: where the customer's eyes are. */
  private current(): StoredMessage | undefined {
    return this.botMessages()
      .filter((m) => (m.invoice ? !this.paidInvoices.has(m.messageId) : buttonsOf(m).some((b) => b.data)))
      .at(-1);
  }

  private note(): void {
    const m = this.botMessages().at(-1);
    if (!m) return;
    if (m.invoice) {
      this.shared.reached.add("invoice");
      if (!this.shared.orderIds.includes(m.invoice.payload)) this.shared.orderIds.push(m.invoice.payload);
      return;
    }
    const step = STEPS.find(([, re]) => re.test(m.text ?? ""))?.[0];
    if (!step) return;
    const outside = ["menu", "my orders", "language"].includes(step);
    this.shared.reached.add(outside || !this.flow ? step : `${this.flow}:${step}`);
  }

  private fittingAnswer(): string | undefined {
    const text = this.botMessages().at(-1)?.text ?? "";
    if (/How many stars/.test(text)) return pick([String(randInt(50, 5000)), "1 000", "2,500"]);
    if (/Who gets it/.test(text)) return `${pick(["@", "", "t.me/"])}fuzz_${randomBytes(4).toString("hex")}`;
    if (/Steam login/.test(text)) return `steam_${randomBytes(3).toString("hex")}`;
    if (/How much to top up/.test(text)) return String(randInt(50, 50_000));
    if (/How many\?/.test(text)) return String(randInt(1, 10));
    if (/^✏️/.test(text)) return String(randInt(10_000_000, 99_999_999));
    return undefined;
  }

  private forgedData(): string {
    const own = this.shared.orderIds.length ? pick(this.shared.orderIds) : randomUUID();
    const nonce = randInt(0, 50);
    return pick([
      `f:${nonce}:c0`,
      `f:${nonce}:c${randInt(0, 99)}`,
      `f:${nonce}:b`,
      `f:${nonce}:x`,
      `f:${nonce}:p${randInt(-2, 9)}`,
      "f:abc:c0",
      "f:1:cNaN",
      "f:99999999999999999999:c0",
      `pay:${randomUUID()}`,
      `pay:${own}`,
      "pay:not-a-uuid",
      `cx:${own}`,
      `cx:${randomUUID()}`,
      `rq:${own}`,
      `ov:${own}`,
      `ov:${randomUUID()}`,
      "mo:0",
      "mo:5",
      `mo:${randInt(100, 100_000)}`,
      "mo:99999999999999999999",
      "mo:-1",
      "mo:abc",
      "m:stars",
      "m:game",
      "m:orders",
      "m:nope",
      "m:",
      "op:b",
      "op:s",
      `op:l:a:${randInt(0, 100)}`,
      "op:l:z:0",
      `op:o:${own}`,
      `op:c:${own}`,
      `op:r:${own}`,
      `op:n:${own}`,
      `op:m:${own}`,
      "op:x",
      "op:",
      "lang/0/0",
      "lang/9/9/x",
      "lang",
      randomBytes(randInt(1, 48)).toString("base64"),
      "💥".repeat(16),
      " ",
    ]);
  }

  private messageKind(): Record<string, unknown> {
    const file = () => ({
      file_id: `F${randomBytes(8).toString("hex")}`,
      file_unique_id: randomBytes(4).toString("hex"),
    });
    return pick<Record<string, unknown>>([
      {
        message: {
          sticker: {
            ...file(),
            type: "regular",
            width: 512,
            height: 512,
            is_animated: false,
            is_video: false,
            emoji: "😀",
          },
        },
      },
      {
        message: {
          photo: [{ ...file(), width: 90, height: 90 }],
          caption: pick(["", "look", "<b>x</b>", "50"]),
        },
      },
      { message: { location: { latitude: 55.75, longitude: 37.62 } } },
      {
        message: { contact: { phone_number: "+70000000000", first_name: "Someone", user_id: this.user.id } },
      },
      { message: { contact: { phone_number: "+10000000000", first_name: "Other" } } },
      { message: { voice: { ...file(), duration: 3 } } },
      { message: { video: { ...file(), width: 10, height: 10, duration: 1 } } },
      { message: { document: { ...file(), file_name: "orders.csv" }, caption: "/start" } },
      { message: { animation: { ...file(), width: 10, height: 10, duration: 1 } } },
      { message: { dice: { emoji: "🎲", value: randInt(1, 6) } } },
      { message: { venue: { location: { latitude: 1, longitude: 2 }, title: "Shop", address: "Street" } } },
      {
        message: {
          poll: {
            id: "1",
            question: "?",
            options: [],
            total_voter_count: 0,
            is_closed: false,
            is_anonymous: true,
            type: "regular",
            allows_multiple_answers: false,
          },
        },
      },
      {
        message: {
          text: "50",
          reply_to_message: { message_id: 1, date: 0, chat: { id: this.user.id, type: "private" } },
        },
      },
      {
        message: {
          text: "forwarded",
          forward_origin: { type: "hidden_user", sender_user_name: "X", date: 0 },
        },
      },
      { message: { text: "@durov_fan", entities: [{ type: "mention", offset: 0, length: 10 }] } },
    ]);
  }

  /** The next kind of input: the customer's mix, leaning to typing where a question wants text and to paying at an invoice. */
  private chooseKind(): Kind {
    const typing = this.fittingAnswer() !== undefined;
    if (this.guided > 0) {
      // An explorer first walks its favourite flow forward to the order card, then goes random.
      this.guided -= 1;
      const last = this.botMessages().at(-1);
      if (last?.invoice || /Order #[0-9a-f]{8}[\s\S]*Price/.test(last?.text ?? "")) this.guided = 0;
      else return typing ? "answer" : "press";
    }
    const atInvoice = this.current()?.invoice !== undefined;
    return weighted(
      this.weights.map(([k, w]): [Kind, number] => {
        if (typing && k === "answer") return [k, w * 4];
        if (atInvoice && k === "pay") return [k, w * 8];
        return [k, w];
      }),
    );
  }

  /** Sends one input; returns what to wait for. */
  private send(kind: Kind): SentInput {
    const u = this.user;
    const cur = this.current();
    switch (kind) {
      case "press": {
        const buttons = cur ? buttonsOf(cur).filter((b) => b.data !== undefined) : [];
        if (cur?.invoice) return this.send("pay");
        if (!cur || buttons.length === 0) return this.command("/start");
        // Forward more often than back; in the menu, the customer's favourite product most often.
        // A guided explorer only goes forward, and picks "Global" regions (top-ups, with fields).
        const guided = this.guided > 0;
        const choice = weighted(
          buttons.map((b): [Button, number] => {
            if (/Back|Cancel|^‹$|^›$|^·$|\d+\/\d+/.test(b.text)) return [b, guided ? 0.01 : 1];
            const flow = FLOW_OF_BUTTON.find(([re]) => re.test(b.text))?.[1];
            if (guided) return [b, flow === this.favourite ? 1000 : b.text === "Global" ? 20 : 1];
            return [b, (flow === this.favourite ? 4 : 1) * (this.weights === EXPLORER ? 10 : 4)];
          }),
        );
        const flow = FLOW_OF_BUTTON.find(([re]) => re.test(choice.text))?.[1];
        if (flow) this.flow = flow;
        return { kind, label: `press "${choice.text}"`, queryId: this.callback(choice.data!, cur.messageId) };
      }
      case "stale": {
        const old = this.botMessages().filter((m) => m !== cur && buttonsOf(m).some((b) => b.data));
        if (old.length === 0) return this.send("forged");
        const m = pick(old);
        const b = pick(buttonsOf(m).filter((x) => x.data));
        return { kind, label: `stale "${b.text}"`, queryId: this.callback(b.data!, m.messageId) };
      }
      case "pay": {
        // The newest invoice not paid yet; now and then one paid already (Telegram lets a customer try).
        const invoices = this.botMessages().filter((m) => m.invoice);
        const unpaid = invoices.filter((m) => !this.paidInvoices.has(m.messageId)).at(-1);
        const invoice = unpaid ?? (Math.random() < 0.2 ? invoices.at(-1) : undefined);
        if (!invoice) return this.send("press");
        this.paidInvoices.add(invoice.messageId);
        return {
          kind,
          label: unpaid ? "pay the invoice" : "pay an invoice paid already",
          answered: u.payInvoice({ messageId: invoice.messageId }).then(
            () => true,
            () => false,
          ),
        };
      }
      case "answer": {
        const text = this.fittingAnswer();
        if (text === undefined) return this.send("press");
        void u.sendText(text);
        return { kind, label: `answer ${JSON.stringify(text)}` };
      }
      case "text": {
        const text = weighted<string>([
          [pick(BAD_NUMBERS), 3],
          [pick(USERNAMES), 3],
          [pick(WEIRD), 4],
        ]);
        void u.sendText(text);
        return { kind, label: `text ${JSON.stringify(text.slice(0, 40))}` };
      }
      case "forged": {
        const target = pick(this.botMessages().slice(-5));
        if (!target) return this.send("command");
        const data = this.forgedData();
        return {
          kind,
          label: `forged ${JSON.stringify(data)}`,
          queryId: this.callback(data, target.messageId),
        };
      }
      case "message-kind": {
        if (Math.random() < 0.08) {
          // Not in allowed_updates: Telegram (and the emulator) never deliver it to the bot.
          void u.sendUpdate({
            edited_message: {
              message_id: 1,
              date: Math.floor(Date.now() / 1000),
              edit_date: Math.floor(Date.now() / 1000),
              chat: { id: u.id, type: "private", first_name: "Test" },
              from: { id: u.id, is_bot: false, first_name: "Test" },
              text: "edited",
            },
          });
          return { kind: "edited_message", label: "edited_message", expected: false };
        }
        const update = this.messageKind();
        void u.sendUpdate(update);
        const m = update.message as Record<string, unknown>;
        return {
          kind,
          label: Object.keys(m)
            .filter((k) => k !== "caption")
            .join("+"),
        };
      }
      case "command": {
        // A customer who landed in Russian finds the way back to English now and then.
        const russian = /[а-яА-Я]/.test(this.botMessages().at(-1)?.text ?? "");
        return this.command(russian && Math.random() < 0.5 ? "/language" : pick(COMMANDS));
      }
    }
  }

  /** Sends a callback query for `data` on a message; returns the query id to watch. */
  private callback(data: string, messageId: number): string | undefined {
    void this.user.pressCallbackData(data, messageId);
    // pressCallbackData registered the query synchronously: find it.
    for (const [id, q] of [...this.shared.core.callbackQueries.entries()].reverse()) {
      if (q.userId === this.user.id && !this.knownQueries.has(id)) {
        this.knownQueries.add(id);
        return id;
      }
    }
    return undefined;
  }

  async run(outcomes: Outcome[]): Promise<void> {
    const s = this.shared;
    let n = 0;
    while (s.sent < s.total && Date.now() < s.deadline) {
      s.sent += 1;
      const started = Date.now();
      this.note();
      const before = s.changes.get(this.user.id) ?? 0;
      // Every customer opens the menu and its favourite product first, so each flow is entered early.
      const sent =
        n === 0
          ? this.command("/start")
          : n === 1
            ? this.enterFavourite()
            : n === 2 && this.opener
              ? this.command(this.opener)
              : this.send(this.chooseKind());
      n += 1;
      // The customer's own message counted as a change already: count from here.
      const base = Math.max(before, s.changes.get(this.user.id) ?? 0);
      const answered =
        sent.expected === false ? false : await this.waitAnswer(base, sent.queryId, sent.answered);
      outcomes.push({ kind: sent.kind, label: sent.label, answered, expected: sent.expected !== false });
      await sleep(QUIET_MS);
      const gap = MIN_GAP_MS - (Date.now() - started);
      if (gap > 0) await sleep(gap);
    }
  }

  private command(text: string): SentInput {
    if (text.startsWith("/start") || text === "/cancel") this.flow = undefined;
    void this.user.sendText(text);
    return { kind: "command", label: text };
  }

  private enterFavourite(): SentInput {
    const cur = this.current();
    const button = cur
      ? buttonsOf(cur).find(
          (b) => b.data && FLOW_OF_BUTTON.some(([re, f]) => f === this.favourite && re.test(b.text)),
        )
      : undefined;
    if (!cur || !button?.data) return this.send("press");
    this.flow = this.favourite;
    return {
      kind: "press",
      label: `press "${button.text}"`,
      queryId: this.callback(button.data, cur.messageId),
    };
  }

  private async waitAnswer(base: number, queryId?: string, answered?: Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + ANSWER_MS;
    let paid: boolean | undefined;
    void answered?.then((v) => {
      paid = v;
    });
    while (Date.now() < deadline) {
      if ((this.shared.changes.get(this.user.id) ?? 0) > base) return true;
      if (queryId && this.shared.core.callbackQueries.get(queryId)?.answered) return true;
      if (paid !== undefined) return paid;
      await sleep(20);
    }
    return false;
  }
}

export async function fuzzDrill(opts: FuzzOptions, sink: LogSink): Promise<Row[]> {
  const ds = await startDrillStack(
    { webhooks: true, pollIntervalSeconds: 1, deliveryDelayMs: 100, liftLimits: true },
    sink,
  );
  try {
    const { stack } = ds;
    const core = emulatorCore(stack.emulator);
    const changes = new Map<number, number>();
    const off = stack.emulator.onChange((chatId) => changes.set(chatId, (changes.get(chatId) ?? 0) + 1));
    const shared: Shared = {
      core,
      changes,
      orderIds: [],
      reached: new Set(),
      sent: 0,
      deadline: Date.now() + opts.maxMs,
      total: opts.inputs,
    };
    const outcomes: Outcome[] = [];
    const started = Date.now();
    const customers = Array.from(
      { length: opts.customers },
      (_, i) =>
        new FuzzCustomer(
          ds.customer(),
          shared,
          i % 2 === 0 ? EXPLORER : CHAOTIC,
          FAVOURITES[Math.floor(i / 2) % FAVOURITES.length]!,
          i % 2 === 1 ? OPENERS[Math.floor(i / 2) % OPENERS.length] : undefined,
        ),
    );
    await mapLimit(customers, customers.length, async (c, i) => {
      await sleep(i * 50);
      await c.run(outcomes);
    });
    const elapsed = Date.now() - started;
    off();
    await sleep(1_000);

    // Creates the reseller refused as invalid: from its request log and from every order the bot made.
    const refusedLogged = stack.sandbox
      .requests()
      .filter((r) => r.method === "POST" && r.path === "/api/reseller/order/create" && r.status === 400);
    const ids = await stack.client.zrange(`${stack.prefix}idx:all`, 0, -1);
    const refusedIds = ids.filter((id) => stack.sandbox.stats(id).creates > 0 && !stack.sandbox.order(id));
    const creates = ids.filter((id) => stack.sandbox.stats(id).creates > 0).length;

    const bad = unrecovered(sink.errors);
    const expected = outcomes.filter((o) => o.expected);
    const unanswered = expected.filter((o) => !o.answered);
    const byKind = new Map<string, number>();
    for (const o of outcomes) byKind.set(o.kind, (byKind.get(o.kind) ?? 0) + 1);
    const missing = EXPECTED.filter((s) => !shared.reached.has(s));
    const notDelivered = outcomes.length - expected.length;
    const finished = outcomes.length >= opts.inputs;
    return [
      {
        id: "4a",
        check: `fuzz: ${opts.inputs} random inputs cause no unhandled error`,
        pass: sink.unrecoveredCount === 0,
        figure:
          `${outcomes.length} inputs from ${opts.customers} customers in ${secs(elapsed)}; ` +
          `${sink.errorCount} error lines, ${sink.unrecoveredCount} not recovered` +
          (sink.errors.length
            ? `: ${summarizeErrors(sink.errorCount > sink.unrecoveredCount ? sink.errors : bad)}`
            : ""),
      },
      {
        id: "4b",
        check: "fuzz: no create the reseller refused as invalid",
        pass: refusedLogged.length === 0 && refusedIds.length === 0,
        figure: `${refusedLogged.length} creates answered 400 among ${creates} orders created; ${refusedIds.length} order ids the reseller refused`,
      },
      {
        id: "4c",
        check: "fuzz: every input gets an answer",
        pass: finished && unanswered.length === 0,
        figure:
          `${expected.length - unanswered.length}/${expected.length} answered, ${unanswered.length} without an answer` +
          (unanswered.length
            ? ` (${[...new Set(unanswered.map((o) => o.label))].slice(0, 4).join("; ")})`
            : "") +
          `; ${notDelivered} edited_message not delivered (not in allowed_updates)` +
          (finished ? "" : `; only ${outcomes.length}/${opts.inputs} sent before the time limit`),
      },
      {
        id: "4d",
        check: "fuzz: inputs reached every step of every flow",
        pass: missing.length === 0 || !opts.requireEveryStep,
        figure:
          `${EXPECTED.length - missing.length}/${EXPECTED.length} steps` +
          (opts.requireEveryStep ? "" : " (reported only in the short form)") +
          (missing.length ? ` (not reached: ${missing.join(", ")})` : "") +
          `; inputs: ${[...byKind.entries()].map(([k, n]) => `${k} ${n}`).join(", ")}`,
      },
    ];
  } finally {
    await ds.close();
  }
}
