/**
 * The referral programme's Redis layout, built in one place (every key under the configured
 * prefix P, which in cluster mode carries the hash tag, so one script may touch them together):
 *
 *   P ref:code:<code>        the user id whose invite code this is
 *   P ref:user:<userId>      hash { code, by: referrer's user id, at: when attached,
 *                                   joined: customers attached through this user's link,
 *                                   orders: their delivered orders that earned a bonus,
 *                                   earned: kopecks credited for them }
 *   P ref:earned:<userId>    hash orderId → kopecks credited to this referrer for that order
 *                            (so each order is counted once in `orders` and `earned`)
 *   P ref:told:<userId>      hash orderId → when the referrer was told of that bonus
 */
export interface ReferralKeys {
  code(code: string): string;
  user(userId: number): string;
  earned(userId: number): string;
  told(userId: number): string;
}

export function referralKeys(prefix: string): ReferralKeys {
  return {
    code: (code) => `${prefix}ref:code:${code}`,
    user: (userId) => `${prefix}ref:user:${userId}`,
    earned: (userId) => `${prefix}ref:earned:${userId}`,
    told: (userId) => `${prefix}ref:told:${userId}`,
  };
}
