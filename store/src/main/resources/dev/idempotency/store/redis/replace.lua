-- ARGV: id, token, response status, headers, body (and a flag this ignores: sent again, it writes the same). Only
-- while completed by that token.
local h = KEYS[1]
local f = redis.call('HMGET', h, 'status', 'token')
if f[1] ~= 'COMPLETED' or f[2] ~= ARGV[2] then return 0 end
redis.call('HSET', h, 'rstatus', ARGV[3], 'rheaders', ARGV[4], 'rbody', ARGV[5], 'updated', str(now))
return 1
