import type { Api } from "grammy";
import type { Config, Locale } from "../config.js";
import type { Logger } from "../logger.js";
import type { Notifier } from "../orders/types.js";
import type { RedisClient } from "../redis/connect.js";
import { cutText } from "../util/text.js";
import { chatLocale } from "./chat-locale.js";
import { renderCard, shortId } from "./format/card.js";
import { renderExtraPayment } from "./format/extra-payment.js";
import { renderFinal } from "./format/final.js";
import { stripHtml } from "./format/html.js";
import { formatRub } from "./format/money.js";
import { renderAlert } from "./format/operator-alerts.js";
import { supportKeyboard } from "./format/support.js";
import { createI18n, translator } from "./i18n.js";
import { OperatorChat } from "./operator-chat.js";
import {
  describeError,
  isAlreadyRefunded,
  isCannotEdit,
  isNotModified,
  isRefused,
  isRefusedText,
  isUnreachable,
} from "./telegram-errors.js";

/** Telegram's longest message text. */
const MAX_TEXT = 4096;

/**
 * How the orders engine reaches customers and operators. Every method is safe to repeat:
 * an edit of an unchanged card is ignored, a card that cannot be edited is sent anew.
 * Pass `redis` to send operator alerts in the language each operator chose with /language; with
 * OPERATOR_CHAT_ID (and `redis`) alerts go into the operators' group instead, in a forum one topic
 * per alert kind.
 */
