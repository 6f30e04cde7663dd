import { describe, expect, it } from "vitest";
import { parseTelegramHtml } from "../../../sandbox/telegram/html.js";

function error(source: string): string {
  const parsed = parseTelegramHtml(source);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(source)} to be rejected`);
  return parsed.error;
}

describe("Telegram HTML parsing", () => {
  it("strips Telegram's tags, decodes its entities and reports entities in UTF-16 offsets", () => {
    const parsed = parseTelegramHtml(
      'Hi <b>Анна</b> &lt;3 &amp; <a href="https://example.com/?a=1&amp;b=2">link</a>',
    );
    expect(parsed).toEqual({
      ok: true,
      text: "Hi Анна <3 & link",
      entities: [
        { type: "bold", offset: 3, length: 4 },
        { type: "text_link", offset: 13, length: 4, url: "https://example.com/?a=1&b=2" },
      ],
    });
  });

  it("accepts every tag Telegram supports", () => {
    const source =
      "<b>a</b><strong>b</strong><i>c</i><em>d</em><u>e</u><ins>f</ins><s>g</s><strike>h</strike><del>i</del>" +
      '<span class="tg-spoiler">j</span><tg-spoiler>k</tg-spoiler><code>l</code><pre><code class="language-ts">m</code></pre>' +
      '<blockquote expandable>n</blockquote><tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>&#65;&#x42;';
    const parsed = parseTelegramHtml(source);
    expect(parsed.ok && parsed.text).toBe("abcdefghijklmn👍AB");
    expect(parsed.ok && parsed.entities.find((e) => e.type === "pre")).toEqual({
      type: "pre",
      offset: 12,
      length: 1,
      language: "ts",
    });
  });

  it("keeps an unknown named entity literally, as Telegram does", () => {
    expect(parseTelegramHtml("Tom &nbsp; Jerry & co")).toMatchObject({
      ok: true,
      text: "Tom &nbsp; Jerry & co",
    });
  });

  it("rejects unsupported tags, unbalanced tags and a bare less-than sign", () => {
    expect(error("line<br>break")).toBe('can\'t parse entities: Unsupported start tag "br" at byte offset 4');
    expect(error("<b>bold")).toBe(
      "can't parse entities: Can't find end tag corresponding to start tag \"b\"",
    );
    expect(error("<b><i>x</b></i>")).toMatch(
      /Unmatched end tag at byte offset 7, expected "<\/i>", found "<\/b>"/,
    );
    expect(error("x</b>")).toMatch(/Unexpected end tag/);
    expect(error("1 < 2")).toMatch(/Unsupported start tag ""/);
    expect(error('<span class="red">x</span>')).toMatch(/must have class "tg-spoiler"/);
    expect(error("<a href='x'")).toMatch(/Unclosed start tag/);
  });

  it("counts byte offsets in UTF-8 like the Bot API", () => {
    expect(error("Привет <p>")).toBe('can\'t parse entities: Unsupported start tag "p" at byte offset 13');
  });
});
