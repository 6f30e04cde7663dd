import { sleep } from "../../http-client/index.js";
import { kopecksToAmount } from "./amount.js";
import { type CryptoPayError, CryptoPayValidationError, withAttempts } from "./errors.js";
import { type CryptoPayClientOptions, createCryptoPayTransport } from "./http.js";
import {
  type CryptoPayApp,
  type CryptoPayInvoice,
  encodeInvoicePayload,
  parseApp,
  parseInvoice,
  parseInvoiceList,
} from "./schemas.js";

export type { CryptoPayClientOptions } from "./http.js";

/** Crypto Pay's limits on createInvoice. */
const MAX_DESCRIPTION = 1024;
const MAX_PAYLOAD = 4096;
const MAX_EXPIRES_IN = 2_678_400;
const MAX_PAGE = 1000;

export interface CreateInvoiceInput {
  /** The price in kopecks, a positive integer; sent as `amount` in fiat RUB, e.g. 12345 → "123.45". */
  amountKopecks: number;
  /** The order's custom_id (or a wallet top-up's id); carried in the invoice payload. */
  orderId: string;
  /** Shown to the customer on the invoice, up to 1024 characters. */
  description?: string;
  /** Seconds until Crypto Pay expires the invoice (1 … 2 678 400); match the quote's remaining life. */
  expiresInSeconds?: number;
  /** Extra text of the caller's own kept in the payload next to the order id (e.g. "order" / "topup"). */
  payload?: string;
  /** Coins offered to the customer, e.g. ["USDT", "TON"]; default every coin Crypto Pay supports. */
  acceptedAssets?: string[];
  signal?: AbortSignal;
}

export interface GetInvoicesInput {
  invoiceIds?: number[];
  status?: "active" | "paid";
  /** 1 … 1000; Crypto Pay's default is 100. */
  count?: number;
  offset?: number;
  signal?: AbortSignal;
}

export interface FindInvoicesInput {
  status?: "active" | "paid";
  /** Invoices read per page (default 100) and pages read at most (default 10): the newest 1000. */
  pageSize?: number;
  maxPages?: number;
  signal?: AbortSignal;
}

export interface CryptoPayClient {
  /**
   * Creates an invoice in fiat RUB for one order. Crypto Pay has no idempotency key, so after a
   * failure whose outcome is unknown (network, timeout, 5xx) the retry first looks for an active
   * invoice this client already made for the same order and amount, and returns it instead of
   * creating another. See index.ts for what the caller must still do.
   */
  createInvoice(input: CreateInvoiceInput): Promise<CryptoPayInvoice>;
  /** getInvoices: by ids (`invoice_ids`, comma-separated), by status, paged by count/offset. */
  getInvoices(input?: GetInvoicesInput): Promise<CryptoPayInvoice[]>;
  /** One invoice re-read by id; null when Crypto Pay does not know it. */
  getInvoice(invoiceId: number, opts?: { signal?: AbortSignal }): Promise<CryptoPayInvoice | null>;
  /** Every invoice whose payload names this order, newest first, among the newest pages of `status` (or all). */
  findInvoicesForOrder(orderId: string, opts?: FindInvoicesInput): Promise<CryptoPayInvoice[]>;
  /** getMe: checks the token; answers the app's id and name. */
  getMe(opts?: { signal?: AbortSignal }): Promise<CryptoPayApp>;
  close(): Promise<void>;
}

function checkCreate(input: CreateInvoiceInput): Record<string, unknown> {
  if (typeof input.orderId !== "string" || input.orderId.trim() === "") {
    throw new CryptoPayValidationError("orderId", "is required: a non-empty string");
  }
  let amount: string;
  try {
    amount = kopecksToAmount(input.amountKopecks);
  } catch (err) {
    throw new CryptoPayValidationError("amountKopecks", (err as Error).message);
  }
  const params: Record<string, unknown> = { currency_type: "fiat", fiat: "RUB", amount };
  if (input.acceptedAssets?.length) params.accepted_assets = input.acceptedAssets.join(",");
  if (input.description !== undefined) {
    if ([...input.description].length > MAX_DESCRIPTION) {
      throw new CryptoPayValidationError("description", `is longer than ${MAX_DESCRIPTION} characters`);
    }
    params.description = input.description;
  }
  const payload = encodeInvoicePayload(input.orderId, input.payload);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
    throw new CryptoPayValidationError("payload", `with the order id is longer than ${MAX_PAYLOAD} bytes`);
  }
  params.payload = payload;
  if (input.expiresInSeconds !== undefined) {
    const s = input.expiresInSeconds;
    if (!Number.isInteger(s) || s < 1 || s > MAX_EXPIRES_IN) {
      throw new CryptoPayValidationError("expiresInSeconds", `must be a whole number 1 … ${MAX_EXPIRES_IN}`);
    }
    params.expires_in = s;
  }
  return params;
}

