--[[
  Applies one credit or debit to a customer's wallet: the balance, the entry and the entry's
  reference are written in one atomic step, or nothing is written at all.

  KEYS[1]  the wallet's hash     { balance: kopecks, v: number of entries so far }
  KEYS[2]  the wallet's entries  (list of entry JSON, newest first)
  KEYS[3]  the wallet's refs     (hash: ref -> the entry it made)
  ARGV[1]  the operation's reference (unique per credit or debit, e.g. 'order:<orderId>')
  ARGV[2]  the signed amount in kopecks (an integer; > 0 credits, < 0 debits)
  ARGV[3]  the reason ('topup', 'order', 'refund', 'referral', 'adjustment')
  ARGV[4]  the entry id's prefix (the id is this followed by the entry's sequence number)
  ARGV[5]  the rest of the entry as a JSON object ('{"at":…,"amountKopecks":…,…}'); the script
           puts id, seq and balanceAfter in front of its fields
  ARGV[6]  the highest balance allowed (kopecks)

  Returns { status, balance in kopecks, entry JSON or '' }:
    'applied'       written; the entry just made and the new balance
    'repeat'        the ref was applied before with the same amount and reason: nothing written,
                    the original entry and the current balance
    'conflict'      the ref was used before for another amount or reason: nothing written,
                    that earlier entry and the current balance
    'insufficient'  a debit larger than the balance: nothing written, the current balance
    'limit'         a credit that would take the balance over ARGV[6]: nothing written
]]
local balance = tonumber(redis.call('HGET', KEYS[1], 'balance') or '0')
local prev = redis.call('HGET', KEYS[3], ARGV[1])
if prev then
  local e = cjson.decode(prev)
  if e.amountKopecks == tonumber(ARGV[2]) and e.reason == ARGV[3] then
    return { 'repeat', balance, prev }
  end
  return { 'conflict', balance, prev }
end
local after = balance + tonumber(ARGV[2])
if after < 0 then return { 'insufficient', balance, '' } end
if after > tonumber(ARGV[6]) then return { 'limit', balance, '' } end
after = redis.call('HINCRBY', KEYS[1], 'balance', ARGV[2])
local seq = redis.call('HINCRBY', KEYS[1], 'v', 1)
local entry = '{"id":"' .. ARGV[4] .. string.format('%d', seq) .. '","seq":' .. string.format('%d', seq)
  .. ',"balanceAfter":' .. string.format('%d', after) .. ',' .. string.sub(ARGV[5], 2)
redis.call('LPUSH', KEYS[2], entry)
redis.call('HSET', KEYS[3], ARGV[1], entry)
return { 'applied', after, entry }
