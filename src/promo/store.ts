import { randomInt } from "node:crypto";
import type { RedisClient } from "../redis/connect.js";
import { defineScripts } from "../redis/scripts.js";
import { CODE_ALPHABET } from "./discount.js";
import type { PromoCode, PromoStatus } from "./types.js";

/**
 * Promo codes in Redis (every key under the prefix P):
 *
 *   P promo:<CODE>        hash  def (JSON PromoCode), max, per, off (1: switched off), used
 *   P promo:<CODE>:users  hash  userId → uses by that customer
 *   P promo:held          hash  orderId → "<CODE>|<userId>": the use an order holds
 *   P promo:all           zset  createdAt → code (the operators' list)
 *
 * A use is counted when a customer applies the code to a quoted order (lua/reservePromo-3.lua,
 * limits checked in the same step) and given back when that order expires or is cancelled unpaid
 * (lua/releasePromo-3.lua); `promo:held` makes both safe to repeat.
 */
export type ReserveOutcome =
  | "ok"
  | "held"
  | "other"
  | "unknown"
  | "disabled"
  | "exhausted"
  | "customer_limit";

const SCRIPTS = ["createPromo-2", "reservePromo-3", "releasePromo-3"] as const;

/** Length of generated one-time codes: 25 characters, 10 places → about 10^14 codes. */
export const GENERATED_CODE_LENGTH = 10;

export class PromoStore {
  private readonly scripts: ReturnType<typeof defineScripts<(typeof SCRIPTS)[number]>>;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  private key(code: string): string {
    return `${this.prefix}promo:${code}`;
  }
  private usersKey(code: string): string {
    return `${this.prefix}promo:${code}:users`;
  }
  private get heldKey(): string {
    return `${this.prefix}promo:held`;
  }
  private get allKey(): string {
    return `${this.prefix}promo:all`;
  }

  /** Stores a new code; false when a code of that name exists. */
  async create(def: PromoCode): Promise<boolean> {
    const r = await this.scripts["createPromo-2"](
      this.key(def.code),
      this.allKey,
      def.code,
      JSON.stringify(def),
      def.maxUses,
      def.perCustomer,
      def.createdAt,
    );
    return r === 1;
  }

  /** Makes `count` one-time codes (random, unambiguous characters) from `template`; returns them. */
  async createBatch(
    count: number,
    template: Omit<PromoCode, "code" | "maxUses" | "batch">,
  ): Promise<string[]> {
    const batch = `b${template.createdAt.toString(36)}`;
    const codes: string[] = [];
    while (codes.length < count) {
      let code = "";
      for (let i = 0; i < GENERATED_CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
      if (await this.create({ ...template, code, maxUses: 1, batch })) codes.push(code);
    }
    return codes;
  }

  async get(code: string): Promise<PromoStatus | null> {
    const [def, used, off] = await this.redis.hmget(this.key(code), "def", "used", "off");
    if (!def) return null;
    return { ...(JSON.parse(def) as PromoCode), used: Number(used ?? 0), disabled: off === "1" };
  }

  /** The newest codes first. */
  async list(offset: number, limit: number): Promise<{ codes: PromoStatus[]; total: number }> {
    const [names, total] = await Promise.all([
      this.redis.zrevrange(this.allKey, offset, offset + limit - 1),
      this.redis.zcard(this.allKey),
    ]);
    const codes = (await Promise.all(names.map((n) => this.get(n)))).filter(
      (c): c is PromoStatus => c !== null,
    );
    return { codes, total };
  }

  /** Switches a code off (uses already counted stay); false for an unknown code. */
  async disable(code: string): Promise<boolean> {
    if (!(await this.redis.exists(this.key(code)))) return false;
    await this.redis.hset(this.key(code), "off", "1");
    return true;
  }

  /** Counts one use of `code` by `userId` for `orderId`, within its limits (or whatever them, `force`). */
  async reserve(code: string, orderId: string, userId: number, force = false): Promise<ReserveOutcome> {
    return (await this.scripts["reservePromo-3"](
      this.key(code),
      this.usersKey(code),
      this.heldKey,
      code,
      orderId,
      userId,
      force ? "force" : "",
    )) as ReserveOutcome;
  }

  /** Gives back the use an order holds; false when it holds none. */
  async release(orderId: string): Promise<boolean> {
    const held = await this.redis.hget(this.heldKey, orderId);
    if (!held) return false;
    const code = held.slice(0, held.lastIndexOf("|"));
    const r = await this.scripts["releasePromo-3"](
      this.key(code),
      this.usersKey(code),
      this.heldKey,
      orderId,
      held,
    );
    return r === 1;
  }

  /** The code whose use an order holds, if any. */
  async heldBy(orderId: string): Promise<string | undefined> {
    const held = await this.redis.hget(this.heldKey, orderId);
    return held ? held.slice(0, held.lastIndexOf("|")) : undefined;
  }

  /** Uses of a code by one customer. */
  async usesBy(code: string, userId: number): Promise<number> {
    return Number((await this.redis.hget(this.usersKey(code), String(userId))) ?? 0);
  }
}
