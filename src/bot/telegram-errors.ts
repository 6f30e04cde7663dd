import { GrammyError } from "grammy";

/**
 * What the Bot API's refusals mean for us. Telegram says it in the error's description
 * ("Bad Request: message is not modified: …"); these read it in one place.
 */

const NOT_MODIFIED = /message is not modified/i;
const CANNOT_EDIT = /message to edit not found|message can't be edited|message_id_invalid/i;
const UNREACHABLE = /chat not found|bot was blocked|user is deactivated|bot can't initiate|forbidden/i;
const ALREADY_REFUNDED = /CHARGE_ALREADY_REFUNDED/i;
const TOPIC_GONE = /message thread not found|TOPIC_DELETED|TOPIC_ID_INVALID/i;
const NOT_A_FORUM = /not a forum|CHAT_NOT_FORUM/i;
const REFUSED_TEXT =
  /can't parse entities|message is too long|text is too long|MESSAGE_TOO_LONG|text must be non-empty/i;

/**
 * Telegram's description of a failed call, else the error's message. A group that became a
 * supergroup has a new id, which Telegram gives beside its refusal: said here, so that the log
 * names the id to put in OPERATOR_CHAT_ID.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof GrammyError)) return err instanceof Error ? err.message : String(err);
  const movedTo = err.parameters?.migrate_to_chat_id;
  return movedTo === undefined ? err.description : `${err.description} (its new chat id: ${movedTo})`;
}

/** An edit that would leave the message as it is: the goal is already reached. */
export function isNotModified(err: unknown): boolean {
  return NOT_MODIFIED.test(describeError(err));
}

/** The message cannot be edited (gone, too old, not ours): send a new one instead. */
export function isCannotEdit(err: unknown): boolean {
  return CANNOT_EDIT.test(describeError(err));
}

/** The chat cannot be written to (never opened, blocked, deleted account). */
export function isUnreachable(err: unknown): boolean {
  return UNREACHABLE.test(describeError(err));
}

/** A Stars refund that was already made (what a repeat after a crash looks like). */
export function isAlreadyRefunded(err: unknown): boolean {
  return ALREADY_REFUNDED.test(describeError(err));
}

/** A forum topic that was deleted (sends into it fail): make a new one. */
export function isTopicGone(err: unknown): boolean {
  return TOPIC_GONE.test(describeError(err));
}

/** The group is not (or no longer) a forum: it has no topics. */
export function isNotForum(err: unknown): boolean {
  return NOT_A_FORUM.test(describeError(err));
}

/** Telegram refused the text itself (its HTML or its length): as plain text, cut to fit, it goes. */
export function isRefusedText(err: unknown): boolean {
  return REFUSED_TEXT.test(describeError(err));
}

/**
 * A call Telegram refused as a bad request (400): the same call gets the same answer, so it is not
 * worth repeating every few seconds. Retries, network errors and 5xx are not refusals.
 */
export function isRefused(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400;
}
