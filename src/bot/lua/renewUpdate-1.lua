--[[
  Moves the lease of a recorded update, unless another process took it over since: extends it
  while the update is being handled, or ends it at once (ARGV[3] = 0) to hand the update back.

  KEYS[1]  the leases (zset: update_id -> lease end, ms)
  ARGV[1]  update_id
  ARGV[2]  the lease's end as held now (the lease's token)
  ARGV[3]  the new end (ms)

  Returns 1 when moved, 0 when the update is no longer this lease's (finished or taken over).
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
