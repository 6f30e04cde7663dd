/** Keeps secrets out of error messages, error bodies and logs, and long texts out of messages. */

/** The first `max` characters of `s`, with an ellipsis when it was longer. */
export function truncate(s: string, max = 300): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export interface Redactor {
  /** The text with every secret replaced by "[redacted]". */
  text(s: string): string;
  /** A parsed body with every secret replaced by "[redacted]" inside its strings. */
  value(v: unknown): unknown;
}

/**
 * Redaction of the given secrets (API key, token, Authorization header value), so an echoing
 * server or proxy cannot leak them into logs or errors. A secret shorter than 4 characters is not
 * replaced: it would match ordinary text.
 */
export function createRedactor(...secrets: string[]): Redactor {
  const active = secrets.filter((s) => s.length >= 4);
  return {
    text(s) {
      let out = s;
      for (const secret of active) out = out.split(secret).join("[redacted]");
      return out;
    },
    value(v) {
      if (v === undefined || active.length === 0) return v;
      let json = JSON.stringify(v);
      if (json === undefined) return v;
      let changed = false;
      for (const secret of active) {
        const escaped = JSON.stringify(secret).slice(1, -1);
        if (json.includes(escaped)) {
          json = json.split(escaped).join("[redacted]");
          changed = true;
        }
      }
      return changed ? JSON.parse(json) : v;
    },
  };
}
