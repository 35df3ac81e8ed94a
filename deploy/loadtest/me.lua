-- GET /api/members/me with the access tokens of $TOKENS (second field of each line), cycling.
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done
delay = common.delay

local tokens
local index = 0

function init(args)
  tokens = common.lines(os.getenv("TOKENS"), id, tonumber(os.getenv("THREADS")), 0)
end

function request()
  index = index % #tokens + 1
  local access = tokens[index]:match("^%S+ (%S+)")
  return wrk.format("GET", "/api/members/me", { ["Authorization"] = "Bearer " .. access }, nil)
end
