--[[
  Writes a wallet top-up's record only if it is still what the writer read (compare and set), so
  two processes changing one top-up at once cannot lose either change.

  KEYS[1]  the top-up's record (a string of JSON)
  ARGV[1]  the JSON the writer read; '' when the record must not exist yet (creation)
  ARGV[2]  the new JSON
  ARGV[3]  the record's time to live in seconds (renewed by every write)

  Returns 1 when written, 0 when the record had changed meanwhile (nothing written).
]]
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
