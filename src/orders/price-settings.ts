import { PRODUCT_KINDS, type ProductKind } from "../config.js";
import type { Logger } from "../logger.js";
import { type RedisClient, subscriberOf } from "../redis/connect.js";
import { defineScripts, type ScriptCall } from "../redis/scripts.js";
import { type PriceRule, ROUNDINGS, type Rounding } from "./pricing.js";
import type { OrderItem } from "./types.js";

/**
 * The operators' live price settings (/prices), shared by every process through Redis:
 *
 *   P prices       hash  markup:<kind> → percent, item:<ref> → percent, minMargin → kopecks,
 *                        rounding → rub|ten|kopeck, on:<kind> → 1|0
 *   P prices:log   list  one JSON entry per change {at, by, field, from, to}, oldest first
 *
 * A field that is absent takes its default from the environment (PRICE_MARKUP_PERCENT, PRODUCTS;
 * no minimum margin; whole roubles). Each change and its log entry are written by one script
 * (lua/setPriceSetting-2.lua).
 *
 * Each change is also published (channel `P prices:changed`, the changed field) by the same
 * script.
 *
 * Reads. A process that listens for those notices ({@link PriceSettingsStore.listen}, the orders
 * engine's processes) keeps a copy of the hash and prices quotes, menus and pickers from it while
 * it can be sure no change went unheard: its subscription was confirmed before the copy was read
 * and has stayed up since, no notice arrived since, and the copy is under {@link PRICE_TRUST_MS}
 * old (the bound for a change written by hand, which publishes nothing). A notice makes the
 * process read the hash again at once. So a change reaches the next quote in every process as
 * soon as its notice does (a fraction of a millisecond on one network), and a quote costs no read
 * of its own. Without the subscription (not listening, or the connection lost until it is
 * confirmed again) a quote reads the hash afresh, and menus and pickers read a copy at most
 * {@link PRICE_CACHE_MS} old. A change made in this process replaces its copy at once.
 */

/** How long a process shows menus and picker prices from an unconfirmed in-memory copy. */
export const PRICE_CACHE_MS = 1_000;

/** How long a copy kept current by change notices is used before it is read again regardless. */
export const PRICE_TRUST_MS = 10_000;

/** Item refs: catalog items with their own markup (gifts, AI items, game packages). */
export const ITEM_KINDS = ["gift", "neural", "game"] as const satisfies readonly ProductKind[];
export type ItemKind = (typeof ITEM_KINDS)[number];
/** `gift:<gift id>`, `neural:<code>`, `game:<product ref>`. */
export const ITEM_REF_RE = /^(gift|neural|game):([A-Za-z0-9_.:-]{1,64})$/;

export const MARKUP_LIMITS = { min: 0, max: 1_000 } as const;
/** The largest minimum margin an operator may set, in roubles. */
export const MAX_MIN_MARGIN_RUB = 100_000;

export interface PriceSettings {
  markup: Record<ProductKind, number>;
  /** Markups of single catalog items, by item ref. */
  items: Record<string, number>;
  minMarginKopecks: number;
  rounding: Rounding;
  enabled: Record<ProductKind, boolean>;
}

export interface PriceDefaults {
  priceMarkupPercent: number;
  products: readonly ProductKind[];
}

export interface PriceChange {
  at: number;
  /** The operator's Telegram user id. */
  by: number;
  /** The hash field changed (`markup:stars`, `item:gift:1`, `minMargin`, `rounding`, `on:game`). */
  field: string;
  from: string | null;
  to: string | null;
}

/** The item ref of an order item that can have its own markup; undefined for the others. */
export function itemRef(
  item: Pick<OrderItem, "kind" | "giftId" | "code" | "productRef">,
): string | undefined {
  if (item.kind === "gift" && item.giftId) return `gift:${item.giftId}`;
  if (item.kind === "neural" && item.code) return `neural:${item.code}`;
  if (item.kind === "game" && item.productRef) return `game:${item.productRef}`;
  return undefined;
}

/** The rule pricing one item: its own markup when it has one, else its kind's. */
export function ruleFor(s: PriceSettings, kind: ProductKind, ref?: string): PriceRule {
  const own = ref === undefined ? undefined : s.items[ref];
  return {
    markupPercent: own ?? s.markup[kind],
    minMarginKopecks: s.minMarginKopecks,
    rounding: s.rounding,
  };
}

