-- One bucket. KEYS: created index. ARGV: the bucket's hash-key prefix, status or '', id prefix of a scope or '',
-- latest creation time (ms), limit, rank in the created index to start at. Oldest first: up to limit summaries
-- {id, status, fingerprint, attempts, lease, created, updated, expires, response status, body bytes}, and the rank to
-- go on from (-1: the bucket holds no more). Looks at no more than a chunk of the index per call, so that an operator's
-- listing never holds the server (a script runs alone) for long; reads no bodies.
local CHUNK = 1000
local base, status, scope = ARGV[1], ARGV[2], ARGV[3]
local bound, limit, from = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local entries = redis.call('ZRANGE', KEYS[1], from, from + CHUNK - 1, 'WITHSCORES')
local out, rank = {}, from
for i = 1, #entries, 2 do
  local id = entries[i]
  if tonumber(entries[i + 1]) > bound then return {out, -1} end
  rank = rank + 1
  if scope == '' or string.sub(id, 1, #scope) == scope then
    local h = base .. id
    local f = redis.call('HMGET', h, 'status', 'fingerprint', 'attempts', 'lease', 'created', 'updated', 'expires', 'rstatus')
    if f[1] and (status == '' or f[1] == status) then
      local bytes = -1
      if f[8] then bytes = redis.call('HSTRLEN', h, 'rbody') end
      out[#out + 1] = {id, f[1], f[2] or false, f[3] or false, f[4] or false, f[5] or false, f[6] or false, f[7] or false,
          f[8] or false, bytes}
      if #out == limit then return {out, rank} end
    end
  end
end
if #entries < 2 * CHUNK then return {out, -1} end
return {out, rank}
