--[[
  Creates a promo code unless one of that name exists.

  KEYS[1]   the code's hash
  KEYS[2]   the list of codes (zset createdAt → code)
  ARGV[1]   the code
  ARGV[2]   its definition (JSON)
  ARGV[3]   uses in all (0: unlimited)
  ARGV[4]   uses per customer (0: unlimited)
  ARGV[5]   when (ms)

  Returns 1 when created, 0 when the name is taken.
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'def', ARGV[2], 'max', ARGV[3], 'per', ARGV[4], 'off', '0', 'used', '0')
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1
