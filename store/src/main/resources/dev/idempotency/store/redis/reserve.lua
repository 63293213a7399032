-- ARGV: id, fingerprint, token, lease ms, ttl ms, expired-lease policy, unknown retention ms.
local h, leases, dues, created, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, fingerprint, token = ARGV[1], ARGV[2], ARGV[3]
local leaseMs, ttlMs, policy, retention = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local f = redis.call('HMGET', h, 'status', 'fingerprint', 'token', 'lease', 'expires', 'attempts', 'rstatus', 'rheaders', 'rbody')
local status = f[1]

-- A key acquired (again) lives a full ttl from now: an attempt near the end of the key's life must not see it purged.
-- Every call a script makes costs the server more than the command itself: a new key takes one HSET and no HDEL.
local function own(attempts, asNew)
  local expires = now + ttlMs
  local at = str(now)
  if asNew then
    redis.call('HSET', h, 'fingerprint', fingerprint, 'status', 'IN_FLIGHT', 'token', token, 'lease',
        str(now + leaseMs), 'attempts', str(attempts), 'updated', at, 'expires', str(expires), 'created', at)
    if status then redis.call('HDEL', h, 'rstatus', 'rheaders', 'rbody') end -- an expired key's old response
    redis.call('ZADD', created, at, id)
  else
    redis.call('HSET', h, 'fingerprint', fingerprint, 'status', 'IN_FLIGHT', 'token', token, 'lease',
        str(now + leaseMs), 'attempts', str(attempts), 'updated', at, 'expires', str(expires))
  end
  redis.call('ZADD', leases, str(now + leaseMs), id)
  redis.call('ZADD', dues, str(expires), id)
end

if not status then
  own(1, true)
  count(counts, nil, 'IN_FLIGHT')
  return {'ACQUIRED'}
end
local terminal = status == 'COMPLETED' or status == 'RETRYABLE'
if not terminal and status ~= 'IN_FLIGHT' and status ~= 'UNKNOWN' then return {'CORRUPT', status} end
if terminal and tonumber(f[5]) <= now then
  own(1, true) -- an expired key counts as new
  count(counts, status, 'IN_FLIGHT')
  return {'ACQUIRED'}
end
-- Tokens are random: this one in flight means this very reservation went in before (sent again after a broken
-- connection whose answer was lost).
if status == 'IN_FLIGHT' and f[3] == token then return {'ACQUIRED'} end
if f[2] ~= fingerprint then return {'MISMATCH'} end
if status == 'COMPLETED' then return {'REPLAY', f[7] or false, f[8] or false, f[9] or false} end
if status == 'UNKNOWN' then return {'OUTCOME_UNKNOWN'} end
if status == 'RETRYABLE' then
  own(tonumber(f[6]) + 1, false)
  count(counts, status, 'IN_FLIGHT')
  return {'REACQUIRED'}
end
local leaseAt = tonumber(f[4])
if leaseAt > now then return {'IN_FLIGHT', leaseAt - now} end
if policy == 'RETRY' then
  own(tonumber(f[6]) + 1, false)
  return {'REACQUIRED'}
end
toUnknown(h, id, leases, dues, counts, tonumber(f[5]), retention)
return {'OUTCOME_UNKNOWN'}
