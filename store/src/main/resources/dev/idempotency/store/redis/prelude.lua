-- Prepended to every script of the Redis store. Every time is the server's (TIME), in milliseconds since the epoch,
-- read once per script: a script runs atomically, so all it writes carries one instant.
-- Numbers are written with '%.0f': Lua numbers are doubles, and their default text form goes exponential.
-- Per-key scripts take KEYS = hash, lease index, due index, created index, counts; ARGV[1] = the key's id.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function str(n) return string.format('%.0f', n) end

local function count(counts, from, to)
  if from then redis.call('HINCRBY', counts, from, -1) end
  if to then redis.call('HINCRBY', counts, to, 1) end
end

-- An owner's lease ran out with no result (reconcile): the owner keeps its token, so a late completion still records
-- the truth. Kept at least for the unknown-retention from now, and never before its ttl ran out.
local function toUnknown(h, id, leases, dues, counts, expires, retention)
  redis.call('HSET', h, 'status', 'UNKNOWN', 'updated', str(now))
  redis.call('HDEL', h, 'lease')
  redis.call('ZREM', leases, id)
  redis.call('ZADD', dues, str(math.max(expires, now + retention)), id)
  count(counts, 'IN_FLIGHT', 'UNKNOWN')
end

-- Given up without a result worth keeping: the next request with the same fingerprint runs.
local function toRetryable(h, id, from, leases, dues, counts, expires)
  redis.call('HSET', h, 'status', 'RETRYABLE', 'updated', str(now))
  redis.call('HDEL', h, 'token', 'lease')
  redis.call('ZREM', leases, id)
  redis.call('ZADD', dues, str(expires), id)
  count(counts, from, 'RETRYABLE')
end

local function forget(h, id, status, leases, dues, created, counts)
  redis.call('DEL', h)
  redis.call('ZREM', leases, id)
  redis.call('ZREM', dues, id)
  redis.call('ZREM', created, id)
  count(counts, status, nil)
end
