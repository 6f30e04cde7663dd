--[[
  Records a webhook update whose handling outlasted the answer Telegram is waiting for, leased
  to the process handling it; another process takes it over once the lease runs out.

  KEYS[1]  the recorded updates (hash: update_id -> the update as JSON)
  KEYS[2]  their chats (hash: update_id -> chat id; updates without a chat are not listed)
  KEYS[3]  the leases (zset: update_id -> lease end, ms)
  ARGV[1]  update_id
  ARGV[2]  the update as JSON
  ARGV[3]  the chat id, or '' when the update has none
  ARGV[4]  the lease's end (ms)

  Returns 1.
]]
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1
