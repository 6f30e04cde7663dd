import { describe, expect, it } from "vitest";
import { createConfig, secretsOf } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { minimalEnv } from "../helpers/config-env.js";

describe("secrets in log lines", () => {
  it("keeps a password given in REDIS_URL out of them, as written and as sent", () => {
    const config = createConfig({ ...minimalEnv, REDIS_URL: "redis://shop:Pw%40Secret9@127.0.0.1:6399/0" });
    const lines: string[] = [];
    const logger = createLogger(
      { level: "info", secrets: secretsOf(config) },
      { write: (line: string) => lines.push(line) },
    );
    // ioredis puts the AUTH command, with its arguments, on the error of a refused login.
    const err = Object.assign(new Error("WRONGPASS invalid username-password pair"), {
      command: { name: "auth", args: ["shop", "Pw@Secret9"] },
      previousErrors: [{ command: { name: "auth", args: ["shop", "Pw@Secret9"] } }],
    });
    logger.error({ err, url: config.redisUrl }, "redis connection error");
    const out = lines.join("");
    expect(out).toContain("redis connection error");
    expect(out).not.toContain("Pw@Secret9");
    expect(out).not.toContain("Pw%40Secret9");
  });
});
