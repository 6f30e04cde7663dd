/**
 * Our own normalised view of the reseller API (../../shared/reseller-api.md). Everything the
 * rest of the bot knows about the API goes through these types; `raw` keeps the fields we
 * do not model, so unknown extras are never lost.
 */

/** Values of `product` accepted by `create`. */
export const RESELLER_PRODUCTS = [
  "stars",
  "premium_3m",
  "premium_6m",
  "premium_12m",
  "gift",
  "steam",
  "neural",
  "game",
] as const;
export type ResellerProduct = (typeof RESELLER_PRODUCTS)[number];

/** Months of Telegram Premium each `premium_*` product buys. */
export const PREMIUM_MONTHS = { premium_3m: 3, premium_6m: 6, premium_12m: 12 } as const satisfies Partial<
  Record<ResellerProduct, number>
>;

/** Months of Premium a product buys; undefined for other products. */
export function premiumMonths(product: string): number | undefined {
  return (PREMIUM_MONTHS as Record<string, number | undefined>)[product];
}

/** The body of POST /api/reseller/order/create (validated by `createOrderRequestSchema`). */
export interface CreateOrderRequest {
  custom_id: string;
  product: ResellerProduct;
  recipient_username?: string;
  quantity?: number;
  gift_id?: string;
  code?: string;
  product_ref?: string;
  fields?: Record<string, string>;
  callback_url?: string;
}

export interface CreateOrderResult {
  customId: string;
  status: string;
  totalToPayRub: number;
  raw: Record<string, unknown>;
}

export interface PayOrderResult {
  customId: string;
  status: string;
  priceChargedRub: number;
  raw: Record<string, unknown>;
}

/** GET /api/reseller/order/{custom_id}: the source of truth for an order. */
export interface ResellerOrder {
  customId: string;
  /** `created`, `pending`, `delivered`, `failed`, or a status the spec does not show. */
  status: string;
  deliveredPayload: Record<string, unknown> | null;
  errorMessage: string | null;
  raw: Record<string, unknown>;
}

export interface Balance {
  balanceRub: number;
  balanceNano: number | null;
}

/** One entry of GET /api/reseller/products (field names not given by the spec; normalised). */
export interface ProductItem {
  id: string;
  title: string | null;
  wholesalePriceRub: number | null;
  raw: Record<string, unknown>;
}

export interface Gift {
  giftId: string;
  emoji: string;
  starCount: number;
  /** null when the gift is not limited. */
  remainingCount: number | null;
  wholesalePriceRub: number;
  raw: Record<string, unknown>;
}

export interface NeuralItem {
  code: string;
  title: string;
  emoji: string;
  delivery: string;
  wholesalePriceRub: number;
  raw: Record<string, unknown>;
}

export interface Game {
  key: string;
  title: string;
  raw: Record<string, unknown>;
}

export interface GameRegion {
  code: string;
  title: string;
  raw: Record<string, unknown>;
}

export interface GamePackage {
  productRef: string;
  title: string;
  wholesalePriceRub: number;
  raw: Record<string, unknown>;
}

export interface GameRegionCatalog {
  delivery: "codes" | "topup";
  /** Keys `fields` must carry in `create` for a top-up package. */
  fields: string[];
  packages: GamePackage[];
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** One method per endpoint of the API. Errors are `ResellerApiError` or `ResellerValidationError`. */
export interface ResellerClient {
  products(opts?: RequestOptions): Promise<ProductItem[]>;
  gifts(opts?: RequestOptions): Promise<Gift[]>;
  neural(opts?: RequestOptions): Promise<NeuralItem[]>;
  games(opts?: RequestOptions): Promise<Game[]>;
  gameRegions(game: string, opts?: RequestOptions): Promise<GameRegion[]>;
  gamePackages(game: string, region: string, opts?: RequestOptions): Promise<GameRegionCatalog>;
  balance(opts?: RequestOptions): Promise<Balance>;
  /** Validates the request first (no request is sent when it is invalid). Retries reuse the same custom_id. */
  createOrder(req: CreateOrderRequest, opts?: RequestOptions): Promise<CreateOrderResult>;
  payOrder(customId: string, opts?: RequestOptions): Promise<PayOrderResult>;
  getOrder(customId: string, opts?: RequestOptions): Promise<ResellerOrder>;
  close(): Promise<void>;
}
