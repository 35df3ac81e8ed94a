-- Google logins through the gateway with the ID tokens in $TOKENS (from line $START on), each
-- token once; on device $DEVICE. Saves "refreshToken accessToken" lines to $OUT.<thread>, and with $MEMBERS
-- the member ID of each login answered 200 to $MEMBERS.<thread>, a line each (deploy/loadtest/run's audit check).
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done
delay = common.delay

local tokens
local index = 0
local out
local members
local device = os.getenv("DEVICE") or "load-device"
local cycle = os.getenv("CYCLE") == "1"

function init(args)
  tokens = common.lines(os.getenv("TOKENS"), id, tonumber(os.getenv("THREADS")), tonumber(os.getenv("START") or "0"))
  if os.getenv("OUT") then out = io.open(os.getenv("OUT") .. "." .. id, "a") end
  if os.getenv("MEMBERS") then members = io.open(os.getenv("MEMBERS") .. "." .. id, "a") end
end

function request()
  if #tokens == 0 then
    wrk.thread:stop()
    return wrk.format("GET", "/healthz")
  end
  index = index + 1
  if index > #tokens then
    if not cycle then wrk.thread:stop() end
    index = 1
  end
  local body = '{"idToken": "' .. tokens[index] .. '", "deviceId": "' .. device .. '"}'
  return wrk.format("POST", "/api/auth/google-login", { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  -- A thread out of tokens asks for /healthz, a 200 that is no login.
  if members and status == 200 and body:find('"refreshToken"', 1, true) then
    members:write(body:match('"memberId":(%d+)') or "?", "\n")
  end
  if out and status == 200 then
    local refresh = body:match('"refreshToken":"([^"]+)"')
    local access = body:match('"accessToken":"([^"]+)"')
    if refresh and access then out:write(refresh, " ", access, "\n") end
  end
end
