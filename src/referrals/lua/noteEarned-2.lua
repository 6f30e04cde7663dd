--[[
  Counts a bonus credited to a referrer, once per order.

  KEYS[1]  the referrer's referral hash (`orders`, `earned`)
  KEYS[2]  the referrer's earned hash (orderId → kopecks)
  ARGV[1]  the order id
  ARGV[2]  the kopecks credited

  Returns 1 when counted now, 0 when it was counted before.
]]
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'orders', 1)
redis.call('HINCRBY', KEYS[1], 'earned', tonumber(ARGV[2]))
return 1
