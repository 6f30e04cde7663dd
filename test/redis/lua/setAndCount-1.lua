-- Test fixture. KEYS[1] a key; ARGV[1] a value. Sets it and returns how many keys the call named.
redis.call('SET', KEYS[1], ARGV[1])
return #KEYS
