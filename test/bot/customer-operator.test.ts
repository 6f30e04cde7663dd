import { afterEach, describe, expect, it } from "vitest";
import { BAN_CACHE_MS, BanList } from "../../src/customers/bans.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import {
  ALICE,
  BORIS,
  callbackUpdate,
  preCheckoutUpdate,
  type TestUser,
  textUpdate,
} from "./helpers/updates.js";

/**
 * An operator's /customer on a bot built by createBot (real Redis, recording Bot API): lookups by
 * id and @username, notes, and ban / unban with what the banned customer sees.
 */

const OPERATOR: TestUser = { id: 7001, first_name: "Olga", username: "olga_ops", language_code: "en" };

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness() {
  h = await startBotHarness({ CHECKOUT: "stars,wallet", DEFAULT_LOCALE: "en" }, undefined, { wallet: true });
  return h;
}

/** What one update made the bot do. */
async function callsOf(hh: BotHarness, update: Parameters<BotHarness["send"]>[0]) {
  hh.tg.reset();
  await hh.send(update);
  return [...hh.tg.calls];
}

describe("/customer", () => {
  it("finds a customer by id and by @username (any case), and not by a name they left", async () => {
    const hh = await harness();
    await hh.send(textUpdate(ALICE, "/start"));
    await hh.orders.quote({
      orderId: "3f1c2b9e-8a7d-4c6b-9e5f-1a2b3c4d5e6f",
      item: { kind: "stars", product: "stars", quantity: 50, recipient: "alice_buyer" },
      customer: { userId: ALICE.id, chatId: ALICE.id, username: ALICE.username, locale: "en" },
    });
    await hh.wallet!.credit(ALICE.id, {
      amountKopecks: 12_300,
      reason: "topup",
      ref: "topup:t1",
      paymentRef: "t1",
    });

    await callsOf(hh, textUpdate(OPERATOR, `/customer ${ALICE.id}`));
    const byId = hh.tg.lastText();
    expect(byId).toContain(`id <code>${ALICE.id}</code> · @alice_buyer · Alice`);
    expect(byId).toContain("Wallet: <b>₽123</b>");
    expect(byId).toContain("Orders</b> (1 in all");
    expect(hh.tg.lastButtons().map((b) => b.data)).toEqual(
      expect.arrayContaining([
        "op:o:3f1c2b9e-8a7d-4c6b-9e5f-1a2b3c4d5e6f",
        `oc:n:${ALICE.id}`,
        `oc:b:${ALICE.id}`,
        `ow:p:${ALICE.id}:0`,
      ]),
    );

    await callsOf(hh, textUpdate(OPERATOR, "/customer @Alice_Buyer"));
    expect(hh.tg.lastText()).toBe(byId);

    // Alice renames herself: the old name no longer finds her, the new one does.
    await hh.send(textUpdate({ ...ALICE, username: "alice_renamed" }, "/help"));
    await callsOf(hh, textUpdate(OPERATOR, "/customer @alice_buyer"));
    expect(hh.tg.lastText()).toContain("No customer with the username @alice_buyer");
    await callsOf(hh, textUpdate(OPERATOR, "/customer alice_renamed"));
    expect(hh.tg.lastText()).toContain(`id <code>${ALICE.id}</code> · @alice_renamed`);
  });

  it("answers a bad argument with the usage, and is not a customer's command", async () => {
    const hh = await harness();
    for (const arg of ["", "@ab", "12ab", "-5", "@bad name"]) {
      await callsOf(hh, textUpdate(OPERATOR, `/customer ${arg}`.trim()));
      expect(hh.tg.lastText()).toContain("Send <code>/customer</code> and the customer's Telegram user id");
    }
    await callsOf(hh, textUpdate(ALICE, `/customer ${BORIS.id}`));
    expect(hh.tg.lastText()).not.toContain("Customer</b>");
    const pressed = await callsOf(hh, callbackUpdate(ALICE, `oc:b:${BORIS.id}`));
    expect(pressed.map((c) => c.method)).toEqual(["answerCallbackQuery"]);
    expect(await new BanList(hh.redis, hh.config.redisPrefix).record(BORIS.id)).toBeNull();
  });

  it("adds a note of at most 500 characters, listed with who and when", async () => {
    const hh = await harness();
    await callsOf(hh, callbackUpdate(OPERATOR, `oc:n:${BORIS.id}`));
    expect(hh.tg.lastText()).toContain(`Send the note about customer id <code>${BORIS.id}</code>`);
    await callsOf(hh, textUpdate(OPERATOR, "x".repeat(501)));
    expect(hh.tg.lastText()).toContain("A note is 1 to 500 characters; this one has 501.");
    await callsOf(hh, textUpdate(OPERATOR, "Asked for a refund by <email>"));
    const card = hh.tg.lastText();
    expect(card).toContain("Note saved.");
    expect(card).toContain("Notes</b> (1; the latest)");
    expect(card).toMatch(
      /• \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, id <code>7001<\/code>: Asked for a refund by &lt;email&gt;/,
    );
    // The question is answered: the next text is no note.
    await callsOf(hh, textUpdate(OPERATOR, "hello"));
    await callsOf(hh, textUpdate(OPERATOR, `/customer ${BORIS.id}`));
    expect(hh.tg.lastText()).toContain("Notes</b> (1; the latest)");
  });
});

