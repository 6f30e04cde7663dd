--[[
  Schedules a job only while its order is in one of the given states (a delivery webhook's
  hint must not wake an order that is unknown or already final).

  KEYS[1]   the order's hash
  KEYS[2]   the job schedule
  ARGV[1]   when the job is due (ms)
  ARGV[2]   the job
  ARGV[3..] the states in which it may be scheduled

  Returns 1 when scheduled, 0 otherwise.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 0 end
for i = 3, #ARGV do
  if ARGV[i] == state then
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
    return 1
  end
end
return 0
