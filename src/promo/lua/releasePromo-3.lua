--[[
  Gives back the use of a promo code an order held (it expired or was cancelled unpaid). Safe to
  repeat: a use is given back once.

  KEYS[1]   the code's hash
  KEYS[2]   the code's uses per customer
  KEYS[3]   the uses held by orders
  ARGV[1]   the order id
  ARGV[2]   what the order holds, as read before ("<code>|<userId>")

  Returns 1 when a use was given back, 0 when the order held none (or another).
]]
local held = redis.call('HGET', KEYS[3], ARGV[1])
if held ~= ARGV[2] then return 0 end
local user = string.match(held, '|(.*)$')
redis.call('HDEL', KEYS[3], ARGV[1])
if tonumber(redis.call('HGET', KEYS[1], 'used') or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], 'used', -1)
end
if user and tonumber(redis.call('HGET', KEYS[2], user) or '0') > 0 then
  redis.call('HINCRBY', KEYS[2], user, -1)
end
return 1
