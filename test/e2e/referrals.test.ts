import { afterEach, describe, expect, it } from "vitest";
import { WalletLedger } from "../../src/wallet/ledger.js";
import {
  APP_OPERATOR_ID,
  type AppHarness,
  DELIVERED,
  newAppCustomer,
  starsCard,
  startAppHarness,
} from "../helpers/app-harness.js";

/**
 * Referrals end to end through the Telegram emulator: a customer shares the link from "Invite
 * friends", a friend starts the bot through it and buys, the referrer is credited and told once,
 * and an operator's /customer shows who referred whom.
 */

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const T = { timeoutMs: 10_000 };

describe("referrals", () => {
  it("a friend's delivered order credits the referrer's wallet and tells them", async () => {
    h = await startAppHarness({ CHECKOUT: "stars,wallet", REFERRAL_PERCENT: "10" });
    const ledger = new WalletLedger(h.app.redis, h.app.config.redisPrefix);
    const referrer = newAppCustomer(h.telegram);
    await referrer.sendText("/start");
    await referrer.pressButton("👥 Invite friends", T);
    const view = await referrer.waitForBotMessage(/Your link:/, 10_000);
    const code = /\?start=ref_([a-z0-9]{8})/.exec(view.text ?? "")?.[1];
    expect(code).toBeDefined();

    const friend = newAppCustomer(h.telegram);
    await friend.sendText(`/start ref_${code}`);
    await friend.waitForBotMessage(/You came through a friend's invitation/, 10_000);
    await starsCard(friend, 50);
    await friend.pressButton(/^⭐ Telegram Stars —/, T);
    await friend.waitFor((msgs) => msgs.some((m) => m.invoice !== undefined), 10_000);
    expect((await friend.payInvoice(T)).ok).toBe(true);
    await friend.waitForBotMessage(DELIVERED, 20_000);

    const told = await referrer.waitForBotMessage(/to your wallet from your friend's order/, 20_000);
    const order = (await h.app.orders.listByChat(friend.id, 0, 1)).items[0]!;
    const bonus = Math.floor(order.priceKopecks! / 10);
    const entries = (await ledger.audit(referrer.id)).entries;
    expect(entries).toEqual([
      expect.objectContaining({ reason: "referral", ref: `referral:${order.id}`, amountKopecks: bonus }),
    ]);
    expect(told.text).toContain(`+₽${bonus / 100}`);

    const operator = h.telegram.user({ id: APP_OPERATOR_ID, username: "shop_operator", languageCode: "en" });
    await operator.sendText(`/customer @buyer_${friend.id}`);
    const file = await operator.waitForBotMessage(/Referrals/, 10_000);
    expect(file.text).toContain(`referred by @buyer_${referrer.id} id ${referrer.id}`);
  });
});
