-- One bucket. KEYS: created index. ARGV: the bucket's hash-key prefix, status or '', id prefix of a scope or '',
-- minimum age ms or -1, limit. Oldest first: up to limit summaries {id, status, fingerprint, attempts, lease, created,
-- updated, expires, response status, body bytes}. Reads no bodies.
local base, status, scope, age, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local bound = '+inf'
if age >= 0 then bound = str(now - age) end
local out, offset = {}, 0
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', bound, 'LIMIT', offset, 500)
  if #ids == 0 then break end
  offset = offset + #ids
  for _, id in ipairs(ids) do
    if scope == '' or string.sub(id, 1, #scope) == scope then
      local h = base .. id
      local f = redis.call('HMGET', h, 'status', 'fingerprint', 'attempts', 'lease', 'created', 'updated', 'expires', 'rstatus')
      if f[1] and (status == '' or f[1] == status) then
        local bytes = -1
        if f[8] then bytes = redis.call('HSTRLEN', h, 'rbody') end
        out[#out + 1] = {id, f[1], f[2] or false, f[3] or false, f[4] or false, f[5] or false, f[6] or false, f[7] or false,
            f[8] or false, bytes}
        if #out == limit then break end
      end
    end
  end
end
return out
