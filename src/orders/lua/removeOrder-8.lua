--[[
  Removes an archived order from Redis with its index entries and its jobs, only if the order is
  still at the version that was written to the archive (a change since then keeps it in Redis, to
  be archived again later: the archive may hold a stale line, Redis never loses a newer one).

  KEYS[1]   the order's record, `<version>|<state>|<json>` (src/orders/record.ts)
  KEYS[2]   its final message's sent mark
  KEYS[3]   idx:all
  KEYS[4]   idx:chat:<chat> of the order's customer
  KEYS[5]   idx:state:<state> of the archived state
  KEYS[6]   idx:attention
  KEYS[7]   the job schedule
  KEYS[8]   idx:open:<chat> of the order's customer (a paid quote may still be listed there)
  ARGV[1]   the archived version
  ARGV[2]   the archived state
  ARGV[3]   the order id (the member of the indexes)
  ARGV[4..] the order's possible jobs (schedule members) to remove

  Returns 1 when removed, 0 when the order is gone or no longer at that version and state.
]]
local rec = redis.call('GET', KEYS[1])
if not rec then return 0 end
local v, state = string.match(rec, '^(%d+)|([^|]*)|')
if v ~= ARGV[1] or state ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
for k = 3, 6 do
  redis.call('ZREM', KEYS[k], ARGV[3])
end
redis.call('ZREM', KEYS[8], ARGV[3])
if #ARGV >= 4 then
  redis.call('ZREM', KEYS[7], unpack(ARGV, 4))
end
return 1
