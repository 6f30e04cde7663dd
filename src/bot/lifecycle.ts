import { run } from "@grammyjs/runner";
import { type Api, type Bot, GrammyError, type Middleware } from "grammy";
import type { Update } from "grammy/types";
import type { Config } from "../config.js";
import { sleep } from "../http-client/retry.js";
import type { Logger } from "../logger.js";
import type { OrdersApi } from "../orders/api.js";
import { settleWithin } from "../util/timers.js";
import { registerCommands } from "./commands.js";
import type { BotContext } from "./context.js";
import { recordPayments } from "./features/payments.js";
import { createI18n } from "./i18n.js";
import type { WebhookIntake } from "./webhook-intake.js";

/** Updates the bot asks Telegram for (my_chat_member: a customer blocked or unblocked the bot). */
export const ALLOWED_UPDATES = ["message", "callback_query", "pre_checkout_query", "my_chat_member"] as const;

/** Updates being handled per bot, awaited (bounded) on stop. */
const inFlight = new WeakMap<object, Set<Promise<unknown>>>();
/** How long stopping waits for updates in progress. */
const STOP_GRACE_MS = 10_000;

/**
 * Middleware that keeps every update in progress on `bot`, so stopping waits for them (the
 * runner's stop does not). Installed first by createBot.
 */
export function trackUpdates(bot: object): Middleware<BotContext> {
  const active = new Set<Promise<void>>();
  inFlight.set(bot, active);
  return async (_ctx, next) => {
    const p = next();
    active.add(p);
    try {
      await p;
    } finally {
      active.delete(p);
    }
  };
}

async function drain(bot: object): Promise<void> {
  const pending = [...(inFlight.get(bot) ?? [])];
  if (pending.length > 0) await settleWithin(pending, STOP_GRACE_MS);
}

/**
 * Records the payments of every batch getUpdates returns as soon as it arrives, before it can be
 * confirmed (the webhook's counterpart is in src/http/telegram-webhook.ts).
 */
export function recordPolledPayments(api: Api, orders: OrdersApi): void {
  api.config.use(async (prev, method, payload, signal) => {
    const res = await prev(method, payload, signal);
    if (method === "getUpdates" && res.ok) {
      await recordPayments(orders, res.result as Update[]);
    }
    return res;
  });
}

/** First pause before polling again after a 409 Conflict; it doubles up to the second value. */
const CONFLICT_RETRY_MS = [1_000, 30_000] as const;

/**
 * Lets polling outlast a 409 Conflict (another process polls with the same token, and Telegram
 * ends the older long poll; or a webhook is set): getUpdates is asked again, with the same offset,
 * after a pause that doubles up to 30 s, instead of the runner failing and the process ending.
 * The conflict is logged once, and again only after polling worked in between.
 */
function outlastConflicts(api: Api, logger: Logger): void {
  let conflicted = false;
  api.config.use(async (prev, method, payload, signal) => {
    if (method !== "getUpdates") return prev(method, payload, signal);
    let waitMs: number = CONFLICT_RETRY_MS[0];
    for (;;) {
      const res = await prev(method, payload, signal);
      if (res.ok && conflicted) {
        conflicted = false;
        logger.info("polling for updates again");
      }
      if (res.ok || res.error_code !== 409) return res;
      if (!conflicted) {
        conflicted = true;
        logger.error(
          { error_code: 409, description: res.description },
          "Telegram refused getUpdates (409 Conflict): another process is polling with this bot token, or a webhook is set; polling again with a backoff up to 30 s",
        );
      }
      // Stopping: the conflict goes up as it is, and the runner, stopped, drops it.
      await sleep(waitMs, signal as AbortSignal | undefined);
      if (signal?.aborted) return res;
      waitMs = Math.min(waitMs * 2, CONFLICT_RETRY_MS[1]);
    }
  });
}

/** What ends polling for good: Telegram refused the token (revoked or wrong), or another lasting error. */
function describePollingEnd(err: unknown): { msg: string; error_code?: number; description?: string } {
  if (err instanceof GrammyError && err.error_code === 401) {
    return {
      msg: "Telegram refused the bot token (401 Unauthorized): BOT_TOKEN was revoked or is wrong; stopping",
      error_code: 401,
      description: err.description,
    };
  }
  if (err instanceof GrammyError) {
    return {
      msg: "polling for updates failed; stopping",
      error_code: err.error_code,
      description: err.description,
    };
  }
  return {
    msg: "polling for updates failed; stopping",
    description: err instanceof Error ? err.message : String(err),
  };
}

/**
 * Updates handled at once when polling (the runner's default is 500). Beyond this, fetched updates
 * wait in the runner's queue, a few hundred bytes each, instead of each holding its session and
 * its requests' buffers while hundreds interleave: in the 1,000-customer rush
 * of `npm run bench` this lowered the peak RSS by about 20 MB without slowing the answers (the
 * machine's two cores are busy either way). It is also the most customers whose payment answers
 * can wait for `pay` at once (at most 1.5 s each, pay-answers.ts). Telegram's webhook mode has its
 * own bound: 40 connections by default.
 */
export const UPDATES_IN_PROGRESS = 150;

/**
 * Starts receiving updates: long polling through @grammyjs/runner, or (BOT_MODE=webhook) opens the
 * webhook intake and registers the webhook; updates then arrive through the HTTP listener
 * (src/http/telegram-webhook.ts). Also registers the command lists. Stopping in webhook mode
 * refuses new updates at once (503: Telegram sends them again) and waits for those in progress.
 *
 * Polling outlasts a 409 Conflict (outlastConflicts) and Telegram out of reach (the API's retries,
 * api.ts). What ends it for good, above all a 401 (the token was revoked: no call can work until
 * the operator sets a new BOT_TOKEN and restarts, which start-up checks too), is logged as one
 * line and `onFailure` is called: the process stops cleanly and exits 1, so that the fault shows.
 */
export async function startBot(
  bot: Bot<BotContext>,
  deps: { config: Config; logger: Logger; intake?: WebhookIntake; onFailure?: (err: unknown) => void },
): Promise<{ stop(): Promise<void> }> {
  const { config, logger, intake } = deps;
  await bot.init();
  try {
    await registerCommands(bot.api, createI18n(config), config, logger);
  } catch (err) {
    logger.warn({ err }, "could not register commands");
  }
  if (config.botMode === "webhook") {
    intake?.start();
    await bot.api.setWebhook(config.botWebhookUrl ?? "", {
      secret_token: config.botWebhookSecret,
      allowed_updates: [...ALLOWED_UPDATES],
    });
    logger.info({ username: bot.botInfo.username }, "bot receiving updates by webhook");
    return {
      // The intake waits (bounded) for every update it handed to the bot.
      stop: () => (intake ? intake.stop() : drain(bot)),
    };
  }
  await bot.api.deleteWebhook();
  outlastConflicts(bot.api, logger);
  const handle = run(bot, {
    // Silent: the runner would print its errors to the console; they are logged here instead.
    runner: { fetch: { allowed_updates: [...ALLOWED_UPDATES] }, silent: true },
    sink: { concurrency: UPDATES_IN_PROGRESS },
  });
  handle.task()?.catch((err: unknown) => {
    const { msg, ...fields } = describePollingEnd(err);
    logger.fatal(fields, msg);
    deps.onFailure?.(err);
  });
  logger.info({ username: bot.botInfo.username }, "bot polling for updates");
  return {
    async stop() {
      if (handle.isRunning()) await handle.stop();
      await handle.task();
      await drain(bot);
    },
  };
}
