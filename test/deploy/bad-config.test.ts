import { describe, expect, it } from "vitest";
import { spawnApp } from "../helpers/app-process.js";

const API_KEY = "bad-config-api-key-0d9e4f";
const WEBHOOK_SECRET = "bad-config-reseller-secret-77aa1";
const BAD_BOT_SECRET = "not allowed: spaces and punctuation 5f2c";

describe("starting with a bad environment", () => {
  it("exits 1 with one message naming every bad variable, no stack trace and no secret", async () => {
    const app = spawnApp({
      // BOT_TOKEN missing
      RESELLER_API_URL: "not a url",
      RESELLER_API_KEY: API_KEY,
      RESELLER_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_BASE_URL: "http://shop.example.com",
      OPERATOR_IDS: "12,alice",
      HTTP_PORT: "99999",
      BOT_MODE: "webhook",
      BOT_WEBHOOK_SECRET: BAD_BOT_SECRET,
      CHECKOUT: "invoice,yookassa,cryptopay",
      PRODUCTS: "stars,caviar",
      LOG_LEVEL: "info",
    });
    const { code } = await app.waitForExit(20_000);
    const stderr = app.stderr();

    expect(code).toBe(1);
    expect(stderr).toMatch(/^Invalid configuration:/);
    const named = stderr
      .split("\n")
      .map((line) => /^ {2}- ([A-Z_]+): /.exec(line)?.[1])
      .filter(Boolean);
    expect(named.sort()).toEqual(
      [
        "BOT_TOKEN",
        "BOT_WEBHOOK_SECRET",
        "BOT_WEBHOOK_URL",
        "HTTP_PORT",
        "OPERATOR_IDS",
        "PAYMENT_PROVIDER_TOKEN",
        "YOOKASSA_SHOP_ID",
        "YOOKASSA_SECRET_KEY",
        "CRYPTOPAY_TOKEN",
        "PRODUCTS",
        "PUBLIC_BASE_URL",
        "RESELLER_API_URL",
      ].sort(),
    );
    expect(stderr).toContain("BOT_TOKEN: is required");
    expect(stderr).toContain("BOT_WEBHOOK_URL: is required when BOT_MODE=webhook");
    expect(stderr).toContain("PAYMENT_PROVIDER_TOKEN: is required when CHECKOUT contains invoice");
    expect(stderr).toContain("YOOKASSA_SECRET_KEY: is required when CHECKOUT contains yookassa");
    expect(stderr).toContain("CRYPTOPAY_TOKEN: is required when CHECKOUT contains cryptopay");
    expect(stderr).toMatch(/OPERATOR_IDS: .*"alice"/);
    expect(stderr).toMatch(/HTTP_PORT: .*65535/);
    expect(stderr).toMatch(/PRODUCTS: .*caviar/);

    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toMatch(/Error:|ZodError/);
    for (const secret of [API_KEY, WEBHOOK_SECRET, BAD_BOT_SECRET]) {
      expect(stderr).not.toContain(secret);
      expect(app.stdout()).not.toContain(secret);
    }
    // Nothing started: no log line was written.
    expect(app.stdout()).toBe("");
  });

  it("exits 1 naming the missing required variables when the environment is empty", async () => {
    const app = spawnApp({});
    const { code } = await app.waitForExit(20_000);
    expect(code).toBe(1);
    for (const name of ["BOT_TOKEN", "RESELLER_API_URL", "RESELLER_API_KEY", "OPERATOR_IDS"]) {
      expect(app.stderr()).toMatch(new RegExp(`^ {2}- ${name}: is required`, "m"));
    }
    expect(app.stderr()).not.toMatch(/^\s+at /m);
  });
});
