import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import {
  type CryptoPaySandbox,
  type CryptoPaySandboxOptions,
  startCryptoPaySandbox,
} from "../../../sandbox/cryptopay/server.js";
import {
  type CryptoPayClient,
  type CryptoPayClientOptions,
  createCryptoPayClient,
} from "../../../src/payments/cryptopay/index.js";

export const TOKEN = "12345:AAsandboxCryptoPayTokenSECRET";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A sandbox closed after the test. */
export async function sandbox(opts: Partial<CryptoPaySandboxOptions> = {}): Promise<CryptoPaySandbox> {
  const sb = await startCryptoPaySandbox({ token: TOKEN, webhookRetryDelayMs: 10, ...opts });
  open.push(sb);
  return sb;
}

/** A client of `sb`, closed after the test, with short retries and timeouts. */
export function client(sb: CryptoPaySandbox, opts: Partial<CryptoPayClientOptions> = {}): CryptoPayClient {
  const c = createCryptoPayClient({
    apiUrl: sb.apiUrl,
    token: TOKEN,
    retryBaseDelayMs: 5,
    headersTimeoutMs: 500,
    bodyTimeoutMs: 500,
    ...opts,
  });
  open.push(c);
  return c;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/** An HTTP receiver of Crypto Pay updates that keeps each request's raw bytes and answers `status`. */
export async function receiver(status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks/cryptopay`, received };
}

/** The rejection of `p`; fails the test when `p` resolves. */
export async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}
