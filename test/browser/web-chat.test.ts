/**
 * The emulator's web chat page in Chromium against a bare emulator and a tiny grammY bot: formatting is
 * rendered from Telegram's tag whitelist, nothing the bot sends can run script, and edits replace the
 * message in place. Skipped when /usr/bin/chromium is missing (see demo.test.ts).
 */
import { Bot, InlineKeyboard } from "grammy";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelegramEmulator, type TelegramEmulator } from "../../sandbox/telegram/index.js";
import { chromiumPresent, launchChromium } from "../helpers/chromium.js";
import { startPolling, TOKEN } from "../sandbox/telegram/harness.js";

const TRICKY_HTML = [
  "<b>bold</b> <i>italic</i> <u>under</u> <s>struck</s>",
  '<a href="javascript:window.pwned=1">js link</a> <a href="https://example.com/x">web link</a>',
  "<tg-spoiler>secret</tg-spoiler> &lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;",
  '<pre><code class="language-js">let x = 1;</code></pre><blockquote>quoted</blockquote>',
].join("\n");

function createBot(apiRoot: string): Bot {
  const bot = new Bot(TOKEN, { client: { apiRoot } });
  bot.command("start", async (ctx) => {
    await ctx.reply(TRICKY_HTML, {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("Edit me", "edit").url("Docs", "https://example.com/docs"),
    });
    await ctx.reply("plain bold link", {
      entities: [
        { type: "bold", offset: 6, length: 4 },
        { type: "text_link", offset: 11, length: 4, url: "javascript:window.pwned=3" },
      ],
    });
    await ctx.reply("Send /help for help, <code>/notalink</code>.", { parse_mode: "HTML" });
  });
  bot.command("help", (ctx) => ctx.reply("Help is here"));
  bot.callbackQuery("edit", async (ctx) => {
    await ctx.answerCallbackQuery({ text: "Editing" });
    await ctx.editMessageText("<b>edited</b> text", { parse_mode: "HTML" });
  });
  return bot;
}

describe.skipIf(!chromiumPresent)("the web chat page in a browser", () => {
  let emulator: TelegramEmulator;
  let stopBot: () => Promise<void>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    emulator = await startTelegramEmulator({ token: TOKEN });
    stopBot = await startPolling(createBot(emulator.apiRoot));
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopBot?.();
    await emulator?.close();
  });

  it("renders the bot's formatting from a whitelist and never runs what the bot sent", async () => {
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${emulator.apiRoot}/?as=customer&lang=en`);
    await page.locator("#start").click();
    const rich = page.locator(".row.bot", { hasText: "bold italic" });
    await rich.waitFor();

    for (const tag of ["b", "i", "u", "s", "pre", "code", "blockquote", ".spoiler"]) {
      expect(await rich.locator(tag).count(), tag).toBeGreaterThan(0);
    }
    expect(await rich.locator("a").count()).toBe(2);
    expect(await rich.locator("a[href]").count()).toBe(1);
    expect(await rich.locator("a[href]").getAttribute("href")).toBe("https://example.com/x");
    expect(await rich.locator("img").count()).toBe(0);
    expect(await rich.textContent()).toContain('<img src=x onerror="window.pwned=2">');

    const plain = page.locator(".row.bot", { hasText: "plain bold link" });
    await plain.waitFor();
    expect(await plain.locator("b").textContent()).toBe("bold");
    expect(await plain.locator("a[href]").count()).toBe(0);

    expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it("presses an inline button, shows the callback answer and replaces the message in place", async () => {
    const rich = page.locator(".row.bot", { hasText: "bold italic" });
    const id = await rich.getAttribute("data-message-id");
    await rich.getByRole("button", { name: "Edit me" }).click();
    await page.locator("#toast", { hasText: "Editing" }).waitFor();
    const edited = page.locator(`.row[data-message-id="${id}"]`);
    await edited.locator("b", { hasText: "edited" }).waitFor();
    expect(await edited.textContent()).toMatch(/edited text/);
    expect(await edited.locator("button").count()).toBe(0);
    expect(await page.locator(".row.bot").count()).toBe(3);
  });

  it("turns /commands in bot text into links that send them, except inside code", async () => {
    await page.locator(".row.bot a.command", { hasText: "/help" }).first().click();
    await page.locator(".row.bot", { hasText: "Help is here" }).waitFor();
    expect(await page.locator(".row.user", { hasText: "/help" }).count()).toBe(1);
    expect(await page.locator("a.command", { hasText: "/notalink" }).count()).toBe(0);
  });
});
