--[[
  Before a broadcast message goes to one recipient: records that it is being sent, once. A
  recipient already marked (sent, blocked, failed, or being sent by a process that may have died
  meanwhile) is not sent again: broadcasts are delivered at most once.

  KEYS[1]  the broadcast hash (status)
  KEYS[2]  outcomes: hash chat → p (being sent), s (sent), b (blocked the bot), f (failed)
  KEYS[3]  being sent: zset mark time → chat
  KEYS[4]  taken back on a pause: list of chat ids
  ARGV[1]  chat id
  ARGV[2]  now (ms)

  Reply: 'ok' (send it), 'dup' (already marked), 'paused' (kept for the resume), or the status
  that stops it ('cancelled', 'done', 'missing').
]]
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'paused' then
  if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'dup' end
  redis.call('RPUSH', KEYS[4], ARGV[1])
  return 'paused'
end
if status ~= 'running' then return status or 'missing' end
if redis.call('HSETNX', KEYS[2], ARGV[1], 'p') == 0 then return 'dup' end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 'ok'
