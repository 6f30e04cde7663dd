--[[
  Writes an order record if it is still at the version the caller read (compare-and-set),
  and in the same atomic step moves it between indexes and schedules its follow-up jobs.
  Called with a variable number of keys (numkeys is the first argument).

  KEYS[1]   the order's record, a string `<version>|<state>|<json>` (src/orders/record.ts)
  KEYS[2..] the index zsets, the job schedule and the keys named by the ops below

  ARGV[1]   the version read before (0 = the order must not exist yet)
  ARGV[2]   the new record, at version ARGV[1] + 1
  ARGV[3]   n, the number of index/schedule operations that follow
  ARGV[4..] n groups of 4: op, key index into KEYS, score, member; op is 'add' (ZADD),
            'addnx' (ZADD NX: a member already there keeps its score), 'rem' (ZREM), 'del' (DEL
            of the key) or 'cap' (a limit checked before anything is written: the write is
            refused if `member` or more members are scored above `score`); consecutive
            operations of one kind on one key are sent as one command.
            Two more let the write take its own messages (src/orders/write-plan.ts): 'pace'
            (key index of the outgoing leases, `score` the key index of the chats zset, `member`
            "lease ms:global interval:chat interval:horizon[:writer's clock, ms]") and 'lease' (the
            outgoing queue, the message's queue score, the message): when the queue is empty, the
            global slot comes within the horizon and the messages' chat is free by then, the
            messages are taken as src/outgoing/lua/takeOutgoing-3.lua would take them — the first
            at the global slot, the second (same chat) its chat interval later, apart from the
            pace — and leased to the writer; otherwise they are queued ('addnx').

  The record is written and its version checked in one command: `SET … XX GET` answers the value
  it replaced, which is put back in the rare case its version was not the one read.

  Returns 1 when written, 0 when the version did not match (another writer got in first),
  -1 when a 'cap' refused the write (nothing was written but the cap's tidying of the chat's
  open-quote index); written with its messages taken,
  { 1, message 1, wait 1, lease end 1, apart 1, … } (wait in ms, lease end on Redis's clock or,
  for a quiet queue, the writer's (below), apart 1 for the message reserved at its chat's free
  time).
]]
-- How far the writer's clock may be from Redis's for a quiet queue's take to go by the writer's.
local QUIET_MS = 1000
local n = tonumber(ARGV[3])
for j = 0, n - 1 do
  local i = 4 + j * 4
  if ARGV[i] == 'cap' then
    -- The chat's entries are few: its unpaid quotes, and quotes paid since its last quote (a
    -- payment leaves its entry to this look, src/orders/write-plan.ts). Members scored at or
    -- below `score` (past their expiry) do not count and are taken out; when the rest reach the
    -- limit, their records say which are still unpaid quotes, and the others are taken out too.
    local k = KEYS[tonumber(ARGV[i + 1])]
    local now, most = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
    local entries = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
    local live, gone = {}, {}
    for e = 1, #entries, 2 do
      if tonumber(entries[e + 1]) > now then
        live[#live + 1] = entries[e]
      else
        gone[#gone + 1] = entries[e]
      end
    end
    local open = #live
    if open >= most then
      -- Records sit beside this one: `<prefix>ord:<id>`.
      local prefix = string.match(KEYS[1], '^(.*)ord:[^:]*$')
      open = 0
      for _, id in ipairs(live) do
        local rec = redis.call('GET', prefix .. 'ord:' .. id)
        local state = rec and string.match(rec, '^%d+|([^|]*)|')
        if state == 'draft' or state == 'quoted' then
          open = open + 1
        else
          gone[#gone + 1] = id
        end
      end
    end
    if #gone > 0 then redis.call('ZREM', k, unpack(gone)) end
    if open >= most then
      -- A record already there is a lost race (0), not the limit.
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      return -1
    end
  end
end
if ARGV[1] == '0' then
  if not redis.call('SET', KEYS[1], ARGV[2], 'NX') then return 0 end
else
  local old = redis.call('SET', KEYS[1], ARGV[2], 'XX', 'GET')
  if not old then return 0 end
  if string.match(old, '^(%d+)|') ~= ARGV[1] then
    redis.call('SET', KEYS[1], old)
    return 0
  end
end
-- Consecutive operations of one kind on one key go out as one command (ZADD and ZREM take many
-- members): the plan puts an order's queued messages side by side for this.
local runOp, runKey, run = nil, nil, {}
local function flush()
  if runOp == 'add' then
    redis.call('ZADD', KEYS[runKey], unpack(run))
  elseif runOp == 'addnx' then
    redis.call('ZADD', KEYS[runKey], 'NX', unpack(run))
  elseif runOp == 'rem' then
    redis.call('ZREM', KEYS[runKey], unpack(run))
  elseif runOp == 'del' then
    redis.call('DEL', KEYS[runKey])
  end
  runOp, runKey, run = nil, nil, {}
end
local pace, leasing, queueKey = nil, {}, nil
local i = 4
for _ = 1, n do
  local op, k, score, member = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  if op == 'pace' then
    local leaseMs, globalMs, chatMs, horizon, clock =
      string.match(member, '^(%d+):(%d+):(%d+):(%d+):?(%d*)$')
    pace = {
      leases = KEYS[k], chats = KEYS[tonumber(score)], leaseMs = tonumber(leaseMs),
      globalMs = tonumber(globalMs), chatMs = tonumber(chatMs), horizon = tonumber(horizon),
      clock = tonumber(clock),
    }
  elseif op == 'lease' then
    queueKey = KEYS[k]
    leasing[#leasing + 1] = { score = score, member = member }
  elseif op ~= 'cap' then
    if op ~= runOp or k ~= runKey then flush() end
    runOp, runKey = op, k
    if op == 'add' or op == 'addnx' then run[#run + 1] = score end
    run[#run + 1] = member
  end
  i = i + 4
end
flush()
if #leasing == 0 then return 1 end

-- The write's own messages: taken here when nothing waits before them, else queued.
if pace and redis.call('ZCARD', queueKey) == 0 then
  local chat = string.match(leasing[1].member, '^[^:]*:([^:]*)')
  local frees = redis.call('ZMSCORE', pace.chats, '*', chat)
  local reserved = tonumber(frees[1] or '0') or 0
  local free = tonumber(frees[2] or '0') or 0
  -- Slots are kept on Redis's clock. When the last send reserved overall and the chat's were both
  -- more than QUIET_MS before the writer's clock, any clock within QUIET_MS of Redis's puts the
  -- messages after them, so the writer's clock stands in for a read of Redis's (a lone order).
  local now
  if pace.clock and reserved < pace.clock - QUIET_MS and free < pace.clock - QUIET_MS then
    now = pace.clock
  else
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  local slot = math.max(now, reserved)
  if slot <= now + pace.horizon and free <= slot then
    local reply, leases, at = { 1 }, {}, slot
    for j, m in ipairs(leasing) do
      if j > 1 then at = at + pace.chatMs end
      leases[#leases + 1] = at + pace.leaseMs
      leases[#leases + 1] = m.member
      reply[#reply + 1] = m.member
      reply[#reply + 1] = at - now
      reply[#reply + 1] = at + pace.leaseMs
      reply[#reply + 1] = j > 1 and 1 or 0
    end
    redis.call('ZADD', pace.leases, unpack(leases))
    redis.call('ZADD', pace.chats, slot + pace.globalMs, '*', at + pace.chatMs, chat)
    return reply
  end
end
local queued = {}
for _, m in ipairs(leasing) do
  queued[#queued + 1] = m.score
  queued[#queued + 1] = m.member
end
redis.call('ZADD', queueKey, 'NX', unpack(queued))
return 1
