import { z } from "zod";
import {
  asObject,
  idSchema,
  isObject,
  layers,
  numberSchema,
  pick,
  priceSchema,
  ResponseShapeError,
  textSchema,
} from "./parse-common.js";
import type { Balance, CreateOrderResult, PayOrderResult, ResellerOrder } from "./types.js";

/**
 * An order status as the spec spells them (`created`, `pending`, `delivered`, `failed`): the case
 * of a status is not shown, so "DELIVERED" or "Delivered" is read as `delivered` rather than as a
 * status of its own, which would leave a delivered order waiting until it is flagged stuck.
 */
const statusSchema = textSchema.transform((s) => s.toLowerCase());

/** Parsers of the deposit balance and the order endpoints: create, pay and the order's state. */

// ---------------------------------------------------------------- balance

export const balanceResponseSchema = z.looseObject({
  balance_rub: numberSchema,
  balance_nano: numberSchema.nullish(),
});

export function parseBalance(body: unknown): Balance {
  const obj = asObject(body, "balance_rub");
  for (const layer of layers(obj, ["balance"])) {
    const r = balanceResponseSchema.safeParse(layer);
    if (r.success) return { balanceRub: r.data.balance_rub, balanceNano: r.data.balance_nano ?? null };
  }
  const rub = pick(numberSchema, obj, ["balance", "balance_rub"]);
  if (rub !== undefined) return { balanceRub: rub, balanceNano: null };
  throw new ResponseShapeError("no balance_rub in the body");
}

// ---------------------------------------------------------------- orders

/** The spec shows only the first answer to create; a repeat's body is "not shown", so the keys are looked up tolerantly. */
export const createOrderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().optional(),
  total_to_pay_rub: priceSchema,
});

export function parseCreateOrder(body: unknown, customId: string): CreateOrderResult {
  const obj = asObject(body, "total_to_pay_rub");
  const sources = layers(obj, ["order"]);
  const total = pick(priceSchema, sources, ["total_to_pay_rub", "total_rub", "price_rub", "amount_rub"]);
  if (total === undefined) throw new ResponseShapeError("no positive total_to_pay_rub in the body");
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status: pick(statusSchema, sources, ["status"]) ?? "created",
    totalToPayRub: total,
    raw: obj,
  };
}

export const payOrderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().optional(),
  price_charged_rub: numberSchema,
});

export function parsePayOrder(body: unknown, customId: string): PayOrderResult {
  const obj = asObject(body, "price_charged_rub");
  const sources = layers(obj, ["order"]);
  const charged = pick(numberSchema, sources, [
    "price_charged_rub",
    "charged_rub",
    "price_rub",
    "total_to_pay_rub",
    "total_rub",
    "amount_rub",
  ]);
  if (charged === undefined) throw new ResponseShapeError("no price_charged_rub in the body");
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status: pick(statusSchema, sources, ["status"]) ?? "pending",
    priceChargedRub: charged,
    raw: obj,
  };
}

export const orderResponseSchema = z.looseObject({
  custom_id: idSchema.optional(),
  status: z.string().min(1),
  delivered_payload: z.unknown().optional(),
  error_message: z.string().nullish(),
});

export function parseOrder(body: unknown, customId: string): ResellerOrder {
  const obj = asObject(body, "status");
  const sources = layers(obj, ["order"]);
  const status = pick(statusSchema, sources, ["status"]);
  if (status === undefined) throw new ResponseShapeError("no status in the order");
  const payload = sources.map((s) => s.delivered_payload).find((p) => p !== undefined && p !== null);
  const errorMessage = sources.map((s) => s.error_message).find((m) => m !== undefined && m !== null);
  return {
    customId: pick(idSchema, sources, ["custom_id"]) ?? customId,
    status,
    deliveredPayload: payload === undefined ? null : isObject(payload) ? payload : { value: payload },
    errorMessage:
      errorMessage === undefined
        ? null
        : typeof errorMessage === "string"
          ? errorMessage
          : JSON.stringify(errorMessage),
    raw: obj,
  };
}
