/** Redis keys of the bot's per-chat state; the session and flow middleware and the notifier use them. */

/** A chat's session (SessionData: chosen language, last quote, flows in progress). */
export function sessionKey(prefix: string, chatId: number | string): string {
  return `${prefix}session:${chatId}`;
}
