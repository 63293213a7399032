-- wrk script of demo-apps/bench/run.sh. Every request is the same small JSON POST; the environment picks the key:
--   BENCH_MODE=plain   no Idempotency-Key (wrk's static request: no Lua per request)
--   BENCH_MODE=fresh   a new key per request: BENCH_PREFIX-<thread>-<counter>
--   BENCH_MODE=replay  keys BENCH_PREFIX-0 .. BENCH_PREFIX-<BENCH_KEYS - 1>, completed beforehand, again and again
-- Keyed modes check every answer: 200, with "Idempotent-Replayed: true" exactly when replaying. Prints one RESULT line.
local mode = os.getenv("BENCH_MODE") or "plain"
local prefix = os.getenv("BENCH_PREFIX") or "bench"
local pool = tonumber(os.getenv("BENCH_KEYS") or "1000")

wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY") or '{"amount":1250,"currency":"EUR"}'
wrk.headers["Content-Type"] = "application/json"

local threads = {}

function setup(thread)
   thread:set("tid", #threads)
   table.insert(threads, thread)
end

if mode == "fresh" or mode == "replay" then
   local counter = 0
   unexpected = 0
   sample = nil

   function request()
      counter = counter + 1
      local key
      if mode == "fresh" then
         key = prefix .. "-" .. tid .. "-" .. counter
      else
         -- threads start at different places in the pool so they rarely ask for the same key at once
         key = prefix .. "-" .. ((tid * 7919 + counter) % pool)
      end
      return wrk.format(nil, nil, { ["Content-Type"] = "application/json", ["Idempotency-Key"] = key }, nil)
   end

   function response(status, headers, body)
      local replayed = false
      for name, value in pairs(headers) do
         if string.lower(name) == "idempotent-replayed" and value == "true" then replayed = true end
      end
      if status ~= 200 or replayed ~= (mode == "replay") then
         unexpected = unexpected + 1
         if sample == nil then
            sample = "status " .. status .. ", replayed " .. tostring(replayed) .. ": " .. string.sub(body or "", 1, 200)
         end
      end
   end
elseif mode ~= "plain" then
   error("BENCH_MODE must be plain, fresh or replay, not " .. mode)
end

function done(summary, latency, requests)
   local unexpected_total = 0
   local first_sample = nil
   for _, thread in ipairs(threads) do
      unexpected_total = unexpected_total + (thread:get("unexpected") or 0)
      first_sample = first_sample or thread:get("sample")
   end
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d unexpected=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
      e.connect + e.read + e.write + e.timeout + e.status, unexpected_total))
   if first_sample then io.write("SAMPLE " .. string.gsub(first_sample, "[\r\n]", " ") .. "\n") end
end
