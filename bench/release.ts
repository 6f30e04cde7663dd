/**
 * The release: N paid orders wait in `pending`; the reseller sandbox delivers all of them at the
 * same moment (signed webhooks); the Telegram emulator enforces 30 messages/s overall and 1/s
 * per chat. Measures how close the final messages come to Telegram's ceiling, that none is lost
 * or doubled, that no 429 is provoked, and how long the card updates trail behind. A customer
 * walks the Stars flow ~2 s into the release, and the same walk is timed alone beforehand.
 */
import type { EmulatorCore } from "../sandbox/telegram/core.js";
import type { TelegramEmulator } from "../sandbox/telegram/index.js";
import { placePaidOrders } from "./delivery.js";
import { logTally, sleep } from "./lib.js";
import { nextUserId, type Stack, startStack } from "./stack.js";
import { type Walk, walkStarsFlow } from "./walk.js";

const LIMITS = { globalPerSecond: 30, perChatPerSecond: 1 };
const FINAL = /Order #\S+ delivered/;
const CARD_DELIVERED = /✅ Delivered\./;
/** When the walking customer joins, after the release started. */
export const WALKER_DELAY_MS = 2_000;

export interface ReleaseResult {
  orders: number;
  /** Release → the last customer's final message. */
  seconds: number;
  /** Release → the first final message (webhooks taken, orders read, first send). */
  firstFinalSeconds: number;
  idealSeconds: number;
  /** Ideal (N ÷ 30 s) divided by the actual time: 1 is Telegram's ceiling. */
  idealOverActual: number;
  /** 429s the emulator answered during the release (all chats). */
  telegram429: number;
  /**
   * Of those, replies into the walking customer's chat that were refused (a tap answered within a
   * second of the bot's last message there); the rest were the bot's own messages.
   */
  refusedWalkerSends: number;
  /** Replies into the chat of the customer walking alone that were refused (429). */
  refusedAloneSends: number;
  lost: number;
  sentTwice: number;
  /** The last final message → the last card edit to "Delivered." */
  cardTrailSeconds: number;
  /** Cards not edited to "Delivered." by the end of the wait. */
  cardsNotUpdated: number;
  /** Final messages sent per second over the release (sliding 1 s window), peak. */
  peakFinalsPerSecond: number;
  walkAlone?: Walk;
  walkDuring?: Walk;
  /** The bot's log lines at warn and error over the whole phase, and the most frequent. */
  log: { warnings: number; errors: number; top: string };
}

/** The emulator's state read in place: the public accessors copy every call on each read. */
function core(emulator: TelegramEmulator): EmulatorCore {
  const c = (emulator as unknown as { core?: EmulatorCore }).core;
  if (!c) throw new Error("the Telegram emulator does not expose its state (core)");
  return c;
}

/**
 * Replies (sendMessage, sendInvoice) into `chat` the emulator refused since `since`: every send
 * into the walking customer's chat but the final message, which is the outgoing queue's.
 */
function refusedSends(stack: Stack, chat: number, since: number): number {
  return core(stack.emulator).recorded.filter(
    (c) =>
      !c.ok &&
      c.at >= since &&
      Number(c.payload.chat_id) === chat &&
      (c.method === "sendInvoice" ||
        (c.method === "sendMessage" && !FINAL.test(String(c.payload.text ?? "")))),
  ).length;
}

async function walkAlone(stack: Stack, followMs: number): Promise<{ walk: Walk; refused: number }> {
  const id = nextUserId();
  const since = Date.now();
  const user = stack.emulator.user({ id, username: `walker_${id}`, languageCode: "en" });
  const walk = await walkStarsFlow(user, { patienceMs: 30_000, followMs });
  return { walk, refused: refusedSends(stack, id, since) };
}

