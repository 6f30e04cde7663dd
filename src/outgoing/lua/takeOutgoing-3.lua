--[[
  Takes the messages the bot may send on its own within the next `horizon` ms, and reserves
  their send times: queue entries in order (lowest priority number first, then first come,
  first served) whose chat is free at the next global slot. Each message taken moves the global
  slot on by one interval and its chat's next free time by one chat interval, so every process
  sharing the queue keeps to the same pace; the caller waits for the reserved times in memory,
  never by asking Redis again. One call reserves up to ARGV[7] messages, so in a rush a message
  costs a fraction of a call. When the queue is quiet, one message waiting for its chat may also
  get its chat's next free time (see below).

  KEYS[1]  the queue: zset score = priority * 1e13 + enqueue time (ms) → message
  KEYS[2]  leases: zset lease end (ms) → message taken and not yet acknowledged
  KEYS[3]  chats: zset next free time (ms) → chat id, and the member '*' scored by the next free
           global slot (ms): read together with the chats, written together with them

  ARGV[1]  lease (ms): how long a taken message may go unacknowledged before it is offered again
  ARGV[2]  global interval (ms) between two sends
  ARGV[3]  chat interval (ms) between two sends into one chat
  ARGV[4]  how many queue entries to look at, at most
  ARGV[5]  horizon (ms): reserve no slot further ahead than this
  ARGV[6]  '1' to do housekeeping first (offer expired leases again, forget idle chats)
  ARGV[7]  how many messages to take, at most
  ARGV[8]  chat interval (ms) of the operators' chat `ops` (a group takes fewer messages a minute)

  Reply: { n, wake, apart, message 1, wait 1, lease end 1, …, message n, wait n, lease end n }:
  the n messages taken, each with the ms until its slot and its lease's end (ms, Redis clock: the
  score the holder renews and acknowledges with); `wake`, the ms after which the caller should
  take again (-1: no other message is waiting, wait to be told of new ones); `apart`, the
  position (1…n) of the message reserved at its chat's free time rather than at the global pace
  (0: none), whose slot may come after messages taken later.
  The message's chat is the part after the first ':' up to the next ':'.
]]
-- Redis's clock, read only when needed: an empty queue without housekeeping is one ZRANGE.
local now = nil
local function readClock()
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local leaseMs = tonumber(ARGV[1])
local globalMs = tonumber(ARGV[2])
local chatMs = tonumber(ARGV[3])
local scan = tonumber(ARGV[4])
local horizon = tonumber(ARGV[5])
local most = tonumber(ARGV[7])
local opsMs = tonumber(ARGV[8] or ARGV[3])

-- Priorities by message kind, as in src/outgoing/messages.ts.
local PRIORITY = { final = 0, topup = 0, extra = 0, alert = 1, card = 2, referral = 2, bcast = 3 }

if ARGV[6] == '1' then
  readClock()
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
  for _, m in ipairs(expired) do
    redis.call('ZREM', KEYS[2], m)
    -- Back at the front of its priority: it has waited long enough.
    local kind = string.match(m, '^([^:]*)')
    redis.call('ZADD', KEYS[1], 'NX', (PRIORITY[kind] or 3) * 1e13, m)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
end

-- Take again once half of the reserved time has passed: batches of about half the horizon.
local function refillIn(slot)
  return math.max(0, slot - now - math.floor(horizon / 2))
end

local entries = redis.call('ZRANGE', KEYS[1], 0, scan - 1)
if #entries == 0 then return { 0, -1, 0 } end
if now == nil then readClock() end
-- The global slot and every scanned entry's chat and when it is free, in one ZMSCORE (Redis 6.2+).
local chats = {}
for i, m in ipairs(entries) do chats[i] = string.match(m, '^[^:]*:([^:]*)') end
local frees = redis.call('ZMSCORE', KEYS[3], '*', unpack(chats))
local slot = tonumber(frees[1] or '0') or 0
table.remove(frees, 1)
if slot < now then slot = now end
local limit = now + horizon
if slot > limit then return { 0, refillIn(slot), 0 } end

local reply = { 0, -1, 0 }
local taken, leases, chatNext, chatOrder, isTaken = {}, {}, {}, {}, {}
local blockedUntil = nil
local stoppedAt = nil
local function take(i, m, at)
  local chat = chats[i]
  taken[#taken + 1] = m
  isTaken[i] = true
  leases[#leases + 1] = at + leaseMs
  leases[#leases + 1] = m
  reply[#reply + 1] = m
  reply[#reply + 1] = at - now
  reply[#reply + 1] = at + leaseMs
  if chatNext[chat] == nil then chatOrder[#chatOrder + 1] = chat end
  chatNext[chat] = at + (chat == 'ops' and opsMs or chatMs)
end
for i, m in ipairs(entries) do
  if #taken >= most or slot > limit then
    stoppedAt = i
    break
  end
  local free = chatNext[chats[i]] or tonumber(frees[i] or '0') or 0
  if free <= slot then
    take(i, m, slot)
    slot = slot + globalMs
  elseif blockedUntil == nil or free < blockedUntil then
    blockedUntil = free
  end
end

-- A quiet queue: every entry was looked at, and those left wait for their chat. The first of them
-- whose chat is free within one chat interval past the horizon gets that moment now (a lone
-- order's card, a second after its final message), which saves the take it would need then. The
-- global slot does not move for it: at most one send a take beyond the pace, and only when the
-- queue holds nothing that may go sooner. Not into the operators' group (its interval is long).
if blockedUntil ~= nil and stoppedAt == nil and #entries < scan and #taken < most then
  blockedUntil = nil
  local late = limit + chatMs
  for i, m in ipairs(entries) do
    if not isTaken[i] then
      local chat = chats[i]
      local free = chatNext[chat] or tonumber(frees[i] or '0') or 0
      if reply[3] == 0 and chat ~= 'ops' and free <= late then
        take(i, m, free)
        reply[3] = #taken
      elseif blockedUntil == nil or free < blockedUntil then
        blockedUntil = free
      end
    end
  end
end

if #taken > 0 then
  redis.call('ZREM', KEYS[1], unpack(taken))
  redis.call('ZADD', KEYS[2], unpack(leases))
  local chatArgs = { slot, '*' }
  for _, chat in ipairs(chatOrder) do
    chatArgs[#chatArgs + 1] = chatNext[chat]
    chatArgs[#chatArgs + 1] = chat
  end
  redis.call('ZADD', KEYS[3], unpack(chatArgs))
end

reply[1] = #taken
local more = stoppedAt ~= nil or #entries >= scan
if #taken > 0 and more then
  reply[2] = refillIn(slot)
elseif blockedUntil ~= nil then
  -- What is left waits for its chat: look again when the first of those chats is free.
  reply[2] = math.max(0, blockedUntil - now)
elseif more then
  reply[2] = refillIn(slot)
end
return reply
