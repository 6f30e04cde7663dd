--[[
  Settles a broadcast: a recipient marked as being sent for longer than ARGV[2] (its process died
  mid-send; whether Telegram got it is unknown) counts as failed and is not sent again. When every
  recipient has an outcome the broadcast is done, and a cancelled one is over once no send is in
  flight any more: exactly one caller gets 'finished' (and shows the final figures).

  KEYS[1]  the broadcast hash
  KEYS[2]  outcomes: hash chat → p | s | b | f
  KEYS[3]  being sent: zset mark time → chat
  KEYS[4]  taken back on a pause: list
  KEYS[5]  active broadcasts: set of ids
  ARGV[1]  now (ms)
  ARGV[2]  how long a mark may stand without an outcome (ms)
  ARGV[3]  the broadcast id

  Reply: 'finished' for the caller that finished it, else its status.
]]
local now = tonumber(ARGV[1])
local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[2]), 'LIMIT', 0, 500)
for _, chat in ipairs(stale) do
  redis.call('ZREM', KEYS[3], chat)
  if redis.call('HGET', KEYS[2], chat) == 'p' then
    redis.call('HSET', KEYS[2], chat, 'f')
    redis.call('HINCRBY', KEYS[1], 'failed', 1)
  end
end
local h = redis.call('HMGET', KEYS[1], 'status', 'total', 'cursor', 'sent', 'blocked', 'failed')
local status = h[1]
if not status then
  redis.call('SREM', KEYS[5], ARGV[3])
  return 'missing'
end
if status == 'cancelled' then
  if redis.call('ZCARD', KEYS[3]) > 0 or redis.call('SREM', KEYS[5], ARGV[3]) == 0 then return status end
  return 'finished'
end
if status ~= 'running' then return status end
local total = tonumber(h[2])
if tonumber(h[3]) < total or redis.call('LLEN', KEYS[4]) > 0 then return status end
if tonumber(h[4]) + tonumber(h[5]) + tonumber(h[6]) < total then return status end
redis.call('HSET', KEYS[1], 'status', 'done', 'finishedAt', now)
redis.call('SREM', KEYS[5], ARGV[3])
return 'finished'
