--[[
  Takes the next message the bot may send on its own, and reserves its send time: the first
  entry of the queue (lowest priority number first, then first come, first served) whose chat
  is free at the next global slot. The global slot and the chat's next free time move on by
  one interval each, so every process sharing the queue keeps to the same pace; the caller
  waits for the reserved time in memory, never by asking Redis again.

  KEYS[1]  the queue: zset score = priority * 1e13 + enqueue time (ms) → message
  KEYS[2]  leases: zset lease end (ms) → message taken and not yet acknowledged
  KEYS[3]  chats: zset next free time (ms) → chat id
  KEYS[4]  the global clock: the next free global slot (ms)

  ARGV[1]  lease (ms): how long a taken message may go unacknowledged before it is offered again
  ARGV[2]  global interval (ms) between two sends
  ARGV[3]  chat interval (ms) between two sends into one chat
  ARGV[4]  how many queue entries to look at, at most
  ARGV[5]  horizon (ms): reserve no slot further ahead than this
  ARGV[6]  '1' to do housekeeping first (offer expired leases again, forget idle chats)

  Reply: { 1, message, wait ms until its slot, wait ms until the next message may be taken
           (-1: the queue holds no other), the lease's end (ms, Redis clock: the score the
           holder renews and acknowledges with) } when one was taken;
         { 0, wait ms } when nothing may go yet (-1: the queue is empty).
  The message's chat is the part after the first ':' up to the next ':'.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- Priorities by message kind, as in src/outgoing/messages.ts.
local PRIORITY = { final = 0, alert = 1, card = 2, bcast = 3 }

if ARGV[6] == '1' then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
  for _, m in ipairs(expired) do
    redis.call('ZREM', KEYS[2], m)
    -- Back at the front of its priority: it has waited long enough.
    local kind = string.match(m, '^([^:]*)')
    redis.call('ZADD', KEYS[1], 'NX', (PRIORITY[kind] or 3) * 1e13, m)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
end

local slot = tonumber(redis.call('GET', KEYS[4]) or '0')
if slot < now then slot = now end
if slot > now + tonumber(ARGV[5]) then return { 0, slot - now } end

local entries = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[4]) - 1)
if #entries == 0 then return { 0, -1 } end
-- Every scanned entry's chat and when it is free, in one ZMSCORE (Redis 6.2+).
local chats = {}
for i, m in ipairs(entries) do chats[i] = string.match(m, '^[^:]*:([^:]*)') end
local frees = redis.call('ZMSCORE', KEYS[3], unpack(chats))
local earliest = nil
for i, m in ipairs(entries) do
  local chat = chats[i]
  local free = tonumber(frees[i] or '0') or 0
  if free <= slot then
    redis.call('ZREM', KEYS[1], m)
    local leaseEnd = slot + tonumber(ARGV[1])
    redis.call('ZADD', KEYS[2], leaseEnd, m)
    local nextSlot = slot + tonumber(ARGV[2])
    local chatNext = slot + tonumber(ARGV[3])
    redis.call('SET', KEYS[4], nextSlot, 'PX', 60000)
    redis.call('ZADD', KEYS[3], chatNext, chat)
    -- When the entry after this one could go (an estimate: it looks at that one only).
    local nextWait = -1
    if entries[i + 1] then
      local afterFree = tonumber(frees[i + 1] or '0') or 0
      if chats[i + 1] == chat then afterFree = chatNext end
      nextWait = math.max(nextSlot, afterFree) - now
    elseif #entries >= tonumber(ARGV[4]) then
      nextWait = 0
    end
    return { 1, m, slot - now, nextWait, leaseEnd }
  end
  if earliest == nil or free < earliest then earliest = free end
end
return { 0, earliest - now }
