--[[
  Puts the next recipients of a running broadcast into the outgoing queue, keeping at most a
  window of them there at once: recipients taken back on a pause first, then the next ones of the
  list. Several processes may call it at once: each call moves the cursor atomically.

  KEYS[1]  the broadcast: hash status, total, cursor, sent, blocked, failed
  KEYS[2]  its recipients: list of chat ids
  KEYS[3]  recipients taken back from the queue (a pause): list of chat ids
  KEYS[4]  the outgoing queue: zset score → message
  KEYS[5]  recipients being sent: zset mark time → chat
  ARGV[1]  the broadcast id
  ARGV[2]  window: recipients queued or being sent at most
  ARGV[3]  the queue score of the first one (bcast priority, now); the next ones 1 ms apart

  Reply: { status, how many were queued }.
]]
local h = redis.call('HMGET', KEYS[1], 'status', 'total', 'cursor', 'sent', 'blocked', 'failed')
local status = h[1]
if status ~= 'running' then return { status or 'missing', 0 } end
local total, cursor = tonumber(h[2]), tonumber(h[3])
local finished = tonumber(h[4]) + tonumber(h[5]) + tonumber(h[6])
-- Still queued or in flight: queued so far, minus those finished or waiting for a resume.
local outstanding = cursor - finished - redis.call('LLEN', KEYS[3])
local room = tonumber(ARGV[2]) - outstanding
if room <= 0 then return { status, 0 } end
local score = tonumber(ARGV[3])
local args = {}
local again = redis.call('LPOP', KEYS[3], room) or {}
for _, chat in ipairs(again) do
  args[#args + 1] = score + #args / 2
  args[#args + 1] = 'bcast:' .. chat .. ':' .. ARGV[1]
end
room = room - #again
if room > 0 and cursor < total then
  local next = redis.call('LRANGE', KEYS[2], cursor, cursor + room - 1)
  for _, chat in ipairs(next) do
    args[#args + 1] = score + #args / 2
    args[#args + 1] = 'bcast:' .. chat .. ':' .. ARGV[1]
  end
  redis.call('HINCRBY', KEYS[1], 'cursor', #next)
end
if #args > 0 then redis.call('ZADD', KEYS[4], 'NX', unpack(args)) end
return { status, #args / 2 }
