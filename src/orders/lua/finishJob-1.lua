--[[
  Finishes a claimed job: removes it, or reschedules it, unless someone scheduled it again
  (or took it over) since the claim, which shows as a score other than the lease.

  KEYS[1]  the job schedule
  ARGV[1]  the job
  ARGV[2]  the lease it was claimed with (its score since the claim)
  ARGV[3]  when to run it again (ms), or '' to remove it

  Returns 1 when finished, 0 when the job was no longer this lease's.
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
