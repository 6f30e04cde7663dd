import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createI18n, LOCALES_DIR, supportedLocale, translator } from "../../src/bot/i18n.js";

const i18n = createI18n({ defaultLocale: "ru" });
const ru = translator(i18n, "ru");
const en = translator(i18n, "en");

/** Keys of one locale: locales/<locale>.ftl plus any locales/<locale>/*.ftl (all are merged). */
function keysOf(locale: string): string[] {
  const dir = join(LOCALES_DIR, locale);
  const files = [
    join(LOCALES_DIR, `${locale}.ftl`),
    ...(statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? sourceFiles(dir, ".ftl") : []),
  ];
  return files.flatMap((f) =>
    [...readFileSync(f, "utf8").matchAll(/^([a-z][a-z0-9_-]*) =/gm)].map((m) => m[1]!),
  );
}

function sourceFiles(dir: string, ext = ".ts"): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

describe("translations", () => {
  it("have the same keys in Russian and English", () => {
    expect(keysOf("ru").sort()).toEqual(keysOf("en").sort());
  });

  it("contain every key the bot's code names literally", () => {
    const keys = new Set(keysOf("en"));
    const used = new Set<string>();
    // The customer side (operator tools are checked by their own tests).
    for (const file of sourceFiles(join(LOCALES_DIR, "..", "src", "bot")).filter(
      (f) => !/operator/.test(f),
    )) {
      const src = readFileSync(file, "utf8");
      for (const m of src.matchAll(/\bt\(\s*"([a-z][a-z0-9_-]*)"/g)) used.add(m[1]!);
      for (const m of src.matchAll(/\brule: "([a-z-]+)"/g)) used.add(m[1]!);
      for (const m of src.matchAll(/"((?:quote|flow|cancel|payment)-[a-z-]+)"/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((k) => !keys.has(k))).toEqual([]);
  });

  it("have a description for every command in both languages", () => {
    for (const t of [ru, en]) {
      for (const c of [
        "start",
        "orders",
        "language",
        "cancel",
        "help",
        "paysupport",
        "wallet",
        "op-balance",
        "op-orders",
        "op-stats",
        "op-wallet",
      ]) {
        expect(t(`cmd-${c}.description`)).not.toMatch(/^\{/);
      }
    }
  });

  it("put Russian plural forms right: 1 звезда, 2 звезды, 5 звёзд, 21 звезда", () => {
    expect(ru("item-stars", { count: 1 })).toBe("⭐ 1 звезда Telegram");
    expect(ru("item-stars", { count: 2 })).toBe("⭐ 2 звезды Telegram");
    expect(ru("item-stars", { count: 5 })).toBe("⭐ 5 звёзд Telegram");
    expect(ru("item-stars", { count: 21 })).toBe("⭐ 21 звезда Telegram");
    expect(ru("item-stars", { count: 1000 }).replace(/\s/g, " ")).toBe("⭐ 1 000 звёзд Telegram");
    // The verb agrees too: 48 звёзд возвращено (not возвращены).
    expect(ru("refund-stars-done", { stars: 48 })).toBe("⭐ 48 звёзд возвращено.");
    expect(ru("refund-stars-done", { stars: 3 })).toBe("⭐ 3 звезды возвращены.");
    expect(ru("refund-stars-auto", { stars: 48 })).toBe("⭐ 48 звёзд будет возвращено автоматически.");
    expect(ru("premium-months", { months: 3 })).toBe("3 месяца");
    expect(ru("premium-months", { months: 12 })).toBe("12 месяцев");
  });

  it("put English plural forms right and group thousands", () => {
    expect(en("item-stars", { count: 1 })).toBe("⭐ 1 Telegram Star");
    expect(en("item-stars", { count: 1000 })).toBe("⭐ 1,000 Telegram Stars");
    expect(en("refund-stars-done", { stars: 1 })).toBe("⭐ Your 1 star was refunded.");
    expect(en("refund-stars-done", { stars: 3 })).toBe("⭐ Your 3 stars were refunded.");
  });

  it("has no invisible isolation marks around variables", () => {
    expect(en("card-title", { id: "abc" })).toBe("🧾 <b>Order #abc</b>");
  });

  it("maps Telegram language codes to a supported locale", () => {
    expect(supportedLocale("ru")).toBe("ru");
    expect(supportedLocale("en-US")).toBe("en");
    expect(supportedLocale("de")).toBeUndefined();
    expect(supportedLocale(undefined)).toBeUndefined();
  });
});
