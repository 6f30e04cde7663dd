import { describe, expect, it } from "vitest";
import { parseEnv } from "../../../sandbox/cryptopay/cli.js";

describe("Crypto Pay sandbox CLI configuration", () => {
  it("takes defaults from an empty environment", () => {
    expect(parseEnv({})).toEqual({
      opts: {
        port: 8083,
        host: "127.0.0.1",
        token: "sandbox-cryptopay-token",
        webhookUrl: undefined,
        publicUrl: undefined,
      },
    });
  });

  it("names every bad variable at once", () => {
    const r = parseEnv({
      CRYPTOPAY_SANDBOX_PORT: "70000",
      CRYPTOPAY_WEBHOOK_URL: "ftp://x",
      CRYPTOPAY_SANDBOX_PUBLIC_URL: "nope",
    });
    expect("errors" in r && r.errors.map((e) => e.split(" ")[0])).toEqual([
      "CRYPTOPAY_SANDBOX_PORT",
      "CRYPTOPAY_WEBHOOK_URL",
      "CRYPTOPAY_SANDBOX_PUBLIC_URL",
    ]);
  });
});
