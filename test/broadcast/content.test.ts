import { describe, expect, it } from "vitest";
import { describeAudience } from "../../src/bot/format/broadcast.js";
import { createI18n, translator } from "../../src/bot/i18n.js";
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

describe("a broadcast's audience, as the operator reads it", () => {
  const i18n = createI18n({ defaultLocale: "ru" });
  it("names a product as the shop's menu does, not by its internal kind", () => {
    const en = describeAudience({ kind: "product", product: "neural", days: 90 }, translator(i18n, "en"));
    const ru = describeAudience({ kind: "product", product: "gift", days: 30 }, translator(i18n, "ru"));
    expect(en).toBe("Bought 🤖 AI services (90 days)");
    expect(ru).toContain("🎁 Подарки");
    expect(ru).not.toContain("gift");
  });
});
