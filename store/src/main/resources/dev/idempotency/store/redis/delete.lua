-- ARGV: id. Forgets a key unless a request holds it in flight under a live lease.
local h = KEYS[1]
local f = redis.call('HMGET', h, 'status', 'lease')
if not f[1] then return 0 end
if f[1] == 'IN_FLIGHT' and tonumber(f[2]) > now then return 0 end
forget(h, ARGV[1], f[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
