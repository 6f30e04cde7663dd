--[[
  Claims due jobs: moves each one's score to the lease's end, so no other worker takes it
  until the lease runs out (a worker that dies simply stops renewing it).

  KEYS[1]  the job schedule (zset: due time in ms -> job)
  ARGV[1]  now (ms)
  ARGV[2]  how many jobs at most
  ARGV[3]  the lease's end (ms), the score the claimed jobs get
  ARGV[4]  how many of the jobs left to tell (default 1)

  Returns { n, then n pairs (job, due time in ms) of the earliest jobs left, then the claimed
  jobs }, so an idle worker can sleep until the first of them that is still scheduled instead
  of polling.

  One read of the schedule's head serves both: the due jobs among its first `most + ahead`
  entries are claimed (one ZADD for all of them), and the earliest jobs left are among the rest of
  that head and the claimed jobs at their lease's end. An idle look is then one command.
]]
local now = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local ahead = tonumber(ARGV[4] or '1')
local head = redis.call('ZRANGE', KEYS[1], 0, most + ahead - 1, 'WITHSCORES')
local due, left, leases = {}, {}, {}
for i = 1, #head, 2 do
  local m, score = head[i], tonumber(head[i + 1])
  if score <= now and #due < most then
    due[#due + 1] = m
    leases[#leases + 1] = lease
    leases[#leases + 1] = m
  else
    left[#left + 1] = { m, score, head[i + 1] }
  end
end
if #due > 0 then
  redis.call('ZADD', KEYS[1], unpack(leases))
  -- Claimed jobs come back at their lease's end: they count among the jobs left from then.
  for _, m in ipairs(due) do left[#left + 1] = { m, lease, ARGV[3] } end
  table.sort(left, function(a, b) return a[2] < b[2] end)
end
local told = math.min(ahead, #left)
local reply = { told }
for i = 1, told do
  reply[#reply + 1] = left[i][1]
  reply[#reply + 1] = left[i][3]
end
for _, m in ipairs(due) do reply[#reply + 1] = m end
return reply
