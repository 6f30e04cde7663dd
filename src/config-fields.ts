import { isIP } from "node:net";
import { z } from "zod";

/**
 * The kinds of value an environment variable of config.ts holds, as zod schemas over the raw
 * string: each turns "not set" (absent or empty) into its default or `undefined`, and a bad
 * value into one issue that says what the variable must be and what it got.
 */

/** Empty strings in the environment mean "not set". */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

export const requiredString = z.string({ error: "is required" }).trim().min(1, { error: "is required" });

export const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { error: `must be a URL (${protocols.map((p) => p.replace(":", "")).join(" or ")})` },
    );

export const optionalUrl = (protocols: string[]) =>
  optionalString.pipe(z.union([z.undefined(), url(protocols)]));

/**
 * A URL that paths are appended to (an API root, the listener's public address): a ?query,
 * #fragment or user:password@ would swallow or break every address made from it.
 */
export const baseUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      const kinds = protocols.map((p) => p.replace(":", "")).join(" or ");
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        u = new URL("invalid:");
      }
      if (!protocols.includes(u.protocol)) {
        ctx.addIssue({ code: "custom", message: `must be a URL (${kinds})` });
      } else if (u.search || u.hash || u.username || u.password || v.includes("?") || v.includes("#")) {
        ctx.addIssue({
          code: "custom",
          message: `must be a base URL (${kinds}) without ?query, #fragment or user:password@ (paths are appended to it)`,
        });
      }
    });

export const optionalBaseUrl = (protocols: string[]) =>
  optionalString.pipe(z.union([z.undefined(), baseUrl(protocols)]));

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

export const number = (def: number, opts: { min?: number; max?: number; int?: boolean } = {}) =>
  optionalString.transform((v, ctx) => {
    if (v === undefined) return def;
    // Plain decimals only: Number() would also read "0x50" as 80, "1e3" as 1000 and "0b11" as 3.
    const n = DECIMAL.test(v) ? Number(v) : Number.NaN;
    const bad =
      !Number.isFinite(n) ||
      (opts.int && !Number.isInteger(n)) ||
      (opts.min !== undefined && n < opts.min) ||
      (opts.max !== undefined && n > opts.max);
    if (bad) {
      const kind = opts.int ? "a whole number" : "a number";
      const range =
        opts.min !== undefined && opts.max !== undefined
          ? `${kind} from ${opts.min} to ${opts.max}`
          : opts.min !== undefined
            ? `${kind} ≥ ${opts.min}`
            : opts.max !== undefined
              ? `${kind} ≤ ${opts.max}`
              : kind;
      ctx.addIssue({ code: "custom", message: `must be ${range}, got "${v}"` });
      return z.NEVER;
    }
    return n;
  });

export const idList = (label: string) =>
  optionalString.transform((v, ctx) => {
    if (v === undefined) return [] as number[];
    const parts = v
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    // Telegram user ids are positive; past 2^53 a number would silently become another id.
    const bad = parts.filter(
      (p) => !/^\d{1,16}$/.test(p) || !Number.isSafeInteger(Number(p)) || Number(p) <= 0,
    );
    if (bad.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `${label} must be positive whole numbers, not ${bad.map((b) => `"${b}"`).join(", ")}`,
      });
      return z.NEVER;
    }
    return parts.map(Number);
  });

export interface HostPort {
  host: string;
  port: number;
}

/** `host:port,host:port,…` (a host may be a name, an IPv4 address or a bracketed IPv6 address). */
export const hostPortList = optionalString.transform((v, ctx) => {
  if (v === undefined) return [] as HostPort[];
  const parts = v.split(",").map((p) => p.trim());
  const nodes: HostPort[] = [];
  const bad: string[] = [];
  for (const part of parts) {
    const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/.exec(part);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) bad.push(part);
    else nodes.push({ host: m[1]!.replace(/^\[|\]$/g, ""), port });
  }
  if (bad.length > 0) {
    ctx.addIssue({
      code: "custom",
      message: `must be a comma-separated list of host:port, not ${bad.map((b) => `"${b}"`).join(", ")}`,
    });
    return z.NEVER;
  }
  return nodes;
});

/**
 * A host to listen on: an IP address (v4 or v6) or a host name. A dotted quad that is no IPv4
 * address ("999.1.1.1") is refused here rather than by the listener after start-up.
 */
export const host = (def: string) =>
  optionalString.transform((v, ctx) => {
    if (v === undefined) return def;
    const name = /^\w(?:[\w-]{0,61}\w)?(?:\.\w(?:[\w-]{0,61}\w)?)*$/;
    const numeric = /^[\d.]+$/.test(v);
    if (isIP(v) === 0 && (numeric || !name.test(v) || v.length > 253)) {
      ctx.addIssue({ code: "custom", message: `must be an IP address or a host name, got "${v}"` });
      return z.NEVER;
    }
    return v;
  });

export const enumOf = <T extends readonly [string, ...string[]]>(values: T, def: T[number]) =>
  optionalString.transform((v, ctx) => {
    if (v === undefined) return def;
    const lower = v.toLowerCase();
    if (!(values as readonly string[]).includes(lower)) {
      ctx.addIssue({ code: "custom", message: `must be one of ${values.join(", ")}, got "${v}"` });
      return z.NEVER;
    }
    return lower as T[number];
  });

/** Every bad variable of an environment at once, each with all that is wrong with it. */
export class ConfigError extends Error {
  readonly problems: { variable: string; message: string }[];

  constructor(issues: readonly z.core.$ZodIssue[], env: Record<string, string | undefined>) {
    const seen = new Map<string, string[]>();
    for (const issue of issues) {
      const variable = String(issue.path[0] ?? "environment");
      const message =
        issue.code === "invalid_type" && env[variable] === undefined ? "is required" : issue.message;
      const list = seen.get(variable) ?? [];
      if (!list.includes(message)) list.push(message);
      seen.set(variable, list);
    }
    const problems = [...seen].map(([variable, msgs]) => ({ variable, message: msgs.join("; ") }));
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.message}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** The password in a URL (`redis://user:pass@host`), as written and as sent (percent-decoded). */
export function urlCredentials(url: string): string[] {
  try {
    const { password } = new URL(url);
    if (!password) return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // A malformed escape is sent as written.
    }
    return [password, decoded];
  } catch {
    return [];
  }
}
