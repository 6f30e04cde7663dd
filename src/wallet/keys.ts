/**
 * The wallet's Redis layout, built in one place (every key under the configured prefix P, which in
 * cluster mode carries the hash tag, so one script may touch all of a wallet's keys):
 *
 *   P wallet:<userId>          hash { balance: kopecks, v: number of entries (the last entry's seq) }
 *   P wallet:<userId>:entries  list of entry JSON, newest first (never trimmed: the balance is their sum)
 *   P wallet:<userId>:refs     hash ref → entry JSON, so an operation applied twice is applied once
 */
export interface WalletKeys {
  wallet(userId: number): string;
  entries(userId: number): string;
  refs(userId: number): string;
}

export function walletKeys(prefix: string): WalletKeys {
  return {
    wallet: (userId) => `${prefix}wallet:${userId}`,
    entries: (userId) => `${prefix}wallet:${userId}:entries`,
    refs: (userId) => `${prefix}wallet:${userId}:refs`,
  };
}
