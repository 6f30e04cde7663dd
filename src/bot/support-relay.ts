import type { I18n } from "@grammyjs/i18n";
import type { Api } from "grammy";
import type { Config, Locale } from "../config.js";
import type { Logger } from "../logger.js";
import type { OrdersApi } from "../orders/api.js";
import type { RedisClient } from "../redis/connect.js";
import { chatLocale } from "./chat-locale.js";
import type { BotContext } from "./context.js";
import { escapeHtml, stripHtml } from "./format/html.js";
import {
  renderSupportHeader,
  SUPPORT_ORDERS_SHOWN,
  type SupportSender,
  supportKeyboard,
  supportTopicName,
} from "./format/support.js";
import { translator } from "./i18n.js";
import type { OperatorChat, TopicRef } from "./operator-chat.js";
import type { SupportCustomer, SupportStore } from "./support-store.js";
import { describeError, isUnreachable } from "./telegram-errors.js";

export interface SupportRelayDeps {
  api: Api;
  config: Pick<Config, "operatorIds" | "defaultLocale" | "redisChatPrefix" | "redisPrefix">;
  logger: Logger;
  redis: RedisClient;
  orders: Pick<OrdersApi, "listByChat">;
  i18n: I18n<BotContext>;
  store: SupportStore;
  /** The operators' group (OPERATOR_CHAT_ID); without it each operator gets support in private. */
  group?: OperatorChat;
}

/** Telegram's limits on a message's text and a media message's caption (characters, tags not counted). */
const MAX_TEXT_CHARS = 4096;
const MAX_CAPTION_CHARS = 1024;

/** A customer's message, as the relay needs it. */
export interface CustomerMessage {
  chatId: number;
  messageId: number;
  who: SupportSender;
  customer: SupportCustomer;
  /** The first message since the customer chose to write to support: the operators get a header first. */
  first: boolean;
}

/** What an operator wrote: text, or a photo or file with an optional caption. */
export interface OperatorMessage {
  chatId: number;
  messageId: number;
  text?: string;
  caption?: string;
  media: boolean;
}

/**
 * Carries support messages both ways. A customer's message is copied to the operators — into the
 * group (in a forum: the customer's own topic, created once) or to each operator in private —
 * after a header with who writes and their latest orders; every message the operators get is
 * remembered as the customer's (SupportStore). An operator's answer reaches the customer as
 * "Support: …" with a button to write back.
 */
export class SupportRelay {
  constructor(private readonly deps: SupportRelayDeps) {}

  /** The language the bot writes to a chat in (chat-locale.ts). */
  private localeOf(chatId: number): Promise<Locale> {
    return chatLocale(this.deps.redis, this.deps.config, chatId);
  }

  private async header(chatId: number, who: SupportSender): Promise<string> {
    const locale = await this.localeOf(chatId);
    const page = await this.deps.orders.listByChat(who.userId, 0, SUPPORT_ORDERS_SHOWN);
    return renderSupportHeader(who, page.items, translator(this.deps.i18n, locale), locale);
  }

  private async toGroup(group: OperatorChat, m: CustomerMessage): Promise<void> {
    const { store } = this.deps;
    const ref: TopicRef = { key: `customer:${m.who.userId}`, name: supportTopicName(m.who) };
    if (m.first) {
      const header = await group.send(await this.header(group.chatId, m.who), { parse_mode: "HTML" }, ref);
      await store.rememberMessage(group.chatId, header.message_id, m.customer);
    }
    const copyId = await group.copy(m.chatId, m.messageId, {}, ref);
    await store.rememberMessage(group.chatId, copyId, m.customer);
    const threadId = await group.knownTopic(ref.key);
    if (threadId !== undefined) await store.rememberThread(threadId, m.customer);
  }

  /** Passes a customer's message on; false when no operator could be reached. */
  async fromCustomer(m: CustomerMessage): Promise<boolean> {
    const { group, store } = this.deps;
    if (group) {
      try {
        await this.toGroup(group, m);
        return true;
      } catch (err) {
        // The group cannot take it: each operator gets it in private rather than nobody.
        this.deps.logger.error(
          { reason: describeError(err) },
          "operators' group refused a support message; sending it to each operator",
        );
      }
    }
    let reached = 0;
    for (const operatorId of this.deps.config.operatorIds) {
      try {
        if (m.first) {
          const header = await this.deps.api.sendMessage(operatorId, await this.header(operatorId, m.who), {
            parse_mode: "HTML",
          });
          await store.rememberMessage(operatorId, header.message_id, m.customer);
        }
        const copy = await this.deps.api.copyMessage(operatorId, m.chatId, m.messageId);
        await store.rememberMessage(operatorId, copy.message_id, m.customer);
        reached += 1;
      } catch (err) {
        if (!isUnreachable(err)) throw err;
        this.deps.logger.warn({ operatorId, reason: describeError(err) }, "operator unreachable for support");
      }
    }
    return reached > 0;
  }

  /**
   * Sends an operator's answer to the customer. "unreachable" when the customer blocked the bot
   * (or deleted the chat).
   */
  async toCustomer(customer: SupportCustomer, m: OperatorMessage): Promise<"sent" | "unreachable"> {
    const t = translator(this.deps.i18n, customer.locale);
    const other = { parse_mode: "HTML" as const, reply_markup: supportKeyboard(t) };
    const api = this.deps.api;
    const labelled = t("support-answer", { text: escapeHtml((m.media ? m.caption : m.text) ?? "") });
    // An answer near Telegram's limit has no room for the label: the label goes first, on its own.
    const fits = stripHtml(labelled).length <= (m.media ? MAX_CAPTION_CHARS : MAX_TEXT_CHARS);
    try {
      if (!fits) {
        await api.sendMessage(customer.userId, t("support-answer", { text: "" }).trim(), {
          parse_mode: "HTML",
        });
      }
      if (m.media) {
        await api.copyMessage(customer.userId, m.chatId, m.messageId, {
          ...other,
          ...(fits ? { caption: labelled } : {}),
        });
      } else {
        await api.sendMessage(customer.userId, fits ? labelled : escapeHtml(m.text ?? ""), other);
      }
      return "sent";
    } catch (err) {
      if (!isUnreachable(err)) throw err;
      this.deps.logger.warn(
        { userId: customer.userId, reason: describeError(err) },
        "support answer not delivered",
      );
      return "unreachable";
    }
  }
}
