--[[
  Moves order records of the earlier layout (a hash { v, state, json, fn } at `order:<id>`) to
  the current one (a string `<version>|<state>|<json>` and the final message's sent mark beside
  it, src/orders/record.ts). Idempotent: a record already moved is left as it is, unless the hash
  holds a newer version of it.
  Called with a variable number of keys (numkeys is the first argument).

  KEYS      triples: the old hash, the record, the sent mark (one triple per order)
  ARGV[1]   '1' to answer each order's record and sent mark after the move, '0' for nothing

  Returns, with ARGV[1] = '1', two values per triple (record, sent mark; false where missing);
  otherwise the number of hashes moved.
]]
local out, moved = {}, 0
for t = 1, #KEYS, 3 do
  local old, rec, sent = KEYS[t], KEYS[t + 1], KEYS[t + 2]
  local h = redis.call('HMGET', old, 'v', 'state', 'json', 'fn')
  if h[1] or h[4] then
    if h[1] and h[3] then
      local cur = redis.call('GET', rec)
      local curV = cur and tonumber(string.match(cur, '^(%d+)|'))
      if not curV or curV < tonumber(h[1]) then
        redis.call('SET', rec, h[1] .. '|' .. (h[2] or '') .. '|' .. h[3])
      end
    end
    if h[4] then redis.call('SET', sent, h[4], 'NX') end
    redis.call('DEL', old)
    moved = moved + 1
  end
  if ARGV[1] == '1' then
    out[#out + 1] = redis.call('GET', rec)
    out[#out + 1] = redis.call('GET', sent)
  end
end
if ARGV[1] == '1' then return out end
return moved
