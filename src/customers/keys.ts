/**
 * What the bot knows of its customers besides orders and wallets, built in one place (every key
 * under the configured prefix P):
 *
 *   P cust:<userId>            hash { username, name (first name) } as the customer last wrote;
 *                              the broadcast registry (registry.ts) keeps its own fields in it
 *   P cust:name:<username>     the user id last seen with this username (lower-case)
 *   P cust:notes:<userId>      list of operator notes (JSON { by, at, text }), newest first
 *   P bans                     hash userId → JSON { by, at } of banned customers
 *   P bans:told                hash userId → when a banned customer was told so
 */
export interface CustomerKeys {
  profile(userId: number): string;
  username(name: string): string;
  notes(userId: number): string;
  readonly bans: string;
  readonly told: string;
}

export function customerKeys(prefix: string): CustomerKeys {
  return {
    profile: (userId) => `${prefix}cust:${userId}`,
    username: (name) => `${prefix}cust:name:${name.toLowerCase()}`,
    notes: (userId) => `${prefix}cust:notes:${userId}`,
    bans: `${prefix}bans`,
    told: `${prefix}bans:told`,
  };
}
