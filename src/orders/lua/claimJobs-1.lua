--[[
  Claims due jobs: moves each one's score to the lease's end, so no other worker takes it
  until the lease runs out (a worker that dies simply stops renewing it).

  KEYS[1]  the job schedule (zset: due time in ms -> job)
  ARGV[1]  now (ms)
  ARGV[2]  how many jobs at most
  ARGV[3]  the lease's end (ms), the score the claimed jobs get

  Returns { next due time (ms) of what is left, or '' when nothing is, then the claimed jobs },
  so an idle worker can sleep until then instead of polling.
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], m)
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local nextDue = ''
if first[2] then nextDue = first[2] end
table.insert(due, 1, nextDue)
return due
