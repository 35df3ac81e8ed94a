-- GET /api/members/me with the access tokens of $TOKENS (second field of each line), cycling.
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done
delay = common.delay

local requests
local index = 0

-- Every request is formatted once here, so the load generator spends its CPU on sending.
function init(args)
  requests = {}
  for _, line in ipairs(common.lines(os.getenv("TOKENS"), id, tonumber(os.getenv("THREADS")), 0)) do
    local access = line:match("^%S+ (%S+)")
    requests[#requests + 1] = wrk.format("GET", "/api/members/me", { ["Authorization"] = "Bearer " .. access }, nil)
  end
end

function request()
  index = index % #requests + 1
  return requests[index]
end
