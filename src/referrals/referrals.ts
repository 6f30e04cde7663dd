import { randomInt } from "node:crypto";
import { orderKeys } from "../orders/keys.js";
import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import { type ReferralKeys, referralKeys } from "./keys.js";

/** What following an invite link did (see lua/attach-3.lua). */
export type AttachOutcome = "attached" | "self" | "already" | "customer" | "unknown";

/** One user's side of the programme, for "Invite friends" and an operator's /customer. */
export interface ReferralStats {
  /** The invite code, when the user has one yet. */
  code?: string;
  /** Who referred this user. */
  referredBy?: number;
  /** Customers attached through this user's link. */
  joined: number;
  /** Their delivered orders that earned this user a bonus. */
  orders: number;
  /** Kopecks credited for them. */
  earnedKopecks: number;
}

/** Invite codes: 8 characters of a–z and 0–9 (a deep link's payload is `ref_<code>`). */
export const CODE_PATTERN = /^[a-z0-9]{8}$/;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** The deep-link payload of an invite (`t.me/<bot>?start=ref_<code>`). */
export const INVITE_PREFIX = "ref_";

/**
 * The referral programme's records in Redis (layout in keys.ts): each customer's invite code,
 * who referred whom (set once, never changed), and what each referrer earned. The money itself
 * is in the wallet (`reason: "referral"`, `ref: referral:<orderId>`); see orders/referral-bonus.ts.
 */
export class Referrals {
  readonly keys: ReferralKeys;
  private readonly chatIndex: (chatId: number) => string;
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = referralKeys(prefix);
    this.chatIndex = orderKeys(prefix).chat;
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  /** The user's invite code, made on first use (and the same ever after). */
  async codeOf(userId: number): Promise<string> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const candidate = randomCode();
      const [status, code] = (await this.scripts["ensureCode-2"](
        this.keys.user(userId),
        this.keys.code(candidate),
        candidate,
        String(userId),
      )) as [string, string];
      if (status !== "taken") return code;
    }
    throw new Error("referrals: no free invite code after 8 tries");
  }

  /**
   * A customer arrived through the invite `code`: attached to its owner unless the code is
   * unknown, it is their own, they were attached before, or they have ordered before.
   */
  async attach(userId: number, code: string): Promise<{ outcome: AttachOutcome; referrerId?: number }> {
    if (!CODE_PATTERN.test(code)) return { outcome: "unknown" };
    const owner = await this.redis.get(this.keys.code(code));
    const referrerId = owner === null ? Number.NaN : Number(owner);
    if (!Number.isSafeInteger(referrerId)) return { outcome: "unknown" };
    const outcome = (await this.scripts["attach-3"](
      this.keys.user(userId),
      this.keys.user(referrerId),
      this.chatIndex(userId),
      String(userId),
      String(referrerId),
      String(this.now()),
    )) as AttachOutcome;
    return { outcome, referrerId };
  }

  /** Who referred this customer, if anyone. */
  async referrerOf(userId: number): Promise<number | undefined> {
    const by = await this.redis.hget(this.keys.user(userId), "by");
    return by === null ? undefined : Number(by);
  }

  async stats(userId: number): Promise<ReferralStats> {
    const [code, by, joined, orders, earned] = await this.redis.hmget(
      this.keys.user(userId),
      "code",
      "by",
      "joined",
      "orders",
      "earned",
    );
    return {
      code: code ?? undefined,
      referredBy: by === null ? undefined : Number(by),
      joined: Number(joined ?? 0),
      orders: Number(orders ?? 0),
      earnedKopecks: Number(earned ?? 0),
    };
  }

  /** Counts a bonus credited for `orderId` (once per order; a repeat counts nothing). */
  async noteEarned(referrerId: number, orderId: string, kopecks: number): Promise<boolean> {
    const counted = await this.scripts["noteEarned-2"](
      this.keys.user(referrerId),
      this.keys.earned(referrerId),
      orderId,
      String(kopecks),
    );
    return counted === 1;
  }

  /** The kopecks credited to the referrer for `orderId`, when a bonus was counted for it. */
  async earnedFor(referrerId: number, orderId: string): Promise<number | undefined> {
    const v = await this.redis.hget(this.keys.earned(referrerId), orderId);
    return v === null ? undefined : Number(v);
  }

  /** Whether the referrer was told of the bonus for `orderId` already. */
  async wasTold(referrerId: number, orderId: string): Promise<boolean> {
    return (await this.redis.hexists(this.keys.told(referrerId), orderId)) === 1;
  }

  /** Records that the referrer was told of the bonus for `orderId`. */
  async markTold(referrerId: number, orderId: string): Promise<void> {
    await this.redis.hsetnx(this.keys.told(referrerId), orderId, String(this.now()));
  }
}

const SCRIPTS = ["ensureCode-2", "attach-3", "noteEarned-2"] as const;

function randomCode(): string {
  let code = "";
  for (let i = 0; i < 8; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}
