import type { IncomingHttpHeaders } from "node:http";
import { type Dispatcher, errors } from "undici";

/** One request whose whole answer is wanted as text. */
export interface WholeRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Told the status as soon as the headers arrive. */
  onStatus?: (status: number) => void;
}

export interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Sends one request through an undici dispatcher (a Pool) and collects its answer's bytes.
 *
 * The same as `pool.request()` followed by `body.text()`, without what a caller reading the
 * whole answer at once does not need: no response stream (undici's `request` builds a Readable
 * per answer and an async-hooks resource per request), only the chunks, joined once. In a rush
 * every Bot API call and reseller call goes through here, so that is a steady share of the
 * bot's garbage and CPU per update.
 *
 * Errors are undici's own (timeouts of the pool, network errors); a caller's `signal` aborts
 * the request with its reason, or undici's `RequestAbortedError`.
 */
export function requestWhole(
  dispatcher: Dispatcher,
  origin: string,
  req: WholeRequest,
): Promise<WholeAnswer> {
  return new Promise<WholeAnswer>((resolve, reject) => {
    const signal = req.signal;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    const abortReason = () => signal?.reason ?? new errors.RequestAbortedError();
    const onAbort = () => controller?.abort(abortReason());
    const finish = () => {
      settled = true;
      signal?.removeEventListener("abort", onAbort);
    };
    if (signal?.aborted) {
      reject(abortReason());
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (signal?.aborted) c.abort(abortReason());
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        // 1xx informational answers come first, then the answer itself.
        if (statusCode < 200) return;
        status = statusCode;
        headers = responseHeaders;
        req.onStatus?.(statusCode);
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settled) return;
        finish();
        const text =
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks).toString("utf8");
        resolve({ status, headers, text });
      },
      onResponseError(_c, err) {
        if (settled) return;
        finish();
        reject(err);
      },
    };
    try {
      dispatcher.dispatch(
        { origin, method: req.method, path: req.path, headers: req.headers, body: req.body },
        handler,
      );
    } catch (err) {
      finish();
      reject(err);
    }
  });
}
