--[[
  Takes over recorded updates whose lease ran out (the process handling them died or stopped):
  each gets a new lease ending at ARGV[3].

  KEYS[1]  the recorded updates (hash: update_id -> JSON)
  KEYS[2]  their chats (hash; unused, listed so every key the feature touches is declared)
  KEYS[3]  the leases (zset: update_id -> lease end, ms)
  ARGV[1]  now (ms)
  ARGV[2]  how many at most
  ARGV[3]  the new lease's end (ms)

  Returns { update_id, JSON, update_id, JSON, ... } of the updates claimed.
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(due) do
  local json = redis.call('HGET', KEYS[1], id)
  if json then
    redis.call('ZADD', KEYS[3], ARGV[3], id)
    table.insert(out, id)
    table.insert(out, json)
  else
    redis.call('ZREM', KEYS[3], id)
  end
end
return out
