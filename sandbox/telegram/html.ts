/**
 * Telegram's `parse_mode: "HTML"` rules, close to what the Bot API server (tdlib's parse_html) accepts:
 * only its own tags, balanced, `&lt; &gt; &amp; &quot;` plus numeric entities decoded (an unknown `&name;`
 * stays literal, as on Telegram), everything else rejected with "can't parse entities: ...".
 */

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export type HtmlParseResult =
  | { ok: true; text: string; entities: MessageEntity[] }
  | { ok: false; error: string };

const SIMPLE_TAGS: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
};
const SUPPORTED = new Set([...Object.keys(SIMPLE_TAGS), "a", "span", "tg-emoji"]);
const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

interface OpenTag {
  name: string;
  offset: number;
  entity: Omit<MessageEntity, "offset" | "length"> | null;
}

function byteOffset(source: string, index: number): number {
  return Buffer.byteLength(source.slice(0, index), "utf8");
}

/** Decodes the entity starting at `source[i] === "&"`, or returns null when it is not one Telegram knows. */
function decodeEntity(source: string, i: number): { char: string; end: number } | null {
  const match = /^&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/.exec(source.slice(i, i + 12));
  if (!match) return null;
  const name = match[1]!;
  let char: string | undefined;
  if (name.startsWith("#x") || name.startsWith("#")) {
    const code = name.startsWith("#x")
      ? Number.parseInt(name.slice(2), 16)
      : Number.parseInt(name.slice(1), 10);
    if (code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) char = String.fromCodePoint(code);
  } else {
    char = NAMED_ENTITIES[name];
  }
  return char === undefined ? null : { char, end: i + match[0].length };
}

function parseAttributes(
  source: string,
  start: number,
  tag: string,
  tagOffset: number,
): { attrs: Record<string, string>; end: number } | { error: string } {
  const attrs: Record<string, string> = {};
  let i = start;
  while (true) {
    while (i < source.length && /\s/.test(source[i]!)) i++;
    if (i >= source.length)
      return { error: `Unclosed start tag at byte offset ${byteOffset(source, tagOffset)}` };
    if (source[i] === ">") return { attrs, end: i + 1 };
    const nameStart = i;
    while (i < source.length && /[a-zA-Z0-9_-]/.test(source[i]!)) i++;
    const name = source.slice(nameStart, i).toLowerCase();
    if (name === "") {
      return { error: `Empty attribute name in the tag "${tag}" at byte offset ${byteOffset(source, i)}` };
    }
    while (i < source.length && /\s/.test(source[i]!)) i++;
    if (source[i] !== "=") {
      // Valueless attributes such as <blockquote expandable> are allowed.
      attrs[name] = "";
      continue;
    }
    i++;
    while (i < source.length && /\s/.test(source[i]!)) i++;
    if (i >= source.length)
      return { error: `Unclosed start tag at byte offset ${byteOffset(source, tagOffset)}` };
    let raw: string;
    const quote = source[i];
    if (quote === '"' || quote === "'") {
      const close = source.indexOf(quote, i + 1);
      if (close < 0) return { error: `Unclosed start tag at byte offset ${byteOffset(source, tagOffset)}` };
      raw = source.slice(i + 1, close);
      i = close + 1;
    } else {
      const valueStart = i;
      while (i < source.length && !/[\s>]/.test(source[i]!)) i++;
      raw = source.slice(valueStart, i);
    }
    attrs[name] = decodeText(raw);
  }
}

function decodeText(raw: string): string {
  let out = "";
  for (let i = 0; i < raw.length; ) {
    if (raw[i] === "&") {
      const decoded = decodeEntity(raw, i);
      if (decoded) {
        out += decoded.char;
        i = decoded.end;
        continue;
      }
    }
    out += raw[i];
    i++;
  }
  return out;
}

