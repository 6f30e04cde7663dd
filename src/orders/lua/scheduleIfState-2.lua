--[[
  Schedules a job only while its order is in one of the given states (a delivery webhook's
  hint must not wake an order that is unknown or already final).

  KEYS[1]   the order's record, `<version>|<state>|<json>` (src/orders/record.ts)
  KEYS[2]   the job schedule
  ARGV[1]   when the job is due (ms)
  ARGV[2]   the job
  ARGV[3..] the states in which it may be scheduled

  Returns 1 when scheduled, 0 otherwise.
]]
local rec = redis.call('GET', KEYS[1])
if not rec then return 0 end
local state = string.match(rec, '^%d+|([^|]*)|')
for i = 3, #ARGV do
  if ARGV[i] == state then
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
    return 1
  end
end
return 0
