import { z } from "zod";
import { ResellerValidationError } from "./errors.js";
import type { CreateOrderRequest } from "./types.js";

/**
 * Rules for the body of POST /api/reseller/order/create (reseller-api.md §2.1 and §8), checked
 * before anything is sent. Each product accepts exactly the fields the spec lists for it: a
 * field the product does not use (e.g. `quantity` for `premium_*`) or an unknown field is an
 * error, so a mistake here never reaches the API as a half-understood request.
 */

/**
 * Telegram username: 5–32 characters of [A-Za-z0-9_], starting with a letter, not ending with
 * "_" and without "__". Given without "@".
 */
export const USERNAME_RE = /^[A-Za-z](?!.*__)[A-Za-z0-9_]{3,30}[A-Za-z0-9]$/;

const nonEmpty = (what: string) =>
  z.string({ error: `is required: ${what}` }).min(1, { error: "must not be empty" });

const customId = nonEmpty("a non-empty string").max(128, { error: "must be at most 128 characters" });

const username = z.string({ error: "is required (Telegram username without @)" }).regex(USERNAME_RE, {
  error:
    "must be a Telegram username without @: 5–32 letters, digits or _, starting with a letter, no trailing _ or __",
});

const steamLogin = z
  .string({ error: "is required (game-platform login)" })
  .min(1, { error: "must not be empty" })
  .max(64, { error: "must be at most 64 characters" });

const quantity = (min: number, max: number, unit: string) =>
  z
    .number({ error: `is required: a whole number of ${unit} from ${min} to ${max}` })
    .int({ error: `must be a whole number of ${unit}` })
    .min(min, { error: `must be at least ${min} ${unit}` })
    .max(max, { error: `must be at most ${max} ${unit}` });

const callbackUrl = z
  .string({ error: "must be an https URL" })
  .refine(
    (v) => {
      try {
        return new URL(v).protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: "must be an https URL" },
  )
  .optional();

const topupFields = z
  .record(
    z.string().min(1, { error: "field names must not be empty" }),
    z.string({ error: "field values must be strings" }).min(1, { error: "field values must not be empty" }),
    { error: "must be an object of string values" },
  )
  .optional();

/** A field the product does not use: absent (or undefined, which JSON drops) only. */
const notSent = (product: string) => z.never({ error: `must not be sent for ${product}` }).optional();

const base = { custom_id: customId, callback_url: callbackUrl };

const starsSchema = z.strictObject({
  ...base,
  product: z.literal("stars"),
  recipient_username: username,
  quantity: quantity(50, 1_000_000, "stars"),
  gift_id: notSent("stars"),
  code: notSent("stars"),
  product_ref: notSent("stars"),
  fields: notSent("stars"),
});

const premiumSchema = z.strictObject({
  ...base,
  product: z.enum(["premium_3m", "premium_6m", "premium_12m"]),
  recipient_username: username,
  quantity: notSent("premium (the duration is set by the product)"),
  gift_id: notSent("premium"),
  code: notSent("premium"),
  product_ref: notSent("premium"),
  fields: notSent("premium"),
});

const giftSchema = z.strictObject({
  ...base,
  product: z.literal("gift"),
  recipient_username: username,
  gift_id: nonEmpty("a gift id from the gifts catalog"),
  quantity: notSent("gift"),
  code: notSent("gift"),
  product_ref: notSent("gift"),
  fields: notSent("gift"),
});

const steamSchema = z.strictObject({
  ...base,
  product: z.literal("steam"),
  recipient_username: steamLogin,
  quantity: quantity(50, 50_000, "roubles"),
  gift_id: notSent("steam"),
  code: notSent("steam"),
  product_ref: notSent("steam"),
  fields: notSent("steam"),
});

const neuralSchema = z.strictObject({
  ...base,
  product: z.literal("neural"),
  code: nonEmpty("a code from the neural catalog"),
  recipient_username: notSent("neural"),
  quantity: notSent("neural"),
  gift_id: notSent("neural"),
  product_ref: notSent("neural"),
  fields: notSent("neural"),
});

const gameSchema = z.strictObject({
  ...base,
  product: z.literal("game"),
  product_ref: nonEmpty("a package reference from the games catalog"),
  quantity: quantity(1, 10, "packages"),
  /** Required when the package's delivery is `topup`; the API names missing keys in a 400. */
  fields: topupFields,
  recipient_username: notSent("game"),
  gift_id: notSent("game"),
  code: notSent("game"),
});

export const createOrderRequestSchema: z.ZodType<CreateOrderRequest> = z.discriminatedUnion(
  "product",
  [starsSchema, premiumSchema, giftSchema, steamSchema, neuralSchema, gameSchema],
  {
    error: "must be one of stars, premium_3m, premium_6m, premium_12m, gift, steam, neural, game",
  },
);

function issuesOf(error: z.ZodError): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ field: path ? `${path}.${key}` : key, message: "is not a field of the create request" });
      }
    } else {
      out.push({ field: path || "(request)", message: issue.message });
    }
  }
  return out;
}

/**
 * Checks a create request against the spec's rules and returns it unchanged (minus keys whose
 * value is undefined, which would not be sent anyway). Throws `ResellerValidationError`
 * naming every bad field.
 */
export function validateCreateOrderRequest(req: unknown): CreateOrderRequest {
  if (typeof req !== "object" || req === null || Array.isArray(req)) {
    throw new ResellerValidationError([{ field: "(request)", message: "must be an object" }]);
  }
  const defined = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined));
  const result = createOrderRequestSchema.safeParse(defined);
  if (!result.success) throw new ResellerValidationError(issuesOf(result.error));
  return result.data;
}
