import { describe, expect, it } from "vitest";
import { renderSupportHeader, supportKeyboard, supportTopicName } from "../../src/bot/format/support.js";
import type { Order } from "../../src/orders/types.js";
import { order as baseOrder } from "../helpers/orders.js";
import { translatorFor } from "./operator-harness.js";

const en = translatorFor("en");
const ru = translatorFor("ru");
const T0 = Date.UTC(2026, 10, 20, 9, 30);

const order = (n: number, over: Partial<Order> = {}): Order =>
  baseOrder({
    id: `${String(n).padStart(8, "0")}-0000-4000-8000-000000000001`,
    state: "delivered",
    item: { kind: "stars", product: "stars", recipient: "ann", quantity: 50 },
    priceKopecks: 8_300,
    amount: 56,
    createdAt: T0 - n * 60_000,
    ...over,
  });

describe("the operators' support header", () => {
  it("names the customer with their id and lists at most five latest orders", () => {
    const orders = Array.from({ length: 7 }, (_, i) => order(i + 1));
    const text = renderSupportHeader({ userId: 42, firstName: "Ann", username: "ann_b" }, orders, en, "en");
    expect(text.split("\n")[0]).toBe("✉️ <b>Support</b> · Ann @ann_b (id <code>42</code>)");
    expect(text.match(/^• /gm)).toHaveLength(5);
    expect(text).toContain("<code>#00000001</code> 11-20 09:29 · ⭐ Stars ×50");
    expect(text).not.toContain("#00000006");
  });

  it("escapes what the customer chose (their name) and says when there are no orders, in Russian too", () => {
    const text = renderSupportHeader({ userId: 7, firstName: "<b>Bob</b> & co" }, [], ru, "ru");
    expect(text).toContain("&lt;b&gt;Bob&lt;/b&gt; &amp; co");
    expect(text).toContain("Заказов пока нет.");
  });

  it("names a customer's forum topic plainly, and offers the way back to support", () => {
    expect(supportTopicName({ userId: 42, firstName: "Ann", username: "ann_b" })).toBe("Ann @ann_b · 42");
    expect(supportTopicName({ userId: 43, firstName: "  " })).toBe("43");
    expect(supportKeyboard(en)).toEqual({
      inline_keyboard: [[{ text: "✉️ Contact support", callback_data: "sp" }]],
    });
  });
});
