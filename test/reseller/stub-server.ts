import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the stub does with one request: answer, hang (never answer), or drop the connection. */
export type StubAction =
  | { status: number; body?: unknown; headers?: Record<string, string>; raw?: string }
  | "hang"
  | "reset";

export interface StubServer {
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A tiny real HTTP server for client tests: `respond` decides each answer from the request
 * and its 0-based index; every request is recorded (headers included, to check what was sent).
 */
export async function startStub(
  respond: (req: StubRequest, index: number) => StubAction,
): Promise<StubServer> {
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec: StubRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const action = respond(rec, requests.length);
      requests.push(rec);
      if (action === "hang") return;
      if (action === "reset") {
        req.socket.destroy();
        return;
      }
      const text = action.raw ?? (action.body === undefined ? "" : JSON.stringify(action.body));
      res.writeHead(action.status, { "content-type": "application/json", ...action.headers });
      res.end(text);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
