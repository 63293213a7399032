-- ARGV: id, token. A token that does not own its key changes nothing.
local h = KEYS[1]
local f = redis.call('HMGET', h, 'status', 'token', 'expires')
if f[2] ~= ARGV[2] or (f[1] ~= 'IN_FLIGHT' and f[1] ~= 'UNKNOWN') then return 0 end
toRetryable(h, ARGV[1], f[1], KEYS[2], KEYS[3], KEYS[5], tonumber(f[3]))
return 1
