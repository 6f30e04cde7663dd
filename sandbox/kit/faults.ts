/**
 * Injected faults of the sandboxes: answer 500 or 429 (and the like), hang without an answer,
 * reset the connection, or do the work and lose the response. Tests arm them per endpoint for a
 * number of requests.
 */
import type http from "node:http";
import type { Reply } from "./http.js";
import { sendJson } from "./http.js";
import type { SandboxServer } from "./server.js";

interface Armed<M> {
  method: string | null;
  path: string;
  prefix: boolean;
  mode: M;
  remaining: number;
}

/** Armed faults, each for the next `times` matching requests. */
export class FaultList<M extends string> {
  private armed: Armed<M>[] = [];

  /**
   * Arms `mode` for `endpoint`: "POST /api/x" (method and path), "/api/x" (any method), a path
   * ending in "*" for every path it starts, or "*" for all.
   */
  add(endpoint: string, mode: M, times = 1): void {
    const [first, second] = endpoint.trim().split(/\s+/, 2);
    const hasMethod = second !== undefined;
    let path = (hasMethod ? second : first) ?? "*";
    const prefix = path.endsWith("*");
    if (prefix) path = path.slice(0, -1);
    this.armed.push({
      method: hasMethod ? first!.toUpperCase() : null,
      path,
      prefix,
      mode,
      remaining: times,
    });
  }

  /** The fault armed for this request, if any, counting it as used. */
  take(method: string, path: string): M | null {
    const f = this.armed.find(
      (x) =>
        x.remaining > 0 &&
        (x.method === null || x.method === method) &&
        (x.prefix ? path.startsWith(x.path) : x.path === path),
    );
    if (!f) return null;
    f.remaining--;
    this.armed = this.armed.filter((x) => x.remaining > 0);
    return f.mode;
  }

  clear(): void {
    this.armed = [];
  }
}

/**
 * Acts out a fault that leaves no answer: "hang" keeps the socket open until the sandbox closes,
 * "reset" destroys it. `record` is told status 0. True when the request is done with.
 */
export function actOutSilentFault(
  fault: string | null,
  req: http.IncomingMessage,
  server: SandboxServer,
  record: (status: number) => void,
): boolean {
  if (fault === "hang") {
    record(0);
    server.hang(req);
    return true;
  }
  if (fault === "reset") {
    record(0);
    req.socket.destroy();
    return true;
  }
  return false;
}

/** Sends the reply, or, under "lose_response", drops the connection after the work was done. */
export function replyUnlessLost(
  fault: string | null,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  reply: Reply,
) {
  if (fault === "lose_response") req.socket.destroy();
  else sendJson(res, reply);
}
