import type { Api } from "grammy";
import type { InlineKeyboardMarkup, MessageEntity } from "grammy/types";
import type { BroadcastContent } from "./types.js";

/** Buttons a broadcast may carry (one per row). */
export const MAX_BUTTONS = 8;
const BUTTON_LINE = /^(.+?)\s+-\s+(\S+)$/;

export type ContentResult =
  | { ok: true; content: BroadcastContent }
  | { ok: false; rule: "bc-rule-empty" | "bc-rule-button-url" | "bc-rule-buttons-many" | "bc-rule-label" };

/**
 * An operator's message as a broadcast: trailing lines `Label - https://…` become URL buttons and
 * leave the text (its formatting kept, cut to the remaining text). A line in the middle of the
 * text is left alone; a trailing one whose address is not http(s) is refused with its rule.
 */
export function contentFromMessage(msg: {
  text?: string;
  entities?: MessageEntity[];
  caption?: string;
  caption_entities?: MessageEntity[];
  photo?: { file_id: string }[];
}): ContentResult {
  const photo = msg.photo?.at(-1)?.file_id;
  const source = photo ? (msg.caption ?? "") : (msg.text ?? "");
  const lines = source.split("\n");
  const buttons: BroadcastContent["buttons"] = [];
  while (lines.length > 0) {
    const line = (lines.at(-1) ?? "").trim();
    if (line === "" && buttons.length > 0) {
      lines.pop();
      continue;
    }
    const m = BUTTON_LINE.exec(line);
    if (!m || !/^[a-z][a-z0-9+.-]*:\/\//i.test(m[2] ?? "")) break;
    const url = m[2] ?? "";
    if (!isHttpUrl(url)) return { ok: false, rule: "bc-rule-button-url" };
    const label = (m[1] ?? "").trim();
    if (label.length > 64) return { ok: false, rule: "bc-rule-label" };
    buttons.unshift({ label, url });
    lines.pop();
  }
  if (buttons.length > MAX_BUTTONS) return { ok: false, rule: "bc-rule-buttons-many" };
  const text = lines.join("\n").trimEnd();
  const entities = clip(photo ? msg.caption_entities : msg.entities, text.length);
  if (photo) {
    return {
      ok: true,
      content: {
        photo,
        buttons,
        ...(text ? { caption: text } : {}),
        ...(entities ? { captionEntities: entities } : {}),
      },
    };
  }
  if (text.trim() === "") return { ok: false, rule: "bc-rule-empty" };
  return { ok: true, content: { text, buttons, ...(entities ? { entities } : {}) } };
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** Entities within the first `length` characters (UTF-16 units, as Telegram counts), cut at the end. */
function clip(entities: MessageEntity[] | undefined, length: number): MessageEntity[] | undefined {
  const kept = (entities ?? [])
    .filter((e) => e.offset < length)
    .map((e) => ({ ...e, length: Math.min(e.length, length - e.offset) }));
  return kept.length > 0 ? kept : undefined;
}

export function contentKeyboard(content: BroadcastContent): InlineKeyboardMarkup | undefined {
  if (content.buttons.length === 0) return undefined;
  return { inline_keyboard: content.buttons.map((b) => [{ text: b.label, url: b.url }]) };
}

/** Sends the broadcast's message into one chat. */
export async function sendContent(api: Api, chatId: number, content: BroadcastContent): Promise<void> {
  const reply_markup = contentKeyboard(content);
  if (content.photo) {
    await api.sendPhoto(chatId, content.photo, {
      ...(content.caption ? { caption: content.caption } : {}),
      ...(content.captionEntities ? { caption_entities: content.captionEntities } : {}),
      ...(reply_markup ? { reply_markup } : {}),
    });
    return;
  }
  await api.sendMessage(chatId, content.text ?? "", {
    ...(content.entities ? { entities: content.entities } : {}),
    ...(reply_markup ? { reply_markup } : {}),
  });
}
