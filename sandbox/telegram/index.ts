/**
 * A Telegram Bot API emulator over real HTTP: point a bot's API root at `apiRoot` and drive simulated
 * customers who send text, press inline buttons and pay invoices. Used by end-to-end tests, benchmarks
 * and the offline demo.
 */
export { describeMessages } from "./customer.js";
export { htmlToPlainText, type MessageEntity, parseTelegramHtml } from "./html.js";
export { startTelegramEmulator } from "./server.js";
export type {
  BotCommand,
  CallbackAnswer,
  ChatMessage,
  ChatUser,
  EmulatorStats,
  GroupChat,
  InvoiceInfo,
  RateLimits,
  RecordedCall,
  SendOptions,
  TelegramEmulator,
  TelegramEmulatorOptions,
} from "./types.js";
