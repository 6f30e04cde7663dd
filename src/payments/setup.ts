import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { RedisClient } from "../redis/connect.js";
import type { ReplicaWait } from "../redis/replica-wait.js";
import { WalletLedger } from "../wallet/ledger.js";
import { createCryptoPayClient } from "./cryptopay/client.js";
import { cryptopayGateway } from "./cryptopay/gateway.js";
import type { PaymentGateways } from "./gateway.js";
import { createYooKassaClient } from "./yookassa/client.js";
import { yookassaGateway } from "./yookassa/gateway.js";

/** The payment rails CHECKOUT offers beyond Telegram's own: provider gateways and the wallet. */
export interface PaymentRails {
  gateways: PaymentGateways;
  /** Present when CHECKOUT offers `wallet`. */
  wallet?: WalletLedger;
  close(): Promise<void>;
}

export function createPaymentRails(
  config: Config,
  deps: {
    redis: RedisClient;
    logger: Logger;
    replicaWait?: ReplicaWait;
    /** Where a customer returns after paying on a provider's page (the bot's t.me link). */
    returnUrl: () => string;
  },
): PaymentRails {
  const gateways: PaymentGateways = {};
  const closers: (() => Promise<void>)[] = [];
  const offered = (rail: Config["checkout"][number]) => config.checkout.includes(rail);
  if (offered("yookassa") && config.yookassaShopId && config.yookassaSecretKey) {
    const client = createYooKassaClient({
      apiUrl: config.yookassaApiUrl,
      shopId: config.yookassaShopId,
      secretKey: config.yookassaSecretKey,
      logger: deps.logger,
    });
    gateways.yookassa = yookassaGateway(client, { returnUrl: deps.returnUrl });
    closers.push(() => client.close());
  }
  if (offered("cryptopay") && config.cryptopayToken) {
    const client = createCryptoPayClient({
      apiUrl: config.cryptopayApiUrl,
      token: config.cryptopayToken,
      logger: deps.logger,
    });
    gateways.cryptopay = cryptopayGateway(client);
    closers.push(() => client.close());
  }
  const wallet = offered("wallet")
    ? new WalletLedger(deps.redis, config.redisPrefix, { replicaWait: deps.replicaWait })
    : undefined;
  return {
    gateways,
    wallet,
    async close() {
      await Promise.all(closers.map((c) => c().catch(() => {})));
    },
  };
}
