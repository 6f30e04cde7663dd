/** Validation of reply_markup as the Bot API does it, and helpers to read inline keyboards. */

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

export const badRequest = (detail: string) => new ApiError(400, `Bad Request: ${detail}`);

export interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  pay?: boolean;
  [key: string]: unknown;
}

const INLINE_ACTIONS = [
  "callback_data",
  "url",
  "web_app",
  "login_url",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "copy_text",
  "callback_game",
  "pay",
];

/** Fields that may arrive as JSON strings (form-encoded requests) are parsed; objects pass through. */
export function jsonField(value: unknown, what: string): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`can't parse ${what} JSON object`);
  }
}

function isRows(value: unknown): value is unknown[][] {
  return Array.isArray(value) && value.every((row) => Array.isArray(row));
}

function validateInlineButton(button: unknown): void {
  if (typeof button !== "object" || button === null) {
    throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  }
  const b = button as Record<string, unknown>;
  if (typeof b.text !== "string" || b.text.trim() === "") throw badRequest("BUTTON_TEXT_INVALID");
  const actions = INLINE_ACTIONS.filter((key) => b[key] !== undefined);
  if (actions.length === 0) {
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  if (b.callback_data !== undefined) {
    const size = typeof b.callback_data === "string" ? Buffer.byteLength(b.callback_data, "utf8") : 0;
    if (size < 1 || size > 64) throw badRequest("BUTTON_DATA_INVALID");
  }
  if (b.url !== undefined) {
    let valid = false;
    try {
      valid = typeof b.url === "string" && ["http:", "https:", "tg:"].includes(new URL(b.url).protocol);
    } catch {
      valid = false;
    }
    if (!valid) throw badRequest("BUTTON_URL_INVALID");
  }
}

/**
 * Checks a reply_markup the way Telegram does (callback_data 1–64 bytes, a known action on every inline
 * button, reply keyboards made of rows) and returns it parsed, or undefined when none was given.
 */
export function validateReplyMarkup(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  const markup = jsonField(raw, "reply keyboard markup");
  if (typeof markup !== "object" || markup === null || Array.isArray(markup)) {
    throw badRequest("can't parse reply keyboard markup JSON object");
  }
  const m = markup as Record<string, unknown>;
  if (m.inline_keyboard !== undefined) {
    if (!isRows(m.inline_keyboard)) {
      throw badRequest(
        'can\'t parse inline keyboard button: field "inline_keyboard" must be an Array of Arrays',
      );
    }
    for (const row of m.inline_keyboard) for (const button of row) validateInlineButton(button);
  } else if (m.keyboard !== undefined) {
    if (!isRows(m.keyboard)) throw badRequest('field "keyboard" must be an Array of Arrays');
    for (const row of m.keyboard) {
      for (const button of row) {
        const text = typeof button === "string" ? button : (button as { text?: unknown } | null)?.text;
        if (typeof text !== "string" || text === "")
          throw badRequest("can't parse keyboard button: text is empty");
      }
    }
  } else if (m.remove_keyboard !== true && m.force_reply !== true) {
    throw badRequest("can't parse reply keyboard markup JSON object");
  }
  return m;
}

/** The inline keyboard rows of a markup, or [] for none. */
export function inlineButtons(markup: unknown): InlineButton[] {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  return isRows(rows) ? (rows.flat() as InlineButton[]) : [];
}