export function enabledKinds(s: PriceSettings): ProductKind[] {
  return PRODUCT_KINDS.filter((k) => s.enabled[k]);
}

export function defaultSettings(d: PriceDefaults): PriceSettings {
  const markup = {} as Record<ProductKind, number>;
  const enabled = {} as Record<ProductKind, boolean>;
  for (const k of PRODUCT_KINDS) {
    markup[k] = d.priceMarkupPercent;
    enabled[k] = d.products.includes(k);
  }
  return { markup, items: {}, minMarginKopecks: 0, rounding: "rub", enabled };
}

function finitePercent(v: string): number | undefined {
  const n = Number(v);
  return Number.isFinite(n) && n >= MARKUP_LIMITS.min && n <= MARKUP_LIMITS.max ? n : undefined;
}

/** The settings a hash describes; fields that do not parse keep their defaults. */
export function settingsFromHash(hash: Record<string, string>, d: PriceDefaults): PriceSettings {
  const s = defaultSettings(d);
  for (const [field, value] of Object.entries(hash)) {
    const [head, ...rest] = field.split(":");
    const tail = rest.join(":");
    const kind = PRODUCT_KINDS.find((k) => k === tail);
    if (head === "markup" && kind) {
      const n = finitePercent(value);
      if (n !== undefined) s.markup[kind] = n;
    } else if (head === "on" && kind) {
      s.enabled[kind] = value === "1";
    } else if (head === "item" && ITEM_REF_RE.test(tail)) {
      const n = finitePercent(value);
      if (n !== undefined) s.items[tail] = n;
    } else if (field === "minMargin") {
      const n = Number(value);
      if (Number.isSafeInteger(n) && n >= 0 && n <= MAX_MIN_MARGIN_RUB * 100) s.minMarginKopecks = n;
    } else if (field === "rounding") {
      const r = ROUNDINGS.find((x) => x === value);
      if (r) s.rounding = r;
    }
  }
  return s;
}

/** A copy of the settings: when it was read, and whether change notices have covered it since (`heard`). */
interface Copy {
  settings: PriceSettings;
  at: number;
  /** The notice count when the read was sent, with the subscription confirmed; undefined otherwise. */
  heard: number | undefined;
}