/** Parses a Telegram HTML text into the plain text a person sees and its entities (UTF-16 offsets). */
export function parseTelegramHtml(source: string): HtmlParseResult {
  const fail = (detail: string): HtmlParseResult => ({ ok: false, error: `can't parse entities: ${detail}` });
  const stack: OpenTag[] = [];
  const entities: MessageEntity[] = [];
  let text = "";
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "&") {
      const decoded = decodeEntity(source, i);
      if (decoded) {
        text += decoded.char;
        i = decoded.end;
      } else {
        text += ch;
        i++;
      }
      continue;
    }
    if (ch !== "<") {
      text += ch;
      i++;
      continue;
    }
    const tagOffset = i;
    if (i + 1 >= source.length)
      return fail(`Unclosed start tag at byte offset ${byteOffset(source, tagOffset)}`);
    if (source[i + 1] === "/") {
      const close = source.indexOf(">", i + 2);
      if (close < 0) return fail(`Unclosed end tag at byte offset ${byteOffset(source, tagOffset)}`);
      const name = source
        .slice(i + 2, close)
        .trim()
        .toLowerCase();
      const open = stack.pop();
      if (!open) return fail(`Unexpected end tag at byte offset ${byteOffset(source, tagOffset)}`);
      if (open.name !== name) {
        return fail(
          `Unmatched end tag at byte offset ${byteOffset(source, tagOffset)}, expected "</${open.name}>", found "</${name}>"`,
        );
      }
      if (open.entity && text.length > open.offset) {
        entities.push({ ...open.entity, offset: open.offset, length: text.length - open.offset });
      }
      i = close + 1;
      continue;
    }
    let j = i + 1;
    while (j < source.length && /[a-zA-Z0-9-]/.test(source[j]!)) j++;
    const name = source.slice(i + 1, j).toLowerCase();
    if (j >= source.length) return fail(`Unclosed start tag at byte offset ${byteOffset(source, tagOffset)}`);
    if (name === "" || !SUPPORTED.has(name)) {
      return fail(`Unsupported start tag "${name}" at byte offset ${byteOffset(source, tagOffset)}`);
    }
    if (source[j] !== ">" && !/\s/.test(source[j]!)) {
      return fail(`Unexpected end of name token at byte offset ${byteOffset(source, j)}`);
    }
    const parsed = parseAttributes(source, j, name, tagOffset);
    if ("error" in parsed) return fail(parsed.error);
    const { attrs } = parsed;
    let entity: OpenTag["entity"];
    if (name === "a") {
      const href = attrs.href ?? "";
      entity = href ? { type: "text_link", url: href } : null;
    } else if (name === "span") {
      if (attrs.class !== "tg-spoiler") return fail('Tag "span" must have class "tg-spoiler"');
      entity = { type: "spoiler" };
    } else if (name === "tg-emoji") {
      if (!attrs["emoji-id"]) return fail('Tag "tg-emoji" must have attribute "emoji-id"');
      entity = { type: "custom_emoji", custom_emoji_id: attrs["emoji-id"] };
    } else if (name === "blockquote") {
      entity = { type: "expandable" in attrs ? "expandable_blockquote" : "blockquote" };
    } else if (name === "code" && stack.at(-1)?.name === "pre" && attrs.class?.startsWith("language-")) {
      // <pre><code class="language-x"> gives the enclosing pre its language.
      const pre = stack.at(-1)!;
      if (pre.entity) pre.entity.language = attrs.class.slice("language-".length);
      entity = null;
    } else {
      entity = { type: SIMPLE_TAGS[name]! };
    }
    stack.push({ name, offset: text.length, entity });
    i = parsed.end;
  }
  const unclosed = stack.pop();
  if (unclosed) return fail(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { ok: true, text, entities };
}

/** The plain text of a Telegram HTML string, or the input unchanged when it does not parse. */
export function htmlToPlainText(source: string): string {
  const parsed = parseTelegramHtml(source);
  return parsed.ok ? parsed.text : source;
}