export function createNotifier(deps: {
  api: Api;
  config: Config;
  logger: Logger;
  redis?: RedisClient;
}): Notifier {
  const { api, config, logger } = deps;
  const i18n = createI18n(config);
  const group =
    config.operatorChatId !== undefined && deps.redis
      ? new OperatorChat({
          api,
          redis: deps.redis,
          chatId: config.operatorChatId,
          prefix: config.redisPrefix,
          logger,
        })
      : undefined;
  const fmt = (locale: Locale) => ({
    t: translator(i18n, locale),
    locale,
    supportContact: config.supportContact,
    rails: config.checkout,
  });

  const operatorLocale = async (chatId: number): Promise<Locale> =>
    deps.redis ? chatLocale(deps.redis, config, chatId) : config.defaultLocale;

  /**
   * Sends an HTML text to a customer. One Telegram refuses for its text (markup it cannot parse, a
   * length past its limit: a reseller's field of unforeseen shape) goes again as plain text, cut to
   * fit, so that the customer still learns what became of the order.
   */
  const sendHtml = async (
    chatId: number,
    text: string,
    other: Omit<NonNullable<Parameters<Api["sendMessage"]>[2]>, "parse_mode">,
    orderId?: string,
  ) => {
    try {
      return await api.sendMessage(chatId, text, { ...other, parse_mode: "HTML" });
    } catch (err) {
      if (!isRefusedText(err)) throw err;
      logger.error(
        { orderId, reason: describeError(err) },
        "Telegram refused a message's text; sent as plain text",
      );
      return api.sendMessage(chatId, cutText(stripHtml(text), MAX_TEXT), other);
    }
  };

  return {
    unreachable: isUnreachable,
    refused: isRefused,

    async updateCard(order) {
      const card = renderCard(order, fmt(order.customer.locale));
      const other = { parse_mode: "HTML" as const, reply_markup: card.keyboard ?? { inline_keyboard: [] } };
      const chatId = order.customer.chatId;
      if (order.cardMessageId !== undefined) {
        try {
          await api.editMessageText(chatId, order.cardMessageId, card.text, other);
          return order.cardMessageId;
        } catch (err) {
          if (isNotModified(err)) return order.cardMessageId;
          if (isRefusedText(err)) {
            logger.error(
              { orderId: order.id, reason: describeError(err) },
              "Telegram refused a card's text; sent as plain text",
            );
            const plain = { reply_markup: other.reply_markup };
            await api.editMessageText(
              chatId,
              order.cardMessageId,
              cutText(stripHtml(card.text), MAX_TEXT),
              plain,
            );
            return order.cardMessageId;
          }
          if (!isCannotEdit(err)) throw err;
          logger.info({ orderId: order.id }, "order card cannot be edited; sending a new one");
        }
      }
      const sent = await sendHtml(chatId, card.text, { reply_markup: card.keyboard }, order.id);
      return sent.message_id;
    },

    async sendFinal(order) {
      const f = fmt(order.customer.locale);
      // An order that did not go through offers the way to the shop's support.
      const troubled = order.state === "failed" || order.state === "rejected";
      await sendHtml(
        order.customer.chatId,
        renderFinal(order, f),
        {
          link_preview_options: { is_disabled: true },
          ...(troubled ? { reply_markup: supportKeyboard(f.t) } : {}),
        },
        order.id,
      );
    },

    async extraPayment(order, charge) {
      const f = fmt(order.customer.locale);
      const text = renderExtraPayment(order, charge, { ...f, settled: true });
      try {
        await sendHtml(order.customer.chatId, text, {}, order.id);
      } catch (err) {
        // A customer who blocked the bot: the refund stands (and the operators know one by hand).
        if (!isUnreachable(err)) throw err;
        logger.info({ orderId: order.id, reason: describeError(err) }, "customer unreachable");
      }
    },

    async topUpCredited(topup, balanceKopecks) {
      const t = translator(i18n, topup.locale);
      const text = t("topup-credited", {
        amount: formatRub(topup.amountKopecks, topup.locale),
        balance: formatRub(balanceKopecks, topup.locale),
      });
      await api.sendMessage(topup.chatId, text, { parse_mode: "HTML" });
    },

    async referralCredited(referrerId, amountKopecks, balanceKopecks) {
      // The referrer's chosen language (their private chat's session), else the default.
      const locale = await operatorLocale(referrerId);
      const t = translator(i18n, locale);
      const text = t("referral-credited", {
        amount: formatRub(amountKopecks, locale),
        balance: formatRub(balanceKopecks, locale),
      });
      try {
        await api.sendMessage(referrerId, text, { parse_mode: "HTML" });
      } catch (err) {
        // A referrer who blocked the bot keeps the bonus; there is no one to tell.
        if (!isUnreachable(err)) throw err;
        logger.info({ referrerId, reason: describeError(err) }, "referrer unreachable");
      }
    },

    async refundStars(userId, telegramChargeId) {
      try {
        await api.refundStarPayment(userId, telegramChargeId);
      } catch (err) {
        // Already refunded is what a repeat after a crash looks like: the goal is reached.
        if (isAlreadyRefunded(err)) return;
        throw err;
      }
    },

    async alert(alert, order) {
      const short = order ? shortId(order.id) : alert.orderId ? shortId(alert.orderId) : undefined;
      if (group) {
        const locale = await operatorLocale(group.chatId);
        const t = translator(i18n, locale);
        const { text, reply_markup } = renderAlert(alert, order, t, locale);
        // A product's pause and its resumption share one topic.
        const topic = alert.kind === "product_resumed" ? "product_paused" : alert.kind;
        try {
          await group.send(
            text,
            { parse_mode: "HTML", reply_markup, link_preview_options: { is_disabled: true } },
            { key: `alert:${topic}`, name: t(`op-topic-alert-${topic}`) },
          );
          return;
        } catch (err) {
          // The group cannot take it (the bot was removed, no right to make topics…): the
          // operators get the alert in private rather than not at all.
          logger.error(
            { kind: alert.kind, order: short, reason: describeError(err) },
            "operators' group refused an alert; sending it to each operator",
          );
        }
      }
      await Promise.all(
        config.operatorIds.map(async (operatorId) => {
          const locale = await operatorLocale(operatorId);
          const { text, reply_markup } = renderAlert(alert, order, translator(i18n, locale), locale);
          try {
            await api.sendMessage(operatorId, text, {
              parse_mode: "HTML",
              reply_markup,
              link_preview_options: { is_disabled: true },
            });
          } catch (err) {
            if (isUnreachable(err)) {
              logger.warn(
                { operatorId, kind: alert.kind, order: short, reason: describeError(err) },
                "operator unreachable",
              );
              return;
            }
            logger.error({ err, operatorId, kind: alert.kind, order: short }, "operator alert failed");
          }
        }),
      );
    },
  };
}