export async function release(count: number, opts: { walker: boolean }): Promise<ReleaseResult> {
  const log = logTally();
  const stack = await startStack({ webhooks: true, pollIntervalSeconds: 3, onBotOutput: log.feed });
  try {
    // The walk alone, same limits, before any of the release's orders exist; it waits for its own
    // final message so that nothing of it is left for the release.
    let walkBefore: { walk: Walk; refused: number } | undefined;
    if (opts.walker) {
      stack.emulator.setRateLimits(LIMITS);
      walkBefore = await walkAlone(stack, 30_000);
      stack.emulator.setRateLimits(false);
    }
    const placed = await placePaidOrders(stack, count);
    const chats = new Set(placed.map((p) => p.userId));
    // Telegram's limits apply to the release itself; placing the orders is set-up, not measured.
    stack.emulator.setRateLimits(LIMITS);
    const recorded = core(stack.emulator).recorded;
    let scanned = recorded.length;
    const finals = new Map<number, number[]>(); // chat → times of its final messages
    let lastCardEdit = 0;
    const cardsDone = new Set<number>();
    const scan = () => {
      for (; scanned < recorded.length; scanned++) {
        const c = recorded[scanned]!;
        if (!c.ok) continue;
        const chat = Number(c.payload.chat_id);
        if (!chats.has(chat)) continue;
        const text = typeof c.payload.text === "string" ? c.payload.text : "";
        if (c.method === "sendMessage" && FINAL.test(text)) {
          finals.set(chat, [...(finals.get(chat) ?? []), c.at]);
        } else if (c.method === "editMessageText" && CARD_DELIVERED.test(text)) {
          cardsDone.add(chat);
          lastCardEdit = Math.max(lastCardEdit, c.at);
        }
      }
    };
    const limitedBefore = stack.emulator.stats().rateLimited;
    const ideal = count / LIMITS.globalPerSecond;
    const t0 = Date.now();
    stack.sandbox.pauseDelivery(false);
    stack.sandbox.deliverAllNow();

    let walkerId: number | undefined;
    const during = opts.walker
      ? sleep(WALKER_DELAY_MS).then(() => {
          const id = nextUserId();
          walkerId = id;
          const user = stack.emulator.user({ id, username: `walker_${id}`, languageCode: "en" });
          return walkStarsFlow(user, { patienceMs: 30_000, followMs: 60_000 + ideal * 3000 });
        })
      : Promise.resolve(undefined);

    // Every final message, then every card update, each within a bounded wait.
    const finalsBy = t0 + Math.max(120_000, ideal * 4000);
    while (finals.size < count && Date.now() < finalsBy) {
      await sleep(100);
      scan();
    }
    const cardsBy = Date.now() + Math.max(60_000, ideal * 3000);
    while (cardsDone.size < count && Date.now() < cardsBy) {
      await sleep(100);
      scan();
    }
    const walkDuring = await during;
    await sleep(2000); // anything sent twice would show up now
    scan();

    const firsts = [...finals.values()].map((times) => Math.min(...times));
    const last = Math.max(t0, ...firsts);
    let peak = 0;
    const sorted = firsts.sort((a, b) => a - b);
    for (let i = 0, j = 0; i < sorted.length; i++) {
      while (sorted[i]! - sorted[j]! >= 1000) j++;
      peak = Math.max(peak, i - j + 1);
    }
    const seconds = (last - t0) / 1000;
    const refusedWalkerSends = walkerId === undefined ? 0 : refusedSends(stack, walkerId, t0);
    return {
      orders: count,
      seconds,
      firstFinalSeconds: sorted.length ? (sorted[0]! - t0) / 1000 : Number.NaN,
      idealSeconds: ideal,
      idealOverActual: ideal / seconds,
      telegram429: stack.emulator.stats().rateLimited - limitedBefore,
      refusedWalkerSends,
      refusedAloneSends: walkBefore?.refused ?? 0,
      lost: count - finals.size,
      sentTwice: [...finals.values()].filter((t) => t.length > 1).length,
      cardTrailSeconds: lastCardEdit ? (lastCardEdit - last) / 1000 : Number.NaN,
      cardsNotUpdated: count - cardsDone.size,
      peakFinalsPerSecond: peak,
      ...(walkBefore ? { walkAlone: walkBefore.walk } : {}),
      ...(walkDuring ? { walkDuring } : {}),
      log: log.summary(),
    };
  } finally {
    await stack.close();
  }
}
