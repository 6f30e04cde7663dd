--[[
  An operator pauses, resumes or cancels a broadcast. Pausing or cancelling also takes its
  messages that still wait in the outgoing queue out of it (a pause keeps them for the resume);
  those already taken by a sender are stopped there (mark-4.lua reads the status).

  KEYS[1]  the broadcast hash
  KEYS[2]  its recipients: list
  KEYS[3]  taken back on a pause: list
  KEYS[4]  the outgoing queue
  ARGV[1]  paused | running | cancelled
  ARGV[2]  the broadcast id
  ARGV[3]  window (how far back from the cursor queued recipients may be)
  ARGV[4]  now (ms)

  Reply: { 'ok' | 'same' | 'refused', the status now }.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return { 'refused', 'missing' } end
local to = ARGV[1]
if status == to then return { 'same', status } end
local allowed = (to == 'paused' and status == 'running')
  or (to == 'running' and status == 'paused')
  or (to == 'cancelled' and (status == 'running' or status == 'paused'))
if not allowed then return { 'refused', status } end
redis.call('HSET', KEYS[1], 'status', to)
if to ~= 'running' then
  local cursor = tonumber(redis.call('HGET', KEYS[1], 'cursor'))
  local from = math.max(0, cursor - 2 * tonumber(ARGV[3]))
  if cursor > from then
    local chats = redis.call('LRANGE', KEYS[2], from, cursor - 1)
    for _, chat in ipairs(chats) do
      local removed = redis.call('ZREM', KEYS[4], 'bcast:' .. chat .. ':' .. ARGV[2])
      if removed == 1 and to == 'paused' then redis.call('RPUSH', KEYS[3], chat) end
    end
  end
end
-- A cancelled broadcast stays active until its sends in flight ended (settle-5.lua shows the final figures).
if to == 'cancelled' then redis.call('HSET', KEYS[1], 'finishedAt', ARGV[4]) end
return { 'ok', to }