describe("banning", () => {
  it("tells a banned customer once, then ignores them; unban lets them back; operators cannot be banned", async () => {
    const hh = await harness();
    await callsOf(hh, callbackUpdate(OPERATOR, `oc:b:${ALICE.id}`));
    expect(hh.tg.of("answerCallbackQuery")[0]?.payload.text).toContain("Banned.");
    expect(hh.tg.lastText()).toContain("Banned</b> by id <code>7001</code>");
    expect(hh.tg.lastButtons().map((b) => b.data)).toContain(`oc:u:${ALICE.id}`);

    const first = await callsOf(hh, textUpdate(ALICE, "/start"));
    expect(first.map((c) => c.method)).toEqual(["sendMessage"]);
    expect(hh.tg.lastText()).toBe("This shop no longer serves you.");
    expect((await callsOf(hh, textUpdate(ALICE, "/start"))).length).toBe(0);
    expect((await callsOf(hh, textUpdate(ALICE, "hello"))).length).toBe(0);
    const tap = await callsOf(hh, callbackUpdate(ALICE, "m:stars"));
    expect(tap.map((c) => c.method)).toEqual(["answerCallbackQuery"]);
    const pay = await callsOf(hh, preCheckoutUpdate(ALICE, "order-1", "XTR", 10));
    expect(pay.map((c) => [c.method, c.payload.ok])).toEqual([["answerPreCheckoutQuery", false]]);

    // Another process (a restart) reads the ban from Redis and does not tell again.
    hh.restart();
    expect((await callsOf(hh, textUpdate(ALICE, "/start"))).length).toBe(0);
    // Others are served as before.
    await callsOf(hh, textUpdate(BORIS, "/start"));
    expect(hh.tg.lastText()).toContain("Что хотите купить?");

    await callsOf(hh, callbackUpdate(OPERATOR, `oc:u:${ALICE.id}`));
    expect(hh.tg.of("answerCallbackQuery")[0]?.payload.text).toBe("Unbanned.");
    await callsOf(hh, textUpdate(ALICE, "/start"));
    expect(hh.tg.lastText()).toContain("What would you like to buy?");

    await callsOf(hh, callbackUpdate(OPERATOR, `oc:b:${OPERATOR.id}`));
    expect(hh.tg.of("answerCallbackQuery")[0]?.payload).toMatchObject({
      text: "Operators cannot be banned.",
    });
    await callsOf(hh, textUpdate(OPERATOR, "/start"));
    expect(hh.tg.lastText()).toContain("What would you like to buy?");
  });

  it("a ban made by another process reaches this one when its copy of the list is renewed", async () => {
    let now = 1_000_000;
    const hh = await harness();
    const here = new BanList(hh.redis, hh.config.redisPrefix, { now: () => now });
    const elsewhere = new BanList(hh.redis, hh.config.redisPrefix);
    expect(await here.isBanned(BORIS.id)).toBe(false);
    await elsewhere.ban(BORIS.id, OPERATOR.id);
    // Within the cache time this process answers from its copy, without asking Redis.
    expect(await here.isBanned(BORIS.id)).toBe(false);
    now += BAN_CACHE_MS;
    expect(await here.isBanned(BORIS.id)).toBe(true);
    expect(await here.tellOnce(BORIS.id)).toBe(true);
    expect(await elsewhere.tellOnce(BORIS.id)).toBe(false);
    await elsewhere.unban(BORIS.id);
    now += BAN_CACHE_MS;
    expect(await here.isBanned(BORIS.id)).toBe(false);
    expect(await here.record(BORIS.id)).toBeNull();
  });
});
