-- One bucket. KEYS: lease index, due index, created index, counts. ARGV: the bucket's hash-key prefix, limit,
-- expired-lease policy, unknown retention ms. The due index holds each key at the earliest time it may need the purge;
-- a key looked at and kept moves to its next such time, so each is read about once. Deletes completed and retryable
-- keys past their expiry and unknown keys past the retention (and their expiry); an in-flight key whose lease and ttl
-- both ran out gets the expired-lease policy first (the sweep's backstop). Answers {deleted, whether more may be due}.
local leases, dues, created, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local base, limit, policy, retention = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local deleted, examined = 0, 0
while deleted < limit and examined < limit * 4 do
  local ids = redis.call('ZRANGEBYSCORE', dues, '-inf', str(now), 'LIMIT', 0, limit - deleted)
  if #ids == 0 then return {deleted, 0} end
  for _, id in ipairs(ids) do
    examined = examined + 1
    local h = base .. id
    local f = redis.call('HMGET', h, 'status', 'lease', 'expires', 'updated')
    local status, expires = f[1], tonumber(f[3])
    if not status then
      redis.call('ZREM', leases, id)
      redis.call('ZREM', dues, id)
      redis.call('ZREM', created, id)
    else
      local updated = tonumber(f[4])
      if status == 'IN_FLIGHT' then
        local lease = tonumber(f[2])
        if lease <= now and expires <= now then
          if policy == 'RETRY' then
            toRetryable(h, id, status, leases, dues, counts, expires)
            status = 'RETRYABLE'
          else
            toUnknown(h, id, leases, dues, counts, expires, retention)
            status, updated = 'UNKNOWN', now
          end
        else
          redis.call('ZADD', dues, str(math.max(expires, lease)), id) -- never purged while in flight
        end
      end
      local due = nil
      if status == 'COMPLETED' or status == 'RETRYABLE' then due = expires
      elseif status == 'UNKNOWN' then due = math.max(expires, updated + retention) end
      if due and due <= now then
        forget(h, id, status, leases, dues, created, counts)
        deleted = deleted + 1
      elseif due then
        redis.call('ZADD', dues, str(due), id)
      else
        -- a status this version does not know, or a terminal key without its expiry: never deleted here, looked at
        -- again after the retention instead of at once (it would hold the bucket's purge in a loop)
        redis.call('ZADD', dues, str(now + retention), id)
      end
    end
  end
end
return {deleted, 1}
