/**
 * A simulated customer buying 50 Telegram Stars, timing the bot's answer to each of their actions:
 *
 *   /start            → the main menu (with "⭐ Telegram Stars") is shown
 *   ⭐ Telegram Stars  → the amount question is shown and the tap answered (spinner stops)
 *   50 ⭐              → the recipient question is shown and the tap answered
 *   🙋 To myself       → the order card with its price and "💳 Pay" is shown and the tap answered
 *   💳 Pay             → the invoice is shown and the tap answered
 *   pays the invoice  → the pre-checkout query is answered (Telegram completes the payment)
 *
 * Nothing after the payment is the answer to an action (the card turning "paid" and the final
 * message are the bot's own messages, paced by its outgoing queue); they are timed separately.
 * The customer waits up to `patienceMs` for each answer and gives up on the purchase after that.
 */
import type { ChatMessage, ChatUser } from "../sandbox/telegram/index.js";

export const ACTIONS = ["/start", "⭐ Telegram Stars", "50 ⭐", "🙋 To myself", "💳 Pay", "pays the invoice"];
const STARS = "⭐ Telegram Stars";
const FIFTY = "50 ⭐";
const TO_MYSELF = /^🙋 To myself/;
const PAY = /^💳 Pay/;
const CARD_PAID = /Payment received|Being delivered|Delivered\./;
const CARD_DELIVERED = /✅ Delivered\./;
const FINAL = /Order #\S+ delivered/;

export interface WalkOptions {
  /** How long the customer waits for each answer before giving up. */
  patienceMs: number;
  /** After paying: wait up to this long for the card to say "delivered" and for the final message (0: don't). */
  followMs: number;
  /** Awaited before the quote is asked for (the "🙋 To myself" tap), once the recipient question is shown. */
  beforeQuote?: () => Promise<void>;
}

export interface Walk {
  /** Answer time of each action taken (ms), in ACTIONS order; Infinity when not answered within patience. */
  answers: number[];
  /** Updates the customer's actions sent the bot. */
  updates: number;
  /** The order card with a price was shown. */
  gotPrice: boolean;
  /** The payment went through (pre-checkout approved). */
  paid: boolean;
  /** Payment → the card says the payment was received (or later states), ms. */
  cardPaidMs?: number;
  /** Payment → the final "delivered" message, ms. */
  finalMs?: number;
  /** Payment → the card says "Delivered.", ms. */
  cardDeliveredMs?: number;
  /** Where the customer stopped, when they did not get through. */
  stoppedAt?: string;
  /** performance.now() when the customer's last action was answered or given up on. */
  doneAnsweringAt: number;
}

const now = () => performance.now();

function labelMatches(label: string | RegExp, text: string): boolean {
  return typeof label === "string" ? text.trim() === label : label.test(text);
}

function buttonLabels(m: ChatMessage): string[] {
  const kb = (m.replyMarkup as { inline_keyboard?: { text: string }[][] } | undefined)?.inline_keyboard;
  return (kb ?? []).flat().map((b) => b.text);
}

/** Resolves with the id of the newest bot message after `after` with this button; undefined after `timeoutMs`. */
function buttonShown(
  user: ChatUser,
  label: string | RegExp,
  after: number,
  timeoutMs: number,
): Promise<number | undefined> {
  let found: number | undefined;
  return user
    .waitFor((msgs) => {
      found = msgs
        .filter(
          (m) =>
            m.from === "bot" &&
            !m.deleted &&
            m.messageId > after &&
            buttonLabels(m).some((l) => labelMatches(label, l)),
        )
        .at(-1)?.messageId;
      return found !== undefined;
    }, timeoutMs)
    .then(
      () => found,
      () => undefined,
    );
}

function invoiceShown(user: ChatUser, after: number, timeoutMs: number): Promise<number | undefined> {
  let found: number | undefined;
  return user
    .waitFor((msgs) => {
      found = msgs.filter((m) => m.invoice && !m.deleted && m.messageId > after).at(-1)?.messageId;
      return found !== undefined;
    }, timeoutMs)
    .then(
      () => found,
      () => undefined,
    );
}

