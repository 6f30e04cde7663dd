/**
 * The offline demo as a person uses it: `npm run demo`, a browser on the printed address, 50 Stars bought
 * through the chat's buttons, then the operator's /orders and /balance, then orders paid on the YooKassa
 * and Crypto Pay emulators' payment pages, then the operators' group (a support conversation answered in
 * the customer's topic, a failed order's alert in its topic), then Ctrl-C.
 *
 * Drives Debian's Chromium (/usr/bin/chromium, installed by .ci/run when test/browser/.needs-chromium
 * exists) with playwright-core; skipped with a reason when the browser is missing. Screenshots go to
 * test/artifacts/ (not committed).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, chromiumPresent, launchChromium } from "../helpers/chromium.js";
import { freePort } from "../helpers/private-redis.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ARTIFACTS = join(ROOT, "test", "artifacts");
/** Operator commands come with src/bot/features/operator.ts once it is registered in the bot. */
const operatorToolsPresent =
  existsSync(join(ROOT, "src/bot/features/operator.ts")) &&
  /features\/operator\.js/.test(readFileSync(join(ROOT, "src/bot/index.ts"), "utf8"));

if (!chromiumPresent) {
  console.warn(`Browser test skipped: ${CHROMIUM} is missing (Debian: apt-get install chromium).`);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** What a person reads in an element (Playwright's textContent, never null). */
const text = async (locator: Locator) => (await locator.textContent()) ?? "";
const demoRedisDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("shopbot-demo-redis-"));

describe.skipIf(!chromiumPresent)("npm run demo in a browser", () => {
  let demo: ChildProcess;
  let output = "";
  let url = "";
  let browser: Browser;
  let page: Page;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  const dirsBefore = new Set(demoRedisDirs());

  /** Resolves with the first match of `pattern` in the demo's output. */
  const waitForOutput = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (!match) return false;
        clearInterval(timer);
        resolve(match);
        return true;
      };
      const timer = setInterval(() => {
        if (check()) return;
        if (demo.exitCode !== null || Date.now() > until) {
          clearInterval(timer);
          reject(new Error(`the demo never printed ${pattern}; its output:\n${output}`));
        }
      }, 100);
      const until = Date.now() + timeoutMs;
    });

  /** The newest bot message containing `text`, once it is there. */
  const botMessage = async (text: string | RegExp, timeout = 10_000) => {
    const row = page.locator(".row.bot", { hasText: text }).last();
    await row.waitFor({ timeout });
    return row;
  };
  const pressButton = async (name: string | RegExp) => {
    const button = page.getByRole("button", { name }).last();
    await button.waitFor({ timeout: 10_000 });
    await button.click();
  };
  /** Sends a command and returns the bot's next new message. */
  const replyTo = async (command: string) => {
    const bots = page.locator(".row.bot");
    const before = await bots.count();
    await page.locator("#input").fill(command);
    await page.locator("#input").press("Enter");
    const reply = bots.nth(before);
    await reply.waitFor({ timeout: 10_000 });
    return reply;
  };

  beforeAll(async () => {
    const port = await freePort();
    const env: Record<string, string | undefined> = {
      ...process.env,
      DEMO_PORT: String(port),
      LOG_LEVEL: "warn",
    };
    // The demo passes these to the bot; a developer's own values must not change what this test sees.
    for (const name of [
      "PRODUCTS",
      "PRICE_MARKUP_PERCENT",
      "STAR_PRICE_RUB",
      "DEFAULT_LOCALE",
      "REDIS_URL",
    ]) {
      delete env[name];
    }
    // Its own process group, so the test can press "Ctrl-C" the way a terminal does: SIGINT to the group.
    demo = spawn("npm", ["run", "demo"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    exited = new Promise((resolve) => demo.once("exit", (code, signal) => resolve({ code, signal })));
    demo.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    demo.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    url = (await waitForOutput(/^Open (http:\/\/\S+)/m, 120_000))[1]!;

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 760, height: 1100 }, locale: "en-US" });
    page = await context.newPage();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    if (demo?.pid && demo.exitCode === null && demo.signalCode === null) {
      process.kill(-demo.pid, "SIGKILL");
      await exited;
    }
  });

  it("prints one line per part and the page address", () => {
    expect(output).toMatch(/^ {2}redis +private redis-server .*\(pid \d+\)/m);
    expect(output).toMatch(/^ {2}reseller +sandbox at http:\/\/127\.0\.0\.1:\d+/m);
    expect(output).toMatch(/^ {2}yookassa +sandbox at http:\/\/127\.0\.0\.1:\d+: payment pages/m);
    expect(output).toMatch(/^ {2}cryptopay +sandbox at http:\/\/127\.0\.0\.1:\d+: invoice pages/m);
    expect(output).toMatch(/^ {2}telegram +Bot API emulator and web chat at http:\/\/127\.0\.0\.1:\d+/m);
    expect(output).toMatch(/^ {2}group +forum supergroup "Shop operators" \(id -\d+\) with @demo_operator/m);
    expect(output).toMatch(/^ {2}bot +node --import tsx src\/main\.ts \(pid \d+\)/m);
    expect(output).toMatch(/"Operators' group" shows Shop operators/);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it("sells 50 Stars through the chat's buttons and shows the delivered message", async () => {
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(url);
    await page.locator("#as-customer").click();
    await page.locator("#lang").selectOption("en");
    await page.locator("#status[data-state=online]").waitFor();

    await page.locator("#start").click();
    await pressButton(/Telegram Stars/);
    await botMessage("How many stars?");
    await pressButton(/^50 ⭐$/);
    await botMessage("Who gets it?");
    await pressButton(/To myself \(@demo_customer\)/);

    const card = await botMessage(/Order #\w+/);
    const cardId = await card.getAttribute("data-message-id");
    const orderId = /Order #(\w+)/.exec(await text(card))![1]!;
    expect(await text(card)).toContain("50 Telegram Stars");
    // Every rail of the demo's checkout on the card; Stars pays in the chat.
    for (const rail of [/Card or SBP — ₽/, /Crypto — ₽/, /From my wallet — ₽/]) {
      expect(await card.getByRole("button", { name: rail }).count()).toBe(1);
    }
    await pressButton(/Telegram Stars — \d+ ⭐/);

    const invoice = page.locator(".row.bot", { has: page.locator(".invoice") }).last();
    await invoice.waitFor();
    expect(await text(invoice.locator(".invoice-title"))).toContain(orderId);
    await invoice.locator("button.pay").click();

    const delivered = await botMessage(`Order #${orderId} delivered`, 30_000);
    expect(await text(delivered)).toContain("50 Telegram Stars");
    // Formatting arrives as HTML and is rendered: the headline is bold, the transaction id monospace.
    expect(await text(delivered.locator("b").first())).toContain("delivered");
    expect(await delivered.locator("code").count()).toBeGreaterThan(0);
    // The order card was edited in place, not sent again (card updates trail the final message).
    const cardNow = page.locator(`.row[data-message-id="${cardId}"]`);
    await expect.poll(() => text(cardNow), { timeout: 10_000 }).toMatch(/Delivered/);
    expect(await text(cardNow)).toMatch(/edited/);
    expect(await page.locator(".row.bot", { hasText: `Order #${orderId}` }).count()).toBe(3);
    expect(await text(page.locator(".row.service"))).toMatch(/You paid/);
    expect(await invoice.locator("button.pay").isDisabled()).toBe(true);
    expect(pageErrors).toEqual([]);

    await page.screenshot({ path: join(ARTIFACTS, "demo-chat.png"), fullPage: true });
  }, 90_000);

  it.skipIf(!operatorToolsPresent)(
    "shows the operator the order in /orders and the deposit in /balance",
    async () => {
      const customerCard = await botMessage(/Order #\w+ delivered/);
      const orderId = /Order #(\w+)/.exec(await text(customerCard))![1]!;

      await page.locator("#as-operator").click();
      await page.locator("#lang").selectOption("en");
      await page.locator("#status[data-state=online]").waitFor();
      await page.locator("#start").click();
      await botMessage("What would you like to buy?");

      const orders = await replyTo("/orders");
      expect(await text(orders)).toContain(orderId);
      expect(await text(orders)).toMatch(/Stars ×50 → @demo_customer/);
      expect(await text(orders)).toMatch(/delivered/);

      const balance = await replyTo("/balance");
      expect(await text(balance)).toMatch(/deposit|balance/i);
      expect(await text(balance)).toMatch(/\d[\d\s,.]*\s*(₽|RUB)|(₽|RUB)\s*\d/);

      await page.screenshot({ path: join(ARTIFACTS, "demo-operator.png"), fullPage: true });
    },
    60_000,
  );

  /** As the customer: 50 Stars to myself up to the order card; returns the order's short id. */
  const orderCard = async () => {
    await page.locator("#as-customer").click();
    await page.locator("#status[data-state=online]").waitFor();
    const before = await page.locator(".row.bot", { hasText: /Order #\w+/ }).count();
    // The START button shows only in an empty chat; after that /start is typed.
    await page.locator("#input").fill("/start");
    await page.locator("#input").press("Enter");
    await pressButton(/^⭐ Telegram Stars$/);
    await pressButton(/^50 ⭐$/);
    await pressButton(/To myself \(@demo_customer\)/);
    const card = page.locator(".row.bot", { hasText: /Order #\w+/ }).nth(before);
    await card.waitFor({ timeout: 10_000 });
    return /Order #(\w+)/.exec(await text(card))![1]!;
  };

  /** Presses the link message's URL button and returns the page it opened. */
  const openLink = async (message: Locator) => {
    const [opened] = await Promise.all([
      page.context().waitForEvent("page"),
      message.locator("button.url").first().click(),
    ]);
    await opened.waitForLoadState();
    return opened;
  };

  it("sells an order paid by card on the YooKassa emulator's page", async () => {
    const orderId = await orderCard();
    await pressButton(/Card or SBP — ₽/);
    const link = await botMessage(/by card or SBP on YooKassa/);
    const yookassa = await openLink(link);
    expect(yookassa.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\/[\w-]+$/);
    expect(await yookassa.locator("h1").textContent()).toContain("YooKassa sandbox");
    // After paying, the page sends the browser back to the bot (t.me, not reachable offline).
    await yookassa.route(/t\.me/, (route) => route.fulfill({ status: 200, body: "back to the bot" }));
    await yookassa.locator("#pay").click();
    const delivered = await botMessage(`Order #${orderId} delivered`, 30_000);
    expect(await text(delivered)).toContain("50 Telegram Stars");
    await yookassa.close();
  }, 60_000);

  it("sells an order paid in crypto on the Crypto Pay emulator's page", async () => {
    const orderId = await orderCard();
    await pressButton(/Crypto — ₽/);
    const link = await botMessage(/@CryptoBot/);
    const cryptopay = await openLink(link);
    expect(cryptopay.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/invoice\/\w+$/);
    expect(await text(cryptopay.locator("#status"))).toBe("active");
    await cryptopay.locator("#pay").click();
    await cryptopay.locator("#paid").waitFor();
    const delivered = await botMessage(`Order #${orderId} delivered`, 30_000);
    expect(await text(delivered)).toContain("50 Telegram Stars");
    await page.screenshot({ path: join(ARTIFACTS, "demo-providers.png"), fullPage: true });
    await cryptopay.close();
  }, 60_000);

  /** Shows the operators' group in the page, on the topic whose name matches. */
  const openTopic = async (name: string | RegExp) => {
    await page.locator("#as-group").click();
    await page.locator("#status[data-state=online]").waitFor();
    const topic = page.locator("#topics button", { hasText: name });
    await topic.waitFor({ timeout: 10_000 });
    await topic.click();
    await expect.poll(() => topic.getAttribute("aria-pressed")).toBe("true");
  };
  /** Types into the composer of the chat shown and sends. */
  const type = async (line: string) => {
    await page.locator("#input").fill(line);
    await page.locator("#input").press("Enter");
  };

  it("answers a customer's /support in the customer's topic of the operators' group", async () => {
    await page.locator("#as-customer").click();
    await page.locator("#status[data-state=online]").waitFor();
    await type("/support");
    await botMessage("Writing to support");
    await type("Where is my order?");
    await botMessage("Sent to support");

    await openTopic(/Anna @demo_customer · 1001/);
    expect(await text(page.locator(".title .name"))).toBe("Shop operators");
    const question = page.locator(".row", { hasText: "Where is my order?" }).last();
    await question.waitFor({ timeout: 10_000 });
    expect(await page.locator(".row.bot", { hasText: /(Support|Поддержка) · Anna/ }).count()).toBeGreaterThan(
      0,
    );
    // Reply to the customer's message, as an operator does in Telegram.
    await question.locator(".reply-action").click();
    expect(await text(page.locator("#replying"))).toContain("Where is my order?");
    await type("It ships today");
    const mine = page.locator(".row.user", { hasText: "It ships today" });
    await mine.waitFor();
    expect(await text(mine.locator(".quote"))).toContain("Where is my order?");
    // The group speaks DEFAULT_LOCALE (Russian unless set).
    await botMessage(/Sent to the customer|Отправлено клиенту/);
    expect(await page.locator("#replying").isHidden()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "demo-group-support.png"), fullPage: true });

    await page.locator("#as-customer").click();
    await page.locator("#status[data-state=online]").waitFor();
    const answer = await botMessage("Support: It ships today");
    expect(await text(answer)).toContain("It ships today");
  }, 60_000);

  it("shows a failed order's alert in its topic of the operators' group, with its buttons", async () => {
    await page.locator("#as-customer").click();
    await page.locator("#status[data-state=online]").waitFor();
    await type("/cancel");
    await type("/start");
    await pressButton(/^⭐ Telegram Stars$/);
    await pressButton(/^50 ⭐$/);
    await botMessage("Who gets it?");
    await type("@fail_demo");
    const card = await botMessage(/Order #\w+.*@fail_demo/s);
    const orderId = /Order #(\w+)/.exec(await text(card))![1]!;
    const invoices = page.locator(".row.bot", { has: page.locator(".invoice") });
    const before = await invoices.count();
    await pressButton(/Telegram Stars — \d+ ⭐/);
    const invoice = invoices.nth(before);
    await invoice.waitFor();
    await invoice.locator("button.pay").click();
    await botMessage(new RegExp(`Order #${orderId}.*(failed|not delivered)`, "is"), 30_000);

    await openTopic(/Failed deliveries|Несостоявшиеся доставки/);
    const alert = page
      .locator(".row.bot", { hasText: /Delivery failed|Доставка не удалась/ })
      .filter({ hasText: orderId });
    await alert.waitFor({ timeout: 10_000 });
    expect(await text(alert)).toMatch(/Recipient not found/);
    await alert.getByRole("button", { name: /Open order|Открыть заказ/ }).click();
    const opened = page.locator(".row.bot", { hasText: orderId });
    await expect.poll(() => opened.count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await page.screenshot({ path: join(ARTIFACTS, "demo-group-alert.png"), fullPage: true });
  }, 90_000);

  it("stops the bot, the emulators and Redis on Ctrl-C", async () => {
    const botPid = Number(/src\/main\.ts \(pid (\d+)\)/.exec(output)![1]);
    const redisPid = Number(/redis-server \S+ \(pid (\d+)\)/.exec(output)![1]);
    expect(isAlive(botPid)).toBe(true);
    expect(isAlive(redisPid)).toBe(true);

    process.kill(-demo.pid!, "SIGINT");
    // npm re-raises the signal on itself once the demo under it has exited cleanly.
    const { code, signal } = await exited;
    expect(code === 0 || signal === "SIGINT").toBe(true);
    expect(output).toContain("Demo stopped: the bot, the emulators and Redis are down");
    expect(isAlive(botPid)).toBe(false);
    expect(isAlive(redisPid)).toBe(false);
    expect(demoRedisDirs().filter((dir) => !dirsBefore.has(dir))).toEqual([]);
    const stillServing = await fetch(url).then(
      () => true,
      () => false,
    );
    expect(stillServing).toBe(false);
  }, 60_000);
});
