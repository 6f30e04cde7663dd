import type { CatalogService } from "../../../src/catalog/service.js";
import type { OrdersApi, PaymentReceipt, QuoteInput } from "../../../src/orders/api.js";
import { customerPriceKopecks, starsForPrice } from "../../../src/orders/pricing.js";
import type { Order, PaymentCurrency } from "../../../src/orders/types.js";
import type { Gift, NeuralItem } from "../../../src/reseller/types.js";

/**
 * A test double of our own OrdersApi: keeps orders in memory, prices every item at a fixed
 * wholesale amount and records what the bot asked. `quoteError` makes the next quotes throw.
 */
export class FakeOrders implements OrdersApi {
  readonly orders = new Map<string, Order>();
  /** Order ids by chat, as quoted: a chat's list reads its own orders, not all of them (the logic bench quotes thousands). */
  private readonly byChat = new Map<number, string[]>();
  readonly quotes: QuoteInput[] = [];
  readonly paid: { orderId: string; receipt: PaymentReceipt }[] = [];
  readonly confirmed: string[] = [];
  quoteErrors: unknown[] = [];
  /** Calls of setCardMessage (a write of the order of its own). */
  cardMessageWrites = 0;
  wholesaleKopecks = 10_000;

  constructor(
    private readonly currency: PaymentCurrency = "XTR",
    private readonly ttlMs = 900_000,
  ) {}

  async quote(input: QuoteInput): Promise<Order> {
    this.quotes.push(input);
    const err = this.quoteErrors.shift();
    if (err) throw err;
    const existing = this.orders.get(input.orderId);
    if (existing) return existing;
    const now = Date.now();
    const price = customerPriceKopecks(this.wholesaleKopecks, 10);
    const order: Order = {
      id: input.orderId,
      state: "quoted",
      item: input.item,
      customer: input.customer,
      wholesaleKopecks: this.wholesaleKopecks,
      priceKopecks: price,
      currency: this.currency,
      amount:
        this.currency === "XTR" ? starsForPrice(price, 1.5) : this.currency === "RUB" ? price : undefined,
      refund: "none",
      stuck: false,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + this.ttlMs,
      times: { quoted: now },
      ...(input.cardMessageId !== undefined ? { cardMessageId: input.cardMessageId } : {}),
    };
    this.orders.set(order.id, order);
    const ids = this.byChat.get(order.customer.chatId);
    if (ids) ids.push(order.id);
    else this.byChat.set(order.customer.chatId, [order.id]);
    return order;
  }

  async get(orderId: string) {
    return this.orders.get(orderId) ?? null;
  }

  async quoted(orderId: string) {
    return this.get(orderId);
  }

  async setCardMessage(orderId: string, messageId: number) {
    this.cardMessageWrites += 1;
    const o = this.orders.get(orderId);
    if (o) o.cardMessageId = messageId;
  }

  async checkPayable(
    orderId: string,
    expect: { userId: number; currency: "XTR" | "RUB"; totalAmount: number },
  ) {
    const order = this.orders.get(orderId);
    if (!order) return { ok: false as const, reason: "not_found" as const };
    if (order.state === "expired" || (order.expiresAt ?? 0) <= Date.now())
      return { ok: false as const, reason: "expired" as const, order };
    if (order.state !== "quoted") return { ok: false as const, reason: "not_quoted" as const, order };
    if (order.customer.userId !== expect.userId)
      return { ok: false as const, reason: "wrong_user" as const, order };
    if (order.currency !== expect.currency || order.amount !== expect.totalAmount)
      return { ok: false as const, reason: "wrong_amount" as const, order };
    return { ok: true as const, order };
  }

  async markPaid(orderId: string, receipt: PaymentReceipt) {
    this.paid.push({ orderId, receipt });
    const order = this.orders.get(orderId) ?? null;
    if (!order) return { outcome: "duplicate" as const, order };
    if (order.state !== "quoted") return { outcome: "duplicate" as const, order };
    order.state = "paid";
    order.telegramChargeId = receipt.telegramChargeId;
    return { outcome: "paid" as const, order };
  }

  async paymentAnswer(_orderId: string, _maxMs: number): Promise<Order | undefined> {
    return undefined;
  }

  async confirm(orderId: string, userId: number) {
    this.confirmed.push(orderId);
    const order = this.orders.get(orderId) ?? null;
    if (order?.state !== "quoted" || order.customer.userId !== userId) return { won: false, order };
    order.state = "pending";
    return { won: true, order };
  }

