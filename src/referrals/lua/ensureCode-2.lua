--[[
  Gives a user an invite code once: the code already recorded, else the candidate when no one
  holds it yet.

  KEYS[1]  the user's referral hash (field `code`)
  KEYS[2]  the candidate code's key (→ user id)
  ARGV[1]  the candidate code
  ARGV[2]  the user id

  Returns { status, code }: 'existing' with the user's code; 'made' with the candidate, now
  recorded both ways; 'taken' when another user holds the candidate (the caller tries another).
]]
local existing = redis.call('HGET', KEYS[1], 'code')
if existing then return { 'existing', existing } end
if redis.call('SET', KEYS[2], ARGV[2], 'NX') == false then return { 'taken', '' } end
redis.call('HSET', KEYS[1], 'code', ARGV[1])
return { 'made', ARGV[1] }
