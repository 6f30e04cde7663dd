import { type DestinationStream, type Logger, pino, stdSerializers } from "pino";

export type { Logger };

/**
 * Creates the process logger. Known secret-bearing fields are redacted by path, and every
 * secret value is also scrubbed from any string that reaches a log line (error messages,
 * URLs with a bot token in them), so a secret cannot leak by accident.
 */
export function createLogger(
  opts: { level: string; secrets?: string[]; name?: string },
  destination?: DestinationStream,
): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 4);
  const scrub = (s: string): string => {
    let out = s;
    for (const secret of secrets) out = out.split(secret).join("[redacted]");
    return out;
  };
  return pino(
    {
      level: opts.level,
      name: opts.name,
      redact: {
        paths: [
          "token",
          "*.token",
          "apiKey",
          "*.apiKey",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
          "secret",
          "*.secret",
          "config.botToken",
          "config.resellerApiKey",
          "config.resellerWebhookSecret",
          "config.botWebhookSecret",
          "config.paymentProviderToken",
        ],
        censor: "[redacted]",
      },
      hooks: {
        streamWrite: secrets.length > 0 ? scrub : undefined,
      },
      serializers: { err: stdSerializers.err },
    },
    destination,
  );
}