  /** Provider and wallet rails are exercised end to end over the real engine (test/e2e/checkout-*.test.ts). */
  async startPayment(input: { orderId: string }) {
    return { ok: false as const, reason: "unavailable" as const, order: this.orders.get(input.orderId) };
  }

  async payFromWallet(orderId: string) {
    return { ok: false as const, reason: "unavailable" as const, order: this.orders.get(orderId) };
  }

  async cancel(orderId: string, userId: number) {
    const order = this.orders.get(orderId) ?? null;
    if (order?.state !== "quoted" || order.customer.userId !== userId) return { won: false, order };
    order.state = "cancelled";
    return { won: true, order };
  }

  async listByChat(chatId: number, offset: number, limit: number) {
    const all = (this.byChat.get(chatId) ?? [])
      .flatMap((id) => this.orders.get(id) ?? [])
      .sort((a, b) => b.createdAt - a.createdAt);
    return { items: all.slice(offset, offset + limit), total: all.length };
  }

  async listAll() {
    return { items: [...this.orders.values()], total: this.orders.size };
  }
  async recheck(orderId: string) {
    return this.orders.get(orderId) ?? null;
  }
  async resendFinal() {
    return true;
  }
  async markRefunded() {
    return true;
  }
  async findIdsByPrefix(prefix: string, max: number) {
    return [...this.orders.keys()].filter((id) => id.startsWith(prefix)).slice(0, max);
  }
  async createdBetween(from: number, to: number) {
    return [...this.orders.values()].filter((o) => o.createdAt >= from && o.createdAt <= to);
  }
  async *streamCreatedBetween(from: number, to: number) {
    yield await this.createdBetween(from, to);
  }
  async recentSpending() {
    return { spentKopecks: 0, windowMs: 7 * 24 * 3600_000 };
  }
}

const gift = (id: string, emoji: string, stars: number, remaining: number | null, rub: number): Gift => ({
  giftId: id,
  emoji,
  starCount: stars,
  remainingCount: remaining,
  wholesalePriceRub: rub,
  raw: {},
});

export const GIFTS: Gift[] = [
  gift("g-bear", "🧸", 15, null, 22.5),
  gift("g-heart", "💝", 15, null, 22.5),
  gift("g-sold", "🚀", 50, 0, 75),
  gift("g-rose", "🌹", 25, 3, 37.5),
  ...Array.from({ length: 8 }, (_, i) => gift(`g-x${i}`, "🎈", 100 + i, null, 150)),
];

export const NEURAL: NeuralItem[] = [
  {
    code: "gpt-plus",
    title: "ChatGPT Plus",
    emoji: "🤖",
    delivery: "codes",
    wholesalePriceRub: 1900,
    raw: {},
  },
  { code: "mj", title: "Midjourney", emoji: "🎨", delivery: "codes", wholesalePriceRub: 900, raw: {} },
];

/** A test double of our CatalogService with fixed catalogs; counts reads. */
export function fakeCatalog(overrides: Partial<CatalogService> = {}): CatalogService & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    products: async () => {
      reads.push("products");
      return [];
    },
    gifts: async () => {
      reads.push("gifts");
      return GIFTS;
    },
    neural: async () => {
      reads.push("neural");
      return NEURAL;
    },
    games: async () => {
      reads.push("games");
      return [
        { key: "pubg", title: "PUBG Mobile", raw: {} },
        { key: "genshin", title: "Genshin Impact", raw: {} },
      ];
    },
    gameRegions: async (game) => {
      reads.push(`regions:${game}`);
      return [{ code: "global", title: "Global", raw: {} }];
    },
    gamePackages: async (game, region) => {
      reads.push(`packages:${game}:${region}`);
      return game === "genshin"
        ? {
            delivery: "topup",
            fields: ["uid", "server"],
            packages: [{ productRef: "gi-60", title: "60 Genesis Crystals", wholesalePriceRub: 80, raw: {} }],
          }
        : {
            delivery: "codes",
            fields: [],
            packages: [{ productRef: "pubg-60", title: "60 UC", wholesalePriceRub: 70, raw: {} }],
          };
    },
    invalidate: () => {},
    ...overrides,
  };
}

/** The operators' balance source: a fixed deposit (operator tests use the real sandbox). */
export const fakeReseller = {
  balance: async () => ({ balanceRub: 100_000, balanceNano: 100_000 * 1e9 }),
};