export class PriceSettingsStore {
  private readonly key: string;
  private readonly logKey: string;
  private readonly channel: string;
  private copy: Copy | undefined;
  private loading: Promise<PriceSettings> | undefined;
  private readonly now: () => number;
  private readonly scripts: Record<"setPriceSetting-2", ScriptCall>;
  private subscriber: RedisClient | undefined;
  /** Whether the subscription to change notices is confirmed and has not been lost since. */
  private subscribed = false;
  /** Notices heard, and subscriptions lost: a copy read before the latest of them may be behind. */
  private notices = 0;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly defaults: PriceDefaults,
    opts: { now?: () => number } = {},
  ) {
    this.key = `${prefix}prices`;
    this.logKey = `${prefix}prices:log`;
    this.channel = `${prefix}prices:changed`;
    this.now = opts.now ?? Date.now;
    this.scripts = defineScripts(redis, new URL("./lua/", import.meta.url), ["setPriceSetting-2"]);
  }

  /**
   * Listens for change notices on a connection of its own (in the background: Redis may be away),
   * so that quotes can be priced from the copy in memory (see the top of this file).
   */
  listen(logger: Logger): void {
    if (this.subscriber) return;
    const sub = subscriberOf(this.redis, "shopbot-prices", logger);
    sub.on("message", () => this.changed());
    // A lost connection may have lost notices: the copy is not trusted until the subscription is
    // confirmed again (ioredis subscribes again on its own when it is back; the explicit
    // SUBSCRIBE tells when that is done).
    sub.on("close", () => {
      if (!this.subscribed) return;
      this.subscribed = false;
      this.notices += 1;
    });
    const confirm = () => {
      sub.subscribe(this.channel).then(
        () => {
          if (this.subscriber === sub) this.subscribed = true;
        },
        (err) => logger.warn({ err }, "could not listen for price changes"),
      );
    };
    sub.on("ready", confirm);
    this.subscriber = sub;
  }

  /** Whether change notices are being heard (the subscription is confirmed and up). */
  get listening(): boolean {
    return this.subscribed;
  }

  async stop(): Promise<void> {
    const sub = this.subscriber;
    this.subscriber = undefined;
    this.subscribed = false;
    await sub?.quit().catch(() => sub.disconnect());
  }

  /** A change was heard (or may have gone unheard): the copy is read again, now. */
  private changed(): void {
    this.notices += 1;
    if (this.subscribed) void this.current().catch(() => {});
  }

  /** The settings as Redis has them now (the operators' screen). */
  async current(): Promise<PriceSettings> {
    const heard = this.subscribed ? this.notices : undefined;
    const hash = await this.redis.hgetall(this.key);
    const settings = settingsFromHash(hash, this.defaults);
    this.copy = { settings, at: this.now(), heard };
    return settings;
  }

  /** The copy, when change notices have covered it since it was read (see the top of this file). */
  private confirmed(): PriceSettings | undefined {
    const copy = this.copy;
    if (!copy || !this.subscribed || copy.heard !== this.notices) return undefined;
    return this.now() - copy.at < PRICE_TRUST_MS ? copy.settings : undefined;
  }

  /**
   * The settings a quote is priced by: the confirmed copy, or else as Redis has them now. A change
   * reaches it in every process as soon as the change's notice does.
   */
  async forQuote(): Promise<PriceSettings> {
    return this.confirmed() ?? (await this.current());
  }

  /**
   * The settings for menus and pickers: the confirmed copy, or else one at most
   * {@link PRICE_CACHE_MS} old (Redis is read at most once per window).
   */
  async cached(): Promise<PriceSettings> {
    const confirmed = this.confirmed();
    if (confirmed) return confirmed;
    const copy = this.copy;
    if (copy && this.now() - copy.at < PRICE_CACHE_MS) return copy.settings;
    this.loading ??= this.current().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** The last settings read (defaults before the first read), without waiting. */
  peek(): PriceSettings {
    return this.copy?.settings ?? defaultSettings(this.defaults);
  }

  /** Sets a markup percent for a product kind. */
  setMarkup(by: number, kind: ProductKind, percent: number): Promise<PriceChange | null> {
    return this.write(by, `markup:${kind}`, String(percent));
  }

  /** Sets (a number) or removes (null) one catalog item's own markup. */
  setItemMarkup(by: number, ref: string, percent: number | null): Promise<PriceChange | null> {
    if (!ITEM_REF_RE.test(ref)) throw new Error(`not an item ref: ${ref}`);
    return this.write(by, `item:${ref}`, percent === null ? null : String(percent));
  }

  setMinMargin(by: number, kopecks: number): Promise<PriceChange | null> {
    return this.write(by, "minMargin", String(kopecks));
  }

  setRounding(by: number, rounding: Rounding): Promise<PriceChange | null> {
    return this.write(by, "rounding", rounding);
  }

  setEnabled(by: number, kind: ProductKind, on: boolean): Promise<PriceChange | null> {
    return this.write(by, `on:${kind}`, on ? "1" : "0");
  }

  /** The latest changes, newest first. */
  async recentChanges(count: number): Promise<PriceChange[]> {
    const raw = await this.redis.lrange(this.logKey, -count, -1);
    const out: PriceChange[] = [];
    for (const line of raw.reverse()) {
      try {
        out.push(JSON.parse(line) as PriceChange);
      } catch {
        // A line that is not ours is skipped.
      }
    }
    return out;
  }

  /** Writes one field and its log entry in one script, when the value differs from the stored one (a repeated tap logs nothing). */
  private async write(by: number, field: string, to: string | null): Promise<PriceChange | null> {
    const entry = (await this.scripts["setPriceSetting-2"](
      this.key,
      this.logKey,
      field,
      to === null ? "del" : "set",
      to ?? "",
      this.now(),
      by,
      this.channel,
    )) as string | null;
    await this.current();
    return entry ? (JSON.parse(entry) as PriceChange) : null;
  }
}
