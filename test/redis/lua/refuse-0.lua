-- Test fixture. No keys; answers with an error of its own.
return redis.error_reply('REFUSED by the script')