/** Milliseconds from `since` until `predicate` holds for the chat, or undefined after `timeoutMs`. */
function timeUntil(
  user: ChatUser,
  predicate: (msgs: ChatMessage[]) => boolean,
  since: number,
  timeoutMs: number,
): Promise<number | undefined> {
  return user.waitFor(predicate, timeoutMs).then(
    () => now() - since,
    () => undefined,
  );
}

export async function walkStarsFlow(user: ChatUser, opts: WalkOptions): Promise<Walk> {
  const walk: Walk = { answers: [], updates: 0, gotPrice: false, paid: false, doneAnsweringAt: 0 };
  const stop = (i: number): Walk => ({ ...walk, stoppedAt: ACTIONS[i], doneAnsweringAt: now() });
  const mark = user.messages().at(-1)?.messageId ?? 0;
  const patience = opts.patienceMs;

  // /start → the menu.
  let t = now();
  await user.sendText("/start");
  walk.updates += 1;
  let shown = await buttonShown(user, STARS, mark, patience);
  walk.answers.push(shown === undefined ? Number.POSITIVE_INFINITY : now() - t);
  if (shown === undefined) return stop(0);

  // Taps: each answered by the next screen and the end of the spinner.
  const taps: [string | RegExp, (after: number) => Promise<number | undefined>][] = [
    [STARS, (after) => buttonShown(user, FIFTY, after, patience)],
    [FIFTY, (after) => buttonShown(user, TO_MYSELF, after, patience)],
    [TO_MYSELF, (after) => buttonShown(user, PAY, after, patience)],
    [PAY, (after) => invoiceShown(user, after, patience)],
  ];
  let cardId = 0;
  for (const [i, [label, next]] of taps.entries()) {
    const messageId: number = shown!;
    if (label === TO_MYSELF && opts.beforeQuote) await opts.beforeQuote();
    t = now();
    const screen = next(mark).then((id) => ({ id, at: now() }));
    const ack: Promise<number> = user.pressButton(label, { messageId, timeoutMs: 1000 }).then(
      () => now(),
      () => Number.POSITIVE_INFINITY, // the tap was not answered within the emulator's 10 s
    );
    walk.updates += 1;
    const [s, ackAt]: [{ id: number | undefined; at: number }, number] = await Promise.all([screen, ack]);
    shown = s.id;
    walk.answers.push(s.id === undefined ? Number.POSITIVE_INFINITY : Math.max(s.at, ackAt) - t);
    if (s.id === undefined) return stop(i + 1);
    if (label === TO_MYSELF) {
      walk.gotPrice = true;
      cardId = s.id;
    }
  }

  // Pays: the pre-checkout query answered; then Telegram sends successful_payment.
  t = now();
  const paid = await user.payInvoice({ messageId: shown! });
  walk.updates += paid.ok ? 2 : 1;
  walk.answers.push(paid.ok ? now() - t : Number.POSITIVE_INFINITY);
  if (!paid.ok) return stop(5);
  walk.paid = true;
  const paidAt = now();
  walk.doneAnsweringAt = paidAt;
  if (opts.followMs <= 0) return walk;

  const card = (re: RegExp) => (msgs: ChatMessage[]) =>
    msgs.some((m) => m.messageId === cardId && m.text !== undefined && re.test(m.text));
  const [cardPaidMs, finalMs, cardDeliveredMs] = await Promise.all([
    timeUntil(user, card(CARD_PAID), paidAt, opts.followMs),
    timeUntil(
      user,
      (msgs) => msgs.some((m) => m.from === "bot" && m.text !== undefined && FINAL.test(m.text)),
      paidAt,
      opts.followMs,
    ),
    timeUntil(user, card(CARD_DELIVERED), paidAt, opts.followMs),
  ]);
  return {
    ...walk,
    ...(cardPaidMs !== undefined ? { cardPaidMs } : {}),
    ...(finalMs !== undefined ? { finalMs } : {}),
    ...(cardDeliveredMs !== undefined ? { cardDeliveredMs } : {}),
  };
}
