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
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], m)
end
local left = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[4] or '1') - 1, 'WITHSCORES')
local reply = { #left / 2 }
for _, v in ipairs(left) do reply[#reply + 1] = v end
for _, m in ipairs(due) do reply[#reply + 1] = m end
return reply
