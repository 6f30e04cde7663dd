import type { CustomerRegistry } from "../customers/registry.js";
import type { OrdersApi } from "../orders/api.js";
import type { Order } from "../orders/types.js";
import type { Audience } from "./types.js";

const DAY_MS = 24 * 3600 * 1000;
/** Orders that count as a purchase: the customer paid. */
const BOUGHT: readonly Order["state"][] = ["paid", "pending", "delivered"];

/**
 * The chats of an audience, without those that blocked the bot and those an operator banned (the
 * shop no longer serves them); registry order, then order order.
 */
export async function resolveAudience(
  audience: Audience,
  deps: {
    customers: CustomerRegistry;
    orders: Pick<OrdersApi, "streamCreatedBetween">;
    now: number;
  },
): Promise<number[]> {
  const [blocked, banned] = await Promise.all([deps.customers.blocked(), deps.customers.banned()]);
  let chats: number[];
  if (audience.kind === "all") chats = await deps.customers.chats();
  else if (audience.kind === "lang") chats = await deps.customers.chats(audience.locale);
  else {
    const found = new Set<number>();
    const from = deps.now - audience.days * DAY_MS;
    for await (const page of deps.orders.streamCreatedBetween(from, deps.now)) {
      for (const o of page) {
        if (!BOUGHT.includes(o.state)) continue;
        if (audience.kind === "product" && kindOf(o.item.product) !== audience.product) continue;
        found.add(o.customer.chatId);
      }
    }
    chats = [...found];
  }
  return [...new Set(chats)].filter((c) => !blocked.has(c) && !banned.has(c));
}

function kindOf(product: string): string {
  return product.startsWith("premium") ? "premium" : product;
}