/**
 * The Crypto Pay client: thin and typed, on the project's undici pool, zod-parsed answers.
 * Reads are retried on network errors, timeouts, 5xx and 429; createInvoice retries with a
 * look-up first (see `createInvoice`). The token goes into the Crypto-Pay-API-Token header only.
 */
export function createCryptoPayClient(opts: CryptoPayClientOptions): CryptoPayClient {
  const transport = createCryptoPayTransport(opts);
  const log = opts.logger?.child({ component: "cryptopay" });

  async function getInvoices(input: GetInvoicesInput = {}): Promise<CryptoPayInvoice[]> {
    const params: Record<string, unknown> = {};
    if (input.invoiceIds !== undefined) {
      if (input.invoiceIds.length === 0) return [];
      if (!input.invoiceIds.every((id) => Number.isSafeInteger(id) && id > 0)) {
        throw new CryptoPayValidationError("invoiceIds", "must be positive whole numbers");
      }
      params.invoice_ids = input.invoiceIds.join(",");
    }
    if (input.status !== undefined) params.status = input.status;
    if (input.count !== undefined) {
      if (!Number.isInteger(input.count) || input.count < 1 || input.count > MAX_PAGE) {
        throw new CryptoPayValidationError("count", `must be a whole number 1 … ${MAX_PAGE}`);
      }
      params.count = input.count;
    }
    if (input.offset !== undefined) {
      if (!Number.isInteger(input.offset) || input.offset < 0) {
        throw new CryptoPayValidationError("offset", "must be a whole number ≥ 0");
      }
      params.offset = input.offset;
    }
    return transport.call({ method: "getInvoices", params, parse: parseInvoiceList, signal: input.signal });
  }

  async function findInvoicesForOrder(
    orderId: string,
    o: FindInvoicesInput = {},
  ): Promise<CryptoPayInvoice[]> {
    const pageSize = o.pageSize ?? 100;
    const maxPages = o.maxPages ?? 10;
    const found: CryptoPayInvoice[] = [];
    for (let page = 0; page < maxPages; page++) {
      const items = await getInvoices({
        status: o.status,
        count: pageSize,
        offset: page * pageSize,
        signal: o.signal,
      });
      for (const inv of items) if (inv.orderId === orderId) found.push(inv);
      if (items.length < pageSize) break;
    }
    return found.sort((a, b) => b.invoiceId - a.invoiceId);
  }

  async function createInvoice(input: CreateInvoiceInput): Promise<CryptoPayInvoice> {
    const params = checkCreate(input);
    // Set once an attempt may have created an invoice without us hearing the answer; never reset.
    let unknownCreate: CryptoPayError | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        if (unknownCreate) {
          const mine = (
            await findInvoicesForOrder(input.orderId, { status: "active", signal: input.signal })
          ).find((inv) => inv.amountKopecks === input.amountKopecks);
          if (mine) {
            log?.info(
              { invoiceId: mine.invoiceId, attempts: attempt },
              "crypto pay invoice found after an unanswered createInvoice; not creating another",
            );
            return mine;
          }
        }
        return await transport.call({
          method: "createInvoice",
          params,
          parse: parseInvoice,
          retries: 0,
          signal: input.signal,
        });
      } catch (err) {
        const e = err as CryptoPayError;
        if (e?.name !== "CryptoPayError") throw err;
        if (e.method === "createInvoice" && e.outcomeUnknown) unknownCreate = e;
        if (!e.transient || attempt >= transport.retries || input.signal?.aborted) {
          // A last failure that says nothing of the invoice (e.g. a 429 on the look-up) must not hide that
          // an earlier createInvoice may have made one: the caller looks it up before trying again.
          const final = e.transient && !e.outcomeUnknown && unknownCreate ? unknownCreate : e;
          throw withAttempts(final, attempt + 1);
        }
        await sleep(e.retryAfterMs ?? transport.backoff(attempt), input.signal);
      }
    }
  }

  return {
    createInvoice,
    getInvoices,
    async getInvoice(invoiceId, o) {
      const list = await getInvoices({ invoiceIds: [invoiceId], signal: o?.signal });
      return list.find((inv) => inv.invoiceId === invoiceId) ?? null;
    },
    findInvoicesForOrder,
    getMe: (o) => transport.call({ method: "getMe", params: {}, parse: parseApp, signal: o?.signal }),
    close: () => transport.close(),
  };
}
