--[[
  Extends the lease of a message being sent, unless it is no longer this holder's: offered again
  after the lease ran out (housekeeping) and perhaps taken by another process, which shows as a
  lease end other than the one this holder was given.

  KEYS[1]  leases: zset lease end (ms) → message taken and not yet acknowledged
  ARGV[1]  the message
  ARGV[2]  the lease end this holder was given (by the take or its last renewal)
  ARGV[3]  lease (ms), counted from now on the Redis clock (the clock housekeeping uses)

  Returns the new lease end (ms), or 0 when the message is no longer this holder's.
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
local t = redis.call('TIME')
local leaseEnd = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[3])
-- Never move a lease backwards (a slot reserved further ahead than the new end).
if leaseEnd < tonumber(score) then leaseEnd = tonumber(score) end
redis.call('ZADD', KEYS[1], leaseEnd, ARGV[1])
return leaseEnd
