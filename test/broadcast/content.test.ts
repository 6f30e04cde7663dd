import { describe, expect, it } from "vitest";
import { contentFromMessage } from "../../src/broadcast/content.js";

describe("a broadcast's message from the operator's", () => {
  it("turns trailing `Label - URL` lines into buttons and keeps the formatting of the rest", () => {
    const text =
      "Big sale today\nOnly for you\n\nShop - https://example.com/shop\nNews - http://example.com/n";
    const r = contentFromMessage({
      text,
      entities: [
        { type: "bold", offset: 0, length: 3 },
        // Runs into the button lines: cut at the end of the text.
        { type: "italic", offset: 15, length: 40 },
      ],
    });
    expect(r).toEqual({
      ok: true,
      content: {
        text: "Big sale today\nOnly for you",
        entities: [
          { type: "bold", offset: 0, length: 3 },
          { type: "italic", offset: 15, length: 12 },
        ],
        buttons: [
          { label: "Shop", url: "https://example.com/shop" },
          { label: "News", url: "http://example.com/n" },
        ],
      },
    });
  });

  it("keeps a photo with its caption and buttons", () => {
    const r = contentFromMessage({
      photo: [{ file_id: "small" }, { file_id: "large" }],
      caption: "New gifts\nOpen - https://example.com",
    });
    expect(r).toEqual({
      ok: true,
      content: {
        photo: "large",
        caption: "New gifts",
        buttons: [{ label: "Open", url: "https://example.com" }],
      },
    });
  });

  it("refuses a button to anything but http(s), and a message with only buttons", () => {
    expect(contentFromMessage({ text: "Hi\nPay - javascript://alert(1)" })).toEqual({
      ok: false,
      rule: "bc-rule-button-url",
    });
    expect(contentFromMessage({ text: "Shop - https://example.com" })).toEqual({
      ok: false,
      rule: "bc-rule-empty",
    });
    const many = Array.from({ length: 9 }, (_, i) => `B${i} - https://example.com/${i}`).join("\n");
    expect(contentFromMessage({ text: `Hi\n${many}` })).toEqual({ ok: false, rule: "bc-rule-buttons-many" });
  });

  it("leaves a dash in the middle of the text alone", () => {
    const r = contentFromMessage({ text: "Docs - https://example.com/docs\nRead them today" });
    expect(r).toEqual({
      ok: true,
      content: { text: "Docs - https://example.com/docs\nRead them today", buttons: [] },
    });
  });
});
