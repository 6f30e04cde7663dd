--[[
  Forgets a recorded update once it has been handled.

  KEYS[1]  the recorded updates (hash)
  KEYS[2]  their chats (hash)
  KEYS[3]  the leases (zset)
  ARGV[1]  update_id

  Returns 1 when it was recorded, 0 otherwise.
]]
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
