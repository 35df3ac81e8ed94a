-- Refreshes: each refresh token of $TOKENS (first field of each line, from line $START on) used once.
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done
delay = common.delay

local tokens
local index = 0

function init(args)
  tokens = common.lines(os.getenv("TOKENS"), id, tonumber(os.getenv("THREADS")), tonumber(os.getenv("START") or "0"))
end

function request()
  index = index + 1
  if index > #tokens then wrk.thread:stop(); index = 1 end
  local refresh = tokens[index]:match("^(%S+)")
  return wrk.format("POST", "/api/auth/refresh", { ["Content-Type"] = "application/json" },
    '{"refreshToken": "' .. refresh .. '"}')
end
