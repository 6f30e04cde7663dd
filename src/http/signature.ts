import { createHmac, timingSafeEqual } from "node:crypto";

/** `sha256=<hex>` HMAC-SHA256 of the raw body, as the reseller signs delivery webhooks. */
export function signBody(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}

/** Constant-time check of an `X-Signature` header against the raw body. */
export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, rawBody), "utf8");
  const given = Buffer.from(header.trim(), "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
