/**
 * A round-robin HTTP load balancer for the two-process drill, standing in for the nginx
 * `upstream` block of README "Running several processes": each request goes to the next bot
 * process; one that refuses the connection (it is down) is skipped for the next, as nginx's
 * `proxy_next_upstream error` does. A request that fails once sent gets 502, so the sender
 * (Telegram, the reseller) delivers it again.
 */
import { createServer } from "node:http";

export interface Balancer {
  /** http://127.0.0.1:port */
  url: string;
  /** Listener ports of the bot processes, in turn. */
  upstreams: number[];
  /** Requests each upstream answered, by port. */
  answered: Map<number, number>;
  close(): Promise<void>;
}

function refused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return cause?.code === "ECONNREFUSED";
}

export async function startBalancer(port: number): Promise<Balancer> {
  const upstreams: number[] = [];
  const answered = new Map<number, number>();
  let turn = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers[k] = v;
    }
    const first = turn++;
    for (let i = 0; i < upstreams.length; i++) {
      const up = upstreams[(first + i) % upstreams.length] as number;
      try {
        const answer = await fetch(`http://127.0.0.1:${up}${req.url ?? "/"}`, {
          method: req.method ?? "GET",
          headers,
          ...(body.length > 0 ? { body } : {}),
          signal: AbortSignal.timeout(30_000),
        });
        const text = Buffer.from(await answer.arrayBuffer());
        answered.set(up, (answered.get(up) ?? 0) + 1);
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(text);
        return;
      } catch (err) {
        if (!refused(err)) break;
      }
    }
    res.writeHead(502);
    res.end("no upstream answered");
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    upstreams,
    answered,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
