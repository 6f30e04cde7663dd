/** Redis keys of the bot's per-chat state; the session and flow middleware and the notifier use them. */

/** A chat's session (SessionData: chosen language, last quote). */
export function sessionKey(prefix: string, chatId: number | string): string {
  return `${prefix}session:${chatId}`;
}

/** A chat's conversations (the product flows in progress). */
export function conversationKey(prefix: string, chatId: number | string): string {
  return `${prefix}conv:${chatId}`;
}
