-- Test fixture. Any number of keys (the caller passes the count first); returns their number and ARGV[1].
return { #KEYS, ARGV[1] }
