--[[
  Counts one use of a promo code for an order, within the code's limits, in one step: two
  customers racing for the last use cannot both get it.

  KEYS[1]   the code's hash (def, max, per, off, used)
  KEYS[2]   the code's uses per customer (hash userId → count)
  KEYS[3]   the uses held by orders (hash orderId → "<code>|<userId>")
  ARGV[1]   the code
  ARGV[2]   the order id
  ARGV[3]   the customer's user id
  ARGV[4]   "force" to count it whatever the limits (a late payment of an order whose use was given back)

  Returns "ok", "held" (this order holds a use of this code already), "other" (it holds another
  code's), "unknown", "disabled", "exhausted" or "customer_limit".
]]
local held = redis.call('HGET', KEYS[3], ARGV[2])
if held then
  if held == ARGV[1] .. '|' .. ARGV[3] then return 'held' end
  return 'other'
end
local f = redis.call('HMGET', KEYS[1], 'def', 'max', 'per', 'off', 'used')
if not f[1] then return 'unknown' end
local force = ARGV[4] == 'force'
if not force then
  if f[4] == '1' then return 'disabled' end
  local max = tonumber(f[2]) or 0
  local used = tonumber(f[5]) or 0
  if max > 0 and used >= max then return 'exhausted' end
  local per = tonumber(f[3]) or 0
  local mine = tonumber(redis.call('HGET', KEYS[2], ARGV[3])) or 0
  if per > 0 and mine >= per then return 'customer_limit' end
end
redis.call('HINCRBY', KEYS[1], 'used', 1)
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1] .. '|' .. ARGV[3])
return 'ok'
