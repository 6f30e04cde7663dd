import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deadline } from "../kit/http.js";
import { EmulatorCore, scopeKey, unixNow } from "./core.js";
import { Customer } from "./customer.js";
import { Group } from "./group.js";
import { ApiError, jsonField } from "./markup.js";
import { METHOD_NAMES, METHODS, type Params, UploadedFile } from "./methods.js";
import type { BotCommand, ChatUser, GroupChat, TelegramEmulator, TelegramEmulatorOptions } from "./types.js";
import { createWebChat, type WebChat } from "./web/api.js";

const MAX_BODY_BYTES = 20 * 1024 * 1024;
const WEBHOOK_TIMEOUT_MS = 15_000;
const WEBHOOK_RETRY_MS = [100, 250, 500, 1000];

type ApiResponse =
  | { ok: true; result: unknown }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after: number } };

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, "Request Entity Too Large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Fields of a multipart/form-data body: text fields as strings, uploaded files as UploadedFile (name and bytes). */
function parseMultipart(body: Buffer, contentType: string): Params {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const delimiter = boundary?.[1] ?? boundary?.[2];
  if (!delimiter) throw new ApiError(400, "Bad Request: multipart boundary is missing");
  const params: Params = {};
  for (const part of body.toString("latin1").split(`--${delimiter}`)) {
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = /name="([^"]*)"/.exec(headers)?.[1];
    if (!name) continue;
    const bytes = Buffer.from(part.slice(headerEnd + 4).replace(/\r\n$/, ""), "latin1");
    // Quoted or not (grammY writes `filename=name.csv`).
    const file = /filename=(?:"([^"]*)"|([^;\r\n]*))/.exec(headers);
    const filename = file ? (file[1] ?? file[2] ?? "") : undefined;
    params[name] = filename === undefined ? bytes.toString("utf8") : new UploadedFile(filename, bytes);
  }
  // A field may name a file part instead of holding it (`"document": "attach://<part>"`, as grammY sends).
  for (const [name, value] of Object.entries(params)) {
    const attached = typeof value === "string" ? /^attach:\/\/(.+)$/.exec(value)?.[1] : undefined;
    if (attached && params[attached] instanceof UploadedFile) params[name] = params[attached];
  }
  return params;
}

async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  if (body.length === 0) return params;
  const type = req.headers["content-type"] ?? "";
  if (type.includes("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      throw new ApiError(400, "Bad Request: can't parse JSON encoded request body");
    }
    if (typeof parsed !== "object" || parsed === null) return params;
    return { ...params, ...(parsed as Params) };
  }
  if (type.includes("multipart/form-data")) return { ...params, ...parseMultipart(body, type) };
  return { ...params, ...Object.fromEntries(new URLSearchParams(body.toString("utf8"))) };
}

function defaultBotId(token: string): number {
  const prefix = Number(token.split(":")[0]);
  return Number.isSafeInteger(prefix) && prefix > 0 ? prefix : 7_000_000_001;
}

class Emulator implements TelegramEmulator {
  apiRoot = "";
  readonly core: EmulatorCore;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly customers = new Map<number, Customer>();
  private readonly groups = new Map<number, Group>();
  private readonly deliveryAbort = new AbortController();
  private delivering = false;
  /** The web chat page and its JSON endpoints (GET /, /demo/api/*), served on the same port. */
  private readonly web: WebChat;
  /** The one token accepted (revokeToken replaces it). */
  private token: string;

  constructor(private readonly opts: TelegramEmulatorOptions) {
    this.token = opts.token;
    this.core = new EmulatorCore({
      botId: opts.botId ?? defaultBotId(opts.token),
      botUsername: opts.botUsername ?? "shop_test_bot",
      ...(opts.rateLimits !== undefined ? { rateLimits: opts.rateLimits } : {}),
    });
    this.web = createWebChat({
      core: this.core,
      user: (init) => this.user(init),
      member: (groupId, init) => this.groups.get(groupId)?.member(init),
    });
  }

