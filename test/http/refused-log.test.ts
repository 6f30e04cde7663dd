import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { cryptopayWebhookHandler } from "../../src/http/payment-webhooks.js";
import { resellerWebhookHandler } from "../../src/http/reseller-webhook.js";
import { createLogger } from "../../src/logger.js";

/** Serves one handler on a loopback port; the URL and a way to close it. */
async function serve(
  handler: (
    req: import("node:http").IncomingMessage,
    res: import("node:http").ServerResponse,
  ) => Promise<void>,
) {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => server.close(r)) };
}

describe("webhooks refused for their signature", () => {
  it("say so in the log once, then at most every 30 s with how many came, however many arrive", async () => {
    const lines: { msg: string; repeats?: number }[] = [];
    const logger = createLogger({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const reseller = await serve(
      resellerWebhookHandler({ secret: "s3cret-hook", logger, onDeliveryHint: async () => true }),
    );
    const cryptopay = await serve(
      cryptopayWebhookHandler({ token: "1:AAcryptopay", logger, onHint: async () => undefined }),
    );
    try {
      for (let i = 0; i < 25; i++) {
        const a = await fetch(`${reseller.url}/`, {
          method: "POST",
          body: "{}",
          headers: { "x-signature": "sha256=00" },
        });
        expect(a.status).toBe(401);
        const b = await fetch(`${cryptopay.url}/`, { method: "POST", body: "{}" });
        expect(b.status).toBe(401);
      }
    } finally {
      await reseller.close();
      await cryptopay.close();
    }
    const refused = lines.filter((l) => /signature refused/.test(l.msg));
    expect(refused.map((l) => [l.msg, l.repeats])).toEqual([
      ["delivery webhook with a missing or wrong signature refused", 1],
      ["Crypto Pay update with a missing or wrong signature refused", 1],
    ]);
  });
});
