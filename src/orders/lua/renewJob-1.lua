--[[
  Extends a running job's lease, unless it was rescheduled or taken over since.

  KEYS[1]  the job schedule
  ARGV[1]  the job
  ARGV[2]  the lease it holds now
  ARGV[3]  the new lease's end (ms)

  Returns 1 when extended, 0 when the job is no longer this lease's.
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
