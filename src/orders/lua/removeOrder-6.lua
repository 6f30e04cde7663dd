--[[
  Removes an archived order from Redis with its index entries and its jobs, only if the order is
  still at the version that was written to the archive (a change since then keeps it in Redis, to
  be archived again later: the archive may hold a stale line, Redis never loses a newer one).

  KEYS[1]   the order's hash   { v: version, state, json }
  KEYS[2]   idx:all
  KEYS[3]   idx:chat:<chat> of the order's customer
  KEYS[4]   idx:state:<state> of the archived state
  KEYS[5]   idx:attention
  KEYS[6]   the job schedule
  ARGV[1]   the archived version
  ARGV[2]   the archived state
  ARGV[3]   the order id (the member of the indexes)
  ARGV[4..] the order's possible jobs (schedule members) to remove

  Returns 1 when removed, 0 when the order is gone or no longer at that version and state.
]]
local cur = redis.call('HMGET', KEYS[1], 'v', 'state')
if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
for k = 2, 5 do
  redis.call('ZREM', KEYS[k], ARGV[3])
end
if #ARGV >= 4 then
  redis.call('ZREM', KEYS[6], unpack(ARGV, 4))
end
return 1
