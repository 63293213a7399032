-- ARGV: id, token, response status, headers, body, '1' when sent again after a broken connection. Only the owner,
-- while in flight or unknown (a slow owner whose lease ran out still records the truth). The lease is dropped: a
-- completed key shows none. A key that already holds this very response from this owner was completed by it: an
-- earlier sending went in (after a broken connection, or a timeout the caller then tried again), and it won.
local h, id = KEYS[1], ARGV[1]
local f = redis.call('HMGET', h, 'status', 'token', 'expires')
if f[1] == 'COMPLETED' and f[2] == ARGV[2] then
  -- Its first sending went in if the key holds this very response from this owner.
  local r = redis.call('HMGET', h, 'rstatus', 'rheaders', 'rbody')
  if r[1] == ARGV[3] and r[2] == ARGV[4] and r[3] == ARGV[5] then return 1 end
  return 0
end
if f[2] ~= ARGV[2] or (f[1] ~= 'IN_FLIGHT' and f[1] ~= 'UNKNOWN') then return 0 end
redis.call('HSET', h, 'status', 'COMPLETED', 'rstatus', ARGV[3], 'rheaders', ARGV[4], 'rbody', ARGV[5], 'updated', str(now))
redis.call('HDEL', h, 'lease')
redis.call('ZREM', KEYS[2], id)
-- In flight, its due time is its expiry already (reserve set both), unless the purge looked at it past its expiry
-- and moved it to the lease's end: then the purge looks at it once more at that time, a little late, and deletes it.
if f[1] == 'UNKNOWN' then redis.call('ZADD', KEYS[3], f[3], id) end
count(KEYS[5], f[1], 'COMPLETED')
return 1
