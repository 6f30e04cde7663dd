import type { IncomingHttpHeaders } from "node:http";
import { Pool } from "undici";
import { requestWhole } from "./read-whole.js";
import { truncate } from "./redact.js";
import type { AttemptFailure, AttemptOutcome } from "./retry.js";

/** The API's origin (for the pool) and path prefix (prepended to every request path). */
export interface ApiBase {
  origin: string;
  prefix: string;
}

/**
 * Reads an API's base URL; `label` and `envName` make the error say what to fix, e.g.
 * "YooKassa API URL is not a valid URL — check YOOKASSA_API_URL".
 */
export function parseApiBase(url: string, label: string, envName: string): ApiBase {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new Error(`${label} is not a valid URL — check ${envName}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new Error(`${label} must be http(s) — check ${envName}`);
  }
  return { origin: base.origin, prefix: base.pathname.replace(/\/+$/, "") };
}

/** The timeouts of a client's pool, part of each client's options. */
export interface ApiTimeouts {
  /** Defaults 5000 / 10000 / 10000 ms. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** A keep-alive undici Pool for one origin, one request at a time on each of `connections`. */
export function createApiPool(origin: string, connections: number, opts: ApiTimeouts): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
    connect: { timeout: opts.connectTimeoutMs ?? 5_000 },
  });
}

export interface JsonRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** The JSON text to send; a retry sends the very same bytes. */
  body?: string;
  signal?: AbortSignal;
  /** Told the status as soon as the headers arrive, so a body that then times out is still logged with it. */
  onStatus?: (status: number) => void;
}

export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The raw text of the body. */
  text: string;
  /** The parsed JSON, or the text (cut to 2000 characters) when it is not JSON. */
  body: unknown;
  parsed: boolean;
}

/**
 * Sends one request through the pool and reads the whole answer. The pool's headers and body
 * timeouts and the caller's signal bound it; any of them, or a network error, makes it throw.
 */
export async function requestJson(pool: Pool, base: ApiBase, req: JsonRequest): Promise<JsonResponse> {
  const res = await requestWhole(pool, base.origin, {
    method: req.method,
    path: base.prefix + req.path,
    headers: req.headers,
    body: req.body,
    signal: req.signal,
    onStatus: req.onStatus,
  });
  const text = res.text;
  let body: unknown = truncate(text, 2_000);
  let parsed = false;
  try {
    body = JSON.parse(text);
    parsed = true;
  } catch {
    // Not JSON: kept as (truncated) text for the error.
  }
  return { status: res.status, headers: res.headers, text, body, parsed };
}

/** What the client makes of an answer: its result, or a failure it classified. */
export type AnswerVerdict<T, E> = { ok: true; value: T } | ({ ok: false } & AttemptFailure<E>);

/**
 * One attempt of a call: sends the request, lets the client judge the answer (`judge`) or the
 * error thrown when none came (`transportFailure`), and keeps the status for logs and metrics,
 * even when the body then timed out.
 */
export async function attemptJson<T, E>(
  pool: Pool,
  base: ApiBase,
  req: JsonRequest,
  judge: (res: JsonResponse) => AnswerVerdict<T, E>,
  transportFailure: (err: unknown) => AttemptFailure<E>,
): Promise<AttemptOutcome<T, E>> {
  let status: number | null = null;
  let verdict: AnswerVerdict<T, E>;
  try {
    const res = await requestJson(pool, base, {
      ...req,
      onStatus: (s) => {
        status = s;
        req.onStatus?.(s);
      },
    });
    verdict = judge(res);
  } catch (err) {
    verdict = { ok: false, ...transportFailure(err) };
  }
  return { ...verdict, status };
}
