-- ARGV: id, 'RETRY' or 'COMPLETE', ttl ms, response status, headers, body. Only a key whose outcome is unknown:
-- so marked, or in flight past its lease and not yet swept; never a key a live owner holds.
local h, id = KEYS[1], ARGV[1]
local f = redis.call('HMGET', h, 'status', 'lease', 'expires')
local status = f[1]
if not (status == 'UNKNOWN' or status == 'IN_FLIGHT' and tonumber(f[2]) <= now) then return 0 end
if ARGV[2] == 'RETRY' then
  toRetryable(h, id, status, KEYS[2], KEYS[3], KEYS[5], tonumber(f[3]))
  return 1
end
-- The decided response is replayed for a full ttl from the decision.
local expires = str(now + tonumber(ARGV[3]))
redis.call('HSET', h, 'status', 'COMPLETED', 'rstatus', ARGV[4], 'rheaders', ARGV[5], 'rbody', ARGV[6],
    'updated', str(now), 'expires', expires)
redis.call('HDEL', h, 'lease')
redis.call('ZREM', KEYS[2], id)
redis.call('ZADD', KEYS[3], expires, id)
count(KEYS[5], status, 'COMPLETED')
return 1
