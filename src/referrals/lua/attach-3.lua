--[[
  Attaches a customer to the referrer whose link they arrived through, once: the first link
  wins and is never changed, nobody refers themself, and a customer who has ordered before (an
  order in their chat's index) is not attached.

  KEYS[1]  the customer's referral hash
  KEYS[2]  the referrer's referral hash
  KEYS[3]  the customer's chat order index (P idx:chat:<chatId>)
  ARGV[1]  the customer's user id
  ARGV[2]  the referrer's user id
  ARGV[3]  now (ms)

  Returns 'attached', 'self', 'already' (attached before, to whomever) or 'customer' (has ordered).
]]
if ARGV[1] == ARGV[2] then return 'self' end
if redis.call('HEXISTS', KEYS[1], 'by') == 1 then return 'already' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'customer' end
redis.call('HSET', KEYS[1], 'by', ARGV[2], 'at', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'joined', 1)
return 'attached'
