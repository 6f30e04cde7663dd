import type { I18nFlavor } from "@grammyjs/i18n";
import type { MenuFlavor } from "@grammyjs/menu";
import type { Context, SessionFlavor } from "grammy";
import type { Broadcasts } from "../broadcast/broadcasts.js";
import type { Audience, BroadcastContent } from "../broadcast/types.js";
import type { CatalogService } from "../catalog/service.js";
import type { Config, Locale, ProductKind } from "../config.js";
import type { BanList } from "../customers/bans.js";
import type { CustomerNotes } from "../customers/notes.js";
import type { CustomerRegistry } from "../customers/registry.js";
import type { Usernames } from "../customers/usernames.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import type { OrdersApi } from "../orders/api.js";
import type { RedisClient } from "../redis/connect.js";
import type { Referrals } from "../referrals/referrals.js";
import type { ResellerClient } from "../reseller/types.js";
import type { WalletLedger } from "../wallet/ledger.js";
import type { FlowControl, FlowRecord } from "./flows/flow-state.js";

/** What the bot needs from the rest of the application (built by src/main.ts). */
export interface BotDeps {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  orders: OrdersApi;
  /** The operators' /balance reads the deposit with it. */
  reseller: Pick<ResellerClient, "balance">;
  catalog: CatalogService;
  /** Prometheus metrics (Telegram 429s are counted) when the application has them. */
  metrics?: Metrics;
  /** The customers' wallets, when CHECKOUT offers `wallet`. */
  wallet?: WalletLedger;
  /** Invite codes and who referred whom (REFERRAL_PERCENT above 0); createBot makes one when absent. */
  referrals?: Referrals;
  /** Usernames, bans and operator notes (operators' /customer); createBot makes them when absent. */
  customers?: CustomerRecords;
  /** Who used the bot (broadcast audiences); createBot makes one when not given. */
  registry?: CustomerRegistry;
  /** Operators' broadcasts (/broadcast answers that they are not available without it). */
  broadcasts?: Broadcasts;
}

/** What the bot keeps about customers besides orders and wallets (src/customers). */
export interface CustomerRecords {
  usernames: Usernames;
  bans: BanList;
  notes: CustomerNotes;
}

/** Per-chat data kept in Redis between updates. */
export interface SessionData {
  /** Chosen language (@grammyjs/i18n reads and writes this key when `useSession` is on). */
  __language_code?: Locale;
  /** The last quote a flow produced, so /cancel can cancel it while it is unpaid. */
  lastQuoteId?: string;
  /** The product flow in progress (flows/flow-state.ts): where it is and what was answered. */
  flow?: FlowRecord;
  /** A typed answer the wallet screens wait for (see features/wallet.ts), when one does. */
  walletInput?: WalletInput;
  /** An operator's note about customer `userId` the next text message gives (/customer), when one is asked for. */
  customerNote?: { userId: number; at: number };
  /** A typed answer an operator's /prices screen waits for (see features/operator-prices.ts). */
  pricesInput?: PricesInput;
  /** The quoted order whose promo code the customer's next text message is (features/promo.ts). */
  promoInput?: { orderId: string; at: number };
  /** An operator's broadcast being composed (features/broadcast.ts). */
  broadcastDraft?: BroadcastDraft;
  /**
   * The customer is writing to support (features/support.ts) since `at` (ms, renewed by each
   * message); `sent` once a first message reached the operators.
   */
  support?: { at: number; sent?: boolean };
}

/**
 * A broadcast being composed: the message first, then the audience, then the preview. `id` is
 * fixed when /broadcast starts it, so a repeated Send starts one broadcast.
 */
export interface BroadcastDraft {
  step: "content" | "audience" | "preview";
  at: number;
  id: string;
  content?: BroadcastContent;
  audience?: Audience;
}

/** What the operator's next text message sets on the /prices screen; `at` is when it was asked. */
export type PricesInput =
  | { ask: "markup"; kind: ProductKind; at: number }
  | { ask: "item"; at: number }
  | { ask: "margin"; at: number };

/**
 * What the next text message in the chat answers, for the wallet's few typed questions (kept in
 * the session so it survives a restart and reaches any process):
 * - `topup`: a customer's own top-up amount in whole roubles;
 * - `adjust-amount`, `adjust-note`: an operator's correction of customer `userId`, step by step;
 * - `adjust-confirm`: shown for confirmation; `ref` was fixed then, so a repeated Confirm applies once.
 * `at` is when the question was asked: an answer after {@link WALLET_INPUT_TTL_MS} is not taken.
 */
export type WalletInput =
  | { ask: "topup"; at: number }
  | { ask: "adjust-amount"; at: number; userId: number }
  | { ask: "adjust-note"; at: number; userId: number; amountKopecks: number }
  | { ask: "adjust-confirm"; at: number; userId: number; amountKopecks: number; note: string; ref: string };

/** A wallet question waits this long for its typed answer. */
export const WALLET_INPUT_TTL_MS = 3600 * 1000;

interface Extras {
  deps: BotDeps;
  /** Entering and leaving the product flows (flows/dispatch.ts). */
  flows: FlowControl;
  /** Child logger carrying the update id. */
  logger: Logger;
}

type Base = Context & SessionFlavor<SessionData> & I18nFlavor & MenuFlavor & Extras;

/** The context of every handler. */
export type BotContext = Base;

/** Translates one key for one locale (Fluent variables: strings and numbers). */
export type Translate = (key: string, vars?: Record<string, string | number>) => string;
