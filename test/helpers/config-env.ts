import { ConfigError, createConfig } from "../../src/config.js";

/** The four required variables, with placeholder values: the smallest configuration the bot accepts. */
export const minimalEnv: Record<string, string> = {
  BOT_TOKEN: "123:abc",
  RESELLER_API_URL: "https://reseller.example.com",
  RESELLER_API_KEY: "key",
  OPERATOR_IDS: "1",
};

/** What the one config error names for `env`: variable → message (empty when it is accepted). */
export function problemsOf(env: Record<string, string>): Map<string, string> {
  try {
    createConfig(env);
    return new Map();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return new Map(err.problems.map((p) => [p.variable, p.message]));
  }
}
