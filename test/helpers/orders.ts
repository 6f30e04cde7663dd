import type { Order } from "../../src/orders/types.js";

export const ORDER_ID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

/**
 * An order as the store keeps it, for tests that render or send one: 100 Stars for @alice_buyer, paid
 * and pending at the reseller, customer 5001 writing in English. `over` replaces whole fields (a test
 * file may pass its own usual order this way and each test what it is about).
 */
export function order(over: Partial<Order> = {}): Order {
  return {
    id: ORDER_ID,
    state: "pending",
    item: { kind: "stars", product: "stars", quantity: 100, recipient: "alice_buyer" },
    customer: { userId: 5001, chatId: 5001, locale: "en" },
    priceKopecks: 11_000,
    currency: "XTR",
    amount: 74,
    refund: "none",
    stuck: false,
    createdAt: 1,
    updatedAt: 1,
    times: {},
    ...over,
  };
}
