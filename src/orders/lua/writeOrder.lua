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
            operations of one kind on one key are sent as one command

  The record is written and its version checked in one command: `SET … XX GET` answers the value
  it replaced, which is put back in the rare case its version was not the one read.

  Returns 1 when written, 0 when the version did not match (another writer got in first),
  -1 when a 'cap' refused the write (nothing was written).
]]
local n = tonumber(ARGV[3])
for j = 0, n - 1 do
  local i = 4 + j * 4
  if ARGV[i] == 'cap' then
    -- Members scored at or below `score` (quotes past their expiry) do not count; their own
    -- writes (expired, paid, cancelled) take them out of the zset.
    local k = KEYS[tonumber(ARGV[i + 1])]
    if redis.call('ZCOUNT', k, '(' .. ARGV[i + 2], '+inf') >= tonumber(ARGV[i + 3]) then
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
local i = 4
for _ = 1, n do
  local op, k, score, member = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  if op ~= 'cap' then
    if op ~= runOp or k ~= runKey then flush() end
    runOp, runKey = op, k
    if op == 'add' or op == 'addnx' then run[#run + 1] = score end
    run[#run + 1] = member
  end
  i = i + 4
end
flush()
return 1
