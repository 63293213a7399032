-- One bucket. KEYS: lease index, due index, created index, counts. ARGV: the bucket's hash-key prefix, look-back ms,
-- limit, expired-lease policy, unknown retention ms. Applies the policy to keys whose lease ran out within the
-- look-back; answers {changed, whether the limit was reached}.
local leases, dues, counts = KEYS[1], KEYS[2], KEYS[4]
local base, limit, policy, retention = ARGV[1], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local ids = redis.call('ZRANGEBYSCORE', leases, '(' .. str(now - tonumber(ARGV[2])), str(now), 'LIMIT', 0, limit)
local changed = 0
for _, id in ipairs(ids) do
  local h = base .. id
  local f = redis.call('HMGET', h, 'status', 'lease', 'expires')
  if f[1] ~= 'IN_FLIGHT' then
    redis.call('ZREM', leases, id) -- only keys in flight belong in the lease index
  elseif tonumber(f[2]) > now then
    redis.call('ZADD', leases, f[2], id) -- renewed: the index follows the key
  elseif policy == 'RETRY' then
    toRetryable(h, id, 'IN_FLIGHT', leases, dues, counts, tonumber(f[3]))
    changed = changed + 1
  else
    toUnknown(h, id, leases, dues, counts, tonumber(f[3]), retention)
    changed = changed + 1
  end
end
return {changed, #ids == limit and 1 or 0}
