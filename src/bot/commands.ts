import type { I18n } from "@grammyjs/i18n";
import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { Config, Locale } from "../config.js";
import { LOCALES } from "../config.js";
import type { Logger } from "../logger.js";
import type { BotContext } from "./context.js";
import { describeError } from "./telegram-errors.js";

/**
 * Handled everywhere (and they leave a flow in progress). `wallet` answers in every shop, but is
 * listed in Telegram's command menu only where the wallet is offered: a customer picks commands
 * from that menu, and one that only says "not available here" would be a dead end there.
 */
export const CUSTOMER_COMMANDS = [
  "start",
  "orders",
  "wallet",
  "language",
  "cancel",
  "help",
  "support",
  "paysupport",
] as const;
/**
 * Customer commands that answer beside a product flow in progress and leave it where it is (the
 * customer reads the help or their orders, then answers the question on screen). The others begin
 * something else (a new order, a wallet amount, a support message) or stop it (/cancel), and leave
 * the flow first.
 */
export const FLOW_KEEPING_COMMANDS: ReadonlySet<string> = new Set([
  "orders",
  "language",
  "help",
  "paysupport",
]);

/** Implemented by the operator features; listed only in operators' chats. */
export const OPERATOR_COMMANDS = [
  "balance",
  "orders",
  "order",
  "stats",
  "export",
  "wallet",
  "customer",
  "prices",
  "promo",
  "broadcast",
] as const;

/** Commands listed only when the wallet is offered. */
const WALLET_COMMANDS: readonly string[] = ["wallet"];

export function commandList(
  i18n: I18n<BotContext>,
  locale: Locale,
  operator: boolean,
  walletOffered = false,
): BotCommand[] {
  const listed = (c: string) => walletOffered || !WALLET_COMMANDS.includes(c);
  const list: BotCommand[] = CUSTOMER_COMMANDS.filter(listed).map((c) => ({
    command: c,
    description: i18n.t(locale, `cmd-${c}.description`),
  }));
  if (operator) {
    for (const c of OPERATOR_COMMANDS.filter(listed)) {
      const entry = { command: c, description: i18n.t(locale, `cmd-op-${c}.description`) };
      const at = list.findIndex((x) => x.command === c);
      if (at >= 0) list[at] = entry;
      else list.push(entry);
    }
  }
  return list;
}

/**
 * Registers the command lists: customers' commands in Russian and English (and the default
 * locale for other languages); operators additionally get theirs, only in their own chats.
 */
export async function registerCommands(
  api: Api,
  i18n: I18n<BotContext>,
  config: Pick<Config, "defaultLocale" | "operatorIds" | "checkout">,
  logger: Logger,
): Promise<void> {
  const wallet = config.checkout.includes("wallet");
  await api.setMyCommands(commandList(i18n, config.defaultLocale, false, wallet));
  for (const locale of LOCALES) {
    await api.setMyCommands(commandList(i18n, locale, false, wallet), { language_code: locale });
  }
  for (const chatId of config.operatorIds) {
    try {
      await api.setMyCommands(commandList(i18n, config.defaultLocale, true, wallet), {
        scope: { type: "chat", chat_id: chatId },
      });
      for (const locale of LOCALES) {
        await api.setMyCommands(commandList(i18n, locale, true, wallet), {
          scope: { type: "chat", chat_id: chatId },
          language_code: locale,
        });
      }
    } catch (err) {
      // An operator who never opened the bot has no chat yet ("chat not found").
      logger.warn({ operatorId: chatId, reason: describeError(err) }, "operator commands not set");
    }
  }
}
