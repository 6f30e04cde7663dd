import { ResellerValidationError } from "./errors.js";
import { createTransport, type ResellerClientOptions } from "./http.js";
import {
  parseGames,
  parseGifts,
  parseNeural,
  parsePackages,
  parseProducts,
  parseRegions,
} from "./parse-catalog.js";
import { layers } from "./parse-common.js";
import { parseBalance, parseCreateOrder, parseOrder, parsePayOrder } from "./parse-orders.js";
import { validateCreateOrderRequest } from "./requests.js";
import type { RequestOptions, ResellerClient } from "./types.js";

export type { ResellerClientOptions } from "./http.js";

/** The order statuses the spec shows (§3). */
const ORDER_STATUSES = ["created", "pending", "delivered", "failed"];

function requireId(field: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ResellerValidationError([{ field, message: "is required: a non-empty string" }]);
  }
  return value;
}

/**
 * The reseller API client: one method per endpoint, one keep-alive connection pool for the
 * API's origin. Every call is retried with jittered exponential backoff on network errors,
 * timeouts, 5xx and 429 (honouring Retry-After); a 4xx is never retried. Retrying create is
 * safe because the retry sends the same body, so the same custom_id: the API treats a repeat as
 * the same order. `pay` is sent once per call: its caller reads the order before paying again.
 * The API key goes into the Authorization header only and is scrubbed from anything the client
 * logs or puts into an error.
 */
export function createResellerClient(opts: ResellerClientOptions): ResellerClient {
  const { call, close: closePool } = createTransport(opts);

  const get = <T>(endpoint: string, path: string, parse: (b: unknown) => T, o?: RequestOptions) =>
    call({ method: "GET", endpoint, path, parse, signal: o?.signal });

  return {
    products: (o) => get("GET /api/reseller/products", "/api/reseller/products", parseProducts, o),
    gifts: (o) => get("GET /api/reseller/gifts", "/api/reseller/gifts", parseGifts, o),
    neural: (o) => get("GET /api/reseller/neural", "/api/reseller/neural", parseNeural, o),
    games: (o) => get("GET /api/reseller/games", "/api/reseller/games", parseGames, o),
    async gameRegions(game, o) {
      const q = new URLSearchParams({ game: requireId("game", game) });
      return get("GET /api/reseller/games?game={game}", `/api/reseller/games?${q}`, parseRegions, o);
    },
    async gamePackages(game, region, o) {
      const q = new URLSearchParams({ game: requireId("game", game), region: requireId("region", region) });
      return get(
        "GET /api/reseller/games?game={game}&region={region}",
        `/api/reseller/games?${q}`,
        parsePackages,
        o,
      );
    },
    balance: (o) => get("GET /api/reseller/balance", "/api/reseller/balance", parseBalance, o),
    async createOrder(req, o) {
      const body = validateCreateOrderRequest(req);
      return call({
        method: "POST",
        endpoint: "POST /api/reseller/order/create",
        path: "/api/reseller/order/create",
        body,
        signal: o?.signal,
        parse: (b) => parseCreateOrder(b, body.custom_id),
      });
    },
    async payOrder(customId, o) {
      const id = requireId("custom_id", customId);
      return call({
        method: "POST",
        endpoint: "POST /api/reseller/order/pay",
        path: "/api/reseller/order/pay",
        body: { custom_id: id },
        signal: o?.signal,
        parse: (b) => parsePayOrder(b, id),
        // Not repeated here: a pay that got no answer may have charged the deposit, and the caller
        // reads the order before asking again (orders/steps.ts `submitPay`), so an answer lost after
        // the charge costs no second pay.
        retries: 0,
      });
    },
    async getOrder(customId, o) {
      const id = requireId("custom_id", customId);
      return call({
        method: "GET",
        endpoint: "GET /api/reseller/order/{custom_id}",
        path: `/api/reseller/order/${encodeURIComponent(id)}`,
        parse: (b) => parseOrder(b, id),
        signal: o?.signal,
        // The record of a failed order may come marked `success: false`: it still says the order
        // failed. Only a record of this order (its custom_id) counts, so an error body whose
        // `status` is the answer's own ("failed": the read failed) is not taken for the order's.
        answerDespiteFailure: (order) =>
          ORDER_STATUSES.includes(order.status) &&
          layers(order.raw, ["order"]).some((l) => String(l.custom_id ?? "") === id),
      });
    },
    async close() {
      await closePool();
    },
  };
}
