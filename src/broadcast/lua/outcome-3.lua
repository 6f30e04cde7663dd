--[[
  Records how sending a broadcast message to one recipient ended, once: s (sent), b (the
  recipient blocked the bot), f (failed), or u (not sent, may be tried again: the mark is removed).

  KEYS[1]  the broadcast hash (sent, blocked, failed counters)
  KEYS[2]  outcomes: hash chat → p | s | b | f
  KEYS[3]  being sent: zset mark time → chat
  ARGV[1]  chat id
  ARGV[2]  s | b | f | u

  Reply: 1 when recorded, 0 when the recipient was not marked as being sent.
]]
if redis.call('HGET', KEYS[2], ARGV[1]) ~= 'p' then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[2] == 'u' then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local field = ({ s = 'sent', b = 'blocked', f = 'failed' })[ARGV[2]]
redis.call('HINCRBY', KEYS[1], field, 1)
return 1
