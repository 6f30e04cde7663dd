import { createHmac, timingSafeEqual } from "node:crypto";

/** Constant-time comparison of a secret someone sent with the expected one; false when either is missing. */
export function safeEqual(given: string | undefined, expected: string | undefined): boolean {
  if (given === undefined || !expected) return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `sha256=<hex>` HMAC-SHA256 of the raw body, as the reseller signs delivery webhooks. */
export function signBody(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}

/**
 * Constant-time check of an `X-Signature` header against the raw body. Hex digits compare in
 * either case (the spec does not say which a signer writes); the `sha256=` prefix as written.
 */
export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const given = header.trim();
  const prefix = "sha256=";
  if (!given.startsWith(prefix)) return false;
  return safeEqual(prefix + given.slice(prefix.length).toLowerCase(), signBody(secret, rawBody));
}