  async listen(): Promise<void> {
    const host = this.opts.host ?? "127.0.0.1";
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.opts.port ?? 0, host, () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.apiRoot = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  }

  private send(res: ServerResponse, status: number, body: ApiResponse): void {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator");
    if (await this.web.handle(req, res, url)) return;
    const match = /^\/bot([^/]+)\/([A-Za-z]+)\/?$/.exec(url.pathname);
    if (!match) {
      this.send(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    if (!sameSecret(decodeURIComponent(match[1]!), this.token)) {
      this.send(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      return;
    }
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    let params: Params = {};
    try {
      params = await readParams(req, url);
    } catch (error) {
      const e =
        error instanceof ApiError ? error : new ApiError(400, "Bad Request: can't read the request body");
      this.send(res, e.code, { ok: false, error_code: e.code, description: e.description });
      return;
    }
    const response = await this.call(match[2]!, params, abort.signal);
    this.send(res, response.ok ? 200 : response.error_code, response);
  }

  /** Runs one Bot API method, records it and returns the Bot API's JSON answer. */
  async call(methodRaw: string, params: Params, signal: AbortSignal): Promise<ApiResponse> {
    const method = METHOD_NAMES.get(methodRaw.toLowerCase()) ?? methodRaw;
    const core = this.core;
    core.requests += 1;
    core.byMethod[method] = (core.byMethod[method] ?? 0) + 1;
    const record = { method, payload: params, ok: true, at: Date.now() };
    core.recorded.push(record);
    const handler = METHODS[method];
    try {
      const result = handler
        ? await handler(core, params, { signal, startDelivery: () => this.startDelivery() })
        : true;
      return { ok: true, result };
    } catch (error) {
      record.ok = false;
      if (!(error instanceof ApiError)) {
        return { ok: false, error_code: 500, description: `Internal Server Error: ${String(error)}` };
      }
      if (error.code === 429) core.rateLimited += 1;
      return {
        ok: false,
        error_code: error.code,
        description: error.description,
        ...(error.retryAfter !== undefined ? { parameters: { retry_after: error.retryAfter } } : {}),
      };
    }
  }

  /** POSTs queued updates to the webhook one at a time, in order, retrying each until the receiver takes it. */
  private startDelivery(): void {
    if (this.delivering) {
      this.core.deliveryWake?.();
      return;
    }
    this.delivering = true;
    void this.deliveryLoop().finally(() => {
      this.delivering = false;
    });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.core.deliveryWake = done;
    });
  }

  private async deliveryLoop(): Promise<void> {
    const core = this.core;
    let failures = 0;
    while (core.webhookState && !core.closed) {
      const hook = core.webhookState;
      const update = core.deliverable()[0];
      if (!update) {
        await this.pause(60_000);
        continue;
      }
      try {
        const { response, text } = await this.post(hook, update);
        if (!response.ok)
          throw new Error(`Wrong response from the webhook: ${response.status} ${response.statusText}`);
        core.pending = core.pending.filter((u) => u !== update);
        failures = 0;
        await this.runWebhookReply(text);
      } catch (error) {
        if (core.closed) return;
        hook.lastError = { date: unixNow(), message: error instanceof Error ? error.message : String(error) };
        await this.pause(WEBHOOK_RETRY_MS[Math.min(failures, WEBHOOK_RETRY_MS.length - 1)]!);
        failures += 1;
      }
    }
  }

  /** POSTs one update to the webhook and reads the answer, within WEBHOOK_TIMEOUT_MS. */
  private async post(
    hook: NonNullable<EmulatorCore["webhookState"]>,
    update: unknown,
  ): Promise<{ response: Response; text: string }> {
    const limit = deadline(this.deliveryAbort.signal, WEBHOOK_TIMEOUT_MS);
    try {
      const response = await fetch(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(hook.secretToken ? { "x-telegram-bot-api-secret-token": hook.secretToken } : {}),
        },
        body: JSON.stringify(update),
        signal: limit.signal,
      });
      return { response, text: await response.text() };
    } finally {
      limit.clear();
    }
  }

  /** A webhook response may carry one Bot API call ({ method, ...params }), as Telegram allows. */
  private async runWebhookReply(text: string): Promise<void> {
    if (!text) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    const { method, ...params } = (body ?? {}) as Params;
    if (typeof method === "string" && method !== "")
      await this.call(method, params, this.deliveryAbort.signal);
  }

  async close(): Promise<void> {
    this.core.shutdown();
    this.deliveryAbort.abort();
    this.web.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      setTimeout(() => this.server.closeAllConnections(), 100).unref();
    });
  }

  user(init: { id: number; username?: string; firstName?: string; languageCode?: string }): ChatUser {
    this.userChat(init);
    let customer = this.customers.get(init.id);
    if (!customer) {
      customer = new Customer(this.core, this.core.chats.get(init.id)!);
      this.customers.set(init.id, customer);
    }
    return customer;
  }

  group(init: { id: number; title?: string; forum?: boolean }): GroupChat {
    if (!(init.id < 0)) throw new Error("a group chat's id is negative");
    let group = this.groups.get(init.id);
    if (!group) {
      const chat = {
        id: init.id,
        firstName: "",
        started: true,
        blocked: false,
        nextMessageId: 1,
        messages: [],
        listeners: new Set<() => void>(),
        group: {
          title: init.title ?? "Shop operators",
          isForum: init.forum ?? false,
          members: new Set<number>(),
          topics: new Map(),
        },
      };
      this.core.chats.set(init.id, chat);
      group = new Group(this.core, chat, (member) => this.userChat(member));
      this.groups.set(init.id, group);
    }
    return group;
  }

  /** The private chat state of a user (created on the first call, not started). */
  private userChat(init: { id: number; username?: string; firstName?: string; languageCode?: string }) {
    let chat = this.core.chats.get(init.id);
    if (!chat) {
      chat = {
        id: init.id,
        firstName: init.firstName ?? "Test",
        started: false,
        blocked: false,
        nextMessageId: 1,
        messages: [],
        listeners: new Set(),
      };
      this.core.chats.set(init.id, chat);
    }
    if (init.firstName !== undefined) chat.firstName = init.firstName;
    if (init.username !== undefined) chat.username = init.username;
    if (init.languageCode !== undefined) chat.languageCode = init.languageCode;
    return chat;
  }

  calls(method?: string) {
    const all = method ? this.core.recorded.filter((c) => c.method === method) : this.core.recorded;
    return all.map((c) => ({ ...c }));
  }

  stats() {
    return {
      requests: this.core.requests,
      rateLimited: this.core.rateLimited,
      byMethod: { ...this.core.byMethod },
    };
  }

  setRateLimits(limits: TelegramEmulatorOptions["rateLimits"]): void {
    this.core.setRateLimits(limits);
  }

  revokeToken(newToken: string): void {
    this.token = newToken;
    this.core.activePoll?.wake();
  }

  webhook() {
    const state = this.core.webhookState;
    return state
      ? { url: state.url, ...(state.secretToken ? { secretToken: state.secretToken } : {}) }
      : null;
  }

  commands(scope?: object, languageCode?: string): BotCommand[] {
    return (this.core.commandSets.get(scopeKey(jsonField(scope, "scope"), languageCode)) ?? []).map((c) => ({
      ...c,
    }));
  }

  refunds() {
    return this.core.refundList.map((r) => ({ ...r }));
  }

  onChange(listener: (chatId: number) => void): () => void {
    this.core.changeListeners.add(listener);
    return () => {
      this.core.changeListeners.delete(listener);
    };
  }
}

/** Starts a Bot API emulator on a free port (unless one is given) for a bot to use as its API root. */
export async function startTelegramEmulator(opts: TelegramEmulatorOptions): Promise<TelegramEmulator> {
  const emulator = new Emulator(opts);
  await emulator.listen();
  return emulator;
}
