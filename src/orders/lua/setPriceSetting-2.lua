--[[
  Changes one price setting and logs the change, when the value differs from the stored one.

  KEYS[1]   the price settings hash
  KEYS[2]   the change log (list, oldest first)
  ARGV[1]   the field
  ARGV[2]   "set" or "del"
  ARGV[3]   the new value (ignored for "del")
  ARGV[4]   when (ms)
  ARGV[5]   who (the operator's user id)
  ARGV[6]   the channel a change is published on (the field), so that every process reads the
            settings again (src/orders/price-settings.ts)

  Returns the log entry written (JSON), or false when nothing changed.
]]
local from = redis.call('HGET', KEYS[1], ARGV[1])
local to = false
if ARGV[2] == 'set' then to = ARGV[3] end
if from == to then return false end
if to then
  redis.call('HSET', KEYS[1], ARGV[1], to)
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
local entry = cjson.encode({
  at = tonumber(ARGV[4]),
  by = tonumber(ARGV[5]),
  field = ARGV[1],
  from = from or cjson.null,
  to = to or cjson.null,
})
redis.call('RPUSH', KEYS[2], entry)
if ARGV[6] then redis.call('PUBLISH', ARGV[6], ARGV[1]) end
return entry
