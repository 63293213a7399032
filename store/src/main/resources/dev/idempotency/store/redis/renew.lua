-- KEYS: hash, lease index. ARGV: id, token, lease ms. Extends the lease of a key the token still holds in flight.
local h = KEYS[1]
local f = redis.call('HMGET', h, 'status', 'token')
if f[1] ~= 'IN_FLIGHT' or f[2] ~= ARGV[2] then return 0 end
local lease = str(now + tonumber(ARGV[3]))
redis.call('HSET', h, 'lease', lease)
redis.call('ZADD', KEYS[2], lease, ARGV[1])
return 1
