import type { Bot, Context } from "grammy";

/** A token in Telegram's shape; the emulator accepts only this one. */
export const TOKEN = "123456789:AAEmulatorTestToken_abcdefghijklmnopq";

/** Starts long polling and resolves once the bot is receiving updates; returns a stopper. */
export async function startPolling<C extends Context>(bot: Bot<C>): Promise<() => Promise<void>> {
  const stopped = new Promise<void>((resolve, reject) => {
    bot
      .start({ onStart: () => resolve(), drop_pending_updates: false })
      .catch((error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
  });
  await stopped;
  return () => bot.stop();
}
