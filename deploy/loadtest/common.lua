-- Shared by the load-test scripts: per-thread numbering, token files, and the JSON line that
-- `done` prints for the runner (requests/s, latency percentiles in ms, non-2xx count).
local common = {}
local threads = {}
local counter = 0

function common.setup(thread)
  thread:set("id", counter)
  table.insert(threads, thread)
  counter = counter + 1
end

-- Lines of FILE that belong to this thread (every THREADS-th, starting at START + id).
function common.lines(path, id, nthreads, start)
  local out = {}
  local index = 0
  for line in io.lines(path) do
    if index >= start and (index - start) % nthreads == id and #line > 0 then
      out[#out + 1] = line
    end
    index = index + 1
  end
  return out
end

function common.done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.3f, "p90_ms": %.3f, "p99_ms": %.3f, "non2xx": %d, "socket_errors": %d}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end

-- Throttle for the "p99 at half the rate" runs: each connection waits DELAY_MS between requests.
-- Nil at full rate: wrk then calls no delay function and schedules no timer per request, which
-- would cost the load generator CPU that the stack under test shares.
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
if delay_ms > 0 then
  common.delay = function() return delay_ms end
end

return common
