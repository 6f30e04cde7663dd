import type { Message, Update } from "grammy/types";

let updateId = 1;

export interface TestUser {
  id: number;
  first_name: string;
  username?: string;
  language_code?: string;
}

export const ALICE: TestUser = {
  id: 5001,
  first_name: "Alice",
  username: "alice_buyer",
  language_code: "en",
};
export const BORIS: TestUser = { id: 5002, first_name: "Борис", language_code: "ru" };

const from = (u: TestUser) => ({ ...u, is_bot: false as const });
const chat = (u: TestUser) => ({ id: u.id, type: "private" as const, first_name: u.first_name });

/** A message from `user` in their private chat with the bot; `content` is what it carries. */
function messageUpdate(
  user: TestUser,
  content:
    | Pick<Message.TextMessage, "text" | "entities">
    | Pick<Message.SuccessfulPaymentMessage, "successful_payment">,
): Update {
  return {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: chat(user),
      from: from(user),
      ...content,
    },
  };
}

export function textUpdate(user: TestUser, text: string): Update {
  const entities = text.startsWith("/")
    ? [{ type: "bot_command" as const, offset: 0, length: text.split(/\s/)[0]?.length ?? text.length }]
    : undefined;
  return messageUpdate(user, { text, entities });
}

export function callbackUpdate(user: TestUser, data: string, messageId = 100): Update {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cq${updateId}`,
      from: from(user),
      chat_instance: "ci",
      data,
      message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: chat(user), text: "…" },
    },
  };
}

export function preCheckoutUpdate(user: TestUser, payload: string, currency: string, total: number): Update {
  return {
    update_id: updateId++,
    pre_checkout_query: {
      id: `pcq${updateId}`,
      from: from(user),
      currency,
      total_amount: total,
      invoice_payload: payload,
    },
  };
}

export function successfulPaymentUpdate(
  user: TestUser,
  payload: string,
  currency: string,
  total: number,
  charge: string,
): Update {
  return messageUpdate(user, {
    successful_payment: {
      currency,
      total_amount: total,
      invoice_payload: payload,
      telegram_payment_charge_id: charge,
      provider_payment_charge_id: "",
    },
  });
}
