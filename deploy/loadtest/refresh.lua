-- Refreshes through the gateway. Each thread starts with its share of the sessions in $TOKENS
-- (first field of each line) and keeps a pool: a request takes a refresh token out, its answer
-- puts the rotated one back. So every refresh token is presented exactly once (no reuse) and
-- the pool never runs dry, however long the run.
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done
delay = common.delay

local pool = {}
local first, last = 1, 0

local function push(token)
  last = last + 1
  pool[last] = token
end

local function pop()
  if first > last then return nil end
  local token = pool[first]
  pool[first] = nil
  first = first + 1
  return token
end

function init(args)
  for _, line in ipairs(common.lines(os.getenv("TOKENS"), id, tonumber(os.getenv("THREADS")), 0)) do
    push(line:match("^(%S+)"))
  end
end

function request()
  local refresh = pop()
  if not refresh then
    -- Every token of this thread is in flight: send one that fails fast, counted as non-2xx.
    refresh = "pool-empty"
  end
  return wrk.format("POST", "/api/auth/refresh", { ["Content-Type"] = "application/json" },
    '{"refreshToken": "' .. refresh .. '"}')
end

function response(status, headers, body)
  if status == 200 then
    local rotated = body:match('"refreshToken":"([^"]+)"')
    if rotated then push(rotated) end
  end
end
