--[[
  The recorded updates of one chat older than a new update of that chat, which must be handled
  first: those whose lease ran out are claimed (new lease ending at ARGV[4]) and returned with
  their JSON; those still leased to a process are returned by id, to be waited for.

  KEYS[1]  the recorded updates (hash: update_id -> JSON)
  KEYS[2]  their chats (hash: update_id -> chat id)
  KEYS[3]  the leases (zset: update_id -> lease end, ms)
  ARGV[1]  the chat id
  ARGV[2]  the new update's update_id (only older ones count)
  ARGV[3]  now (ms)
  ARGV[4]  the lease's end for claimed updates (ms)

  Returns { { update_id still leased, ... }, { claimed update_id, JSON, ... } }.
]]
local before = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local live = {}
local claimed = {}
local chats = redis.call('HGETALL', KEYS[2])
for i = 1, #chats, 2 do
  local id = chats[i]
  if chats[i + 1] == ARGV[1] and tonumber(id) < before then
    local json = redis.call('HGET', KEYS[1], id)
    local score = redis.call('ZSCORE', KEYS[3], id)
    if not json then
      redis.call('HDEL', KEYS[2], id)
      redis.call('ZREM', KEYS[3], id)
    elseif score and tonumber(score) > now then
      table.insert(live, id)
    else
      redis.call('ZADD', KEYS[3], ARGV[4], id)
      table.insert(claimed, id)
      table.insert(claimed, json)
    end
  end
end
return { live, claimed }
