--[[
  Writes an order record if it is still at the version the caller read (compare-and-set),
  and in the same atomic step moves it between indexes and schedules its follow-up jobs.
  Called with a variable number of keys (numkeys is the first argument).

  KEYS[1]   the order's hash   { v: version, state, json, fn }
  KEYS[2..] the index zsets and the job schedule named by the ops below

  ARGV[1]   the version read before (0 = the order must not exist yet)
  ARGV[2]   the new state
  ARGV[3]   the new record (JSON)
  ARGV[4]   n, the number of index/schedule operations that follow
  ARGV[5..] n groups of 4: op, key index into KEYS, score, member; op is 'add' (ZADD),
            'addnx' (ZADD NX: a member already there keeps its score), 'rem' (ZREM), 'hdel'
            (HDEL of the field `member` of the hash at the key index) or 'cap' (a limit checked
            before anything is written: the write is refused if `member` or more members are
            scored above `score`); consecutive operations of one kind on one key are sent as one
            command

  Returns 1 when written, 0 when the version did not match (another writer got in first),
  -1 when a 'cap' refused the write (nothing was written).
]]
local cur = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '0' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
local n = tonumber(ARGV[4])
for j = 0, n - 1 do
  local i = 5 + j * 4
  if ARGV[i] == 'cap' then
    -- Members scored at or below `score` (quotes past their expiry) do not count; their own
    -- writes (expired, paid, cancelled) take them out of the zset.
    local k = KEYS[tonumber(ARGV[i + 1])]
    if redis.call('ZCOUNT', k, '(' .. ARGV[i + 2], '+inf') >= tonumber(ARGV[i + 3]) then return -1 end
  end
end
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(ARGV[1]) + 1), 'state', ARGV[2], 'json', ARGV[3])
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
  elseif runOp == 'hdel' then
    redis.call('HDEL', KEYS[runKey], unpack(run))
  end
  runOp, runKey, run = nil, nil, {}
end
local i = 5
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
