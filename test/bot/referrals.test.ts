import { afterEach, describe, expect, it } from "vitest";
import { Referrals } from "../../src/referrals/referrals.js";
import { type BotHarness, startBotHarness } from "./helpers/bot-harness.js";
import { BOT_INFO } from "./helpers/telegram-recorder.js";
import { ALICE, BORIS, callbackUpdate, type TestUser, textUpdate } from "./helpers/updates.js";

/** Invite links in the bot (createBot, real Redis, recording Bot API): the menu's view and /start ref_<code>. */

const CAROL: TestUser = { id: 5003, first_name: "Carol", language_code: "en" };

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(percent: string) {
  h = await startBotHarness(
    { CHECKOUT: "stars,wallet", DEFAULT_LOCALE: "en", REFERRAL_PERCENT: percent },
    undefined,
    { wallet: true },
  );
  return { hh: h, referrals: new Referrals(h.redis, h.config.redisPrefix) };
}

describe("invite friends", () => {
  it("shows the customer's own link and what it brought, the same link every time", async () => {
    const { hh } = await harness("7");
    await hh.send(textUpdate(ALICE, "/start"));
    const invite = hh.tg.button("👥 Invite friends");
    expect(invite.data).toBe("m:invite");
    hh.tg.reset();
    await hh.send(callbackUpdate(ALICE, invite.data));
    const text = hh.tg.lastText();
    const link = new RegExp(`https://t\\.me/${BOT_INFO.username}\\?start=ref_([a-z0-9]{8})`).exec(text);
    expect(link).not.toBeNull();
    expect(text).toContain("7% of its price");
    expect(text).toContain("Friends joined: <b>0</b>");
    expect(text).toContain("Earned: <b>₽0</b>");

    await hh.send(textUpdate(BORIS, `/start ref_${link![1]}`));
    hh.tg.reset();
    await hh.send(callbackUpdate(ALICE, "m:invite"));
    expect(hh.tg.lastText()).toContain(link![0]);
    expect(hh.tg.lastText()).toContain("Friends joined: <b>1</b>");
  });

  it("attaches a newcomer through a link once: first link wins, own link and unknown codes are answered", async () => {
    const { hh, referrals } = await harness("10");
    const aliceCode = await referrals.codeOf(ALICE.id);
    const carolCode = await referrals.codeOf(CAROL.id);

    hh.tg.reset();
    await hh.send(textUpdate(BORIS, `/start ref_${aliceCode}`));
    expect(hh.tg.texts()[0]).toBe("👋 Добро пожаловать! Вы пришли по приглашению друга.");
    expect(hh.tg.lastText()).toContain("Что хотите купить?");
    await hh.send(textUpdate(BORIS, `/start ref_${carolCode}`));
    expect(await referrals.referrerOf(BORIS.id)).toBe(ALICE.id);

    hh.tg.reset();
    await hh.send(textUpdate(ALICE, `/start ref_${aliceCode}`));
    expect(hh.tg.texts()[0]).toContain("This is your own invite link");
    expect(await referrals.referrerOf(ALICE.id)).toBeUndefined();

    hh.tg.reset();
    await hh.send(textUpdate(CAROL, "/start ref_nope"));
    expect(hh.tg.texts()[0]).toContain("This invite link is not valid");
    expect(hh.tg.texts()).toHaveLength(2);
    expect(await referrals.referrerOf(CAROL.id)).toBeUndefined();
  });

  it("is absent at REFERRAL_PERCENT=0: no button, links do nothing", async () => {
    const { hh, referrals } = await harness("0");
    const code = await referrals.codeOf(ALICE.id);
    hh.tg.reset();
    await hh.send(textUpdate(BORIS, `/start ref_${code}`));
    expect(hh.tg.texts()).toHaveLength(1);
    expect(hh.tg.lastButtons().map((b) => b.data)).not.toContain("m:invite");
    expect(await referrals.referrerOf(BORIS.id)).toBeUndefined();
  });
});
