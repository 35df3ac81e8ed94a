-- Google logins through the gateway with the ID tokens in $TOKENS (from line $START on), each
-- token once; on device $DEVICE. Saves "refreshToken accessToken" lines to $OUT.<thread>. Its line
-- counts the logins answered 200 with tokens ("logins_ok"), and with $MEMBERS each such login's member ID
-- goes to $MEMBERS.<thread>, a line each (the audit check of deploy/loadtest/run).
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = function(summary, latency, requests)
  common.done(summary, latency, requests, string.format(', "logins_ok": %d', common.sum("logins_ok")))
end
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

logins_ok = 0

function response(status, headers, body)
  -- A thread out of tokens asks for /healthz, a 200 that is no login.
  if status == 200 and body:find('"refreshToken"', 1, true) then
    logins_ok = logins_ok + 1
    if members then members:write(body:match('"memberId":(%d+)') or "?", "\n") end
  end
  if out and status == 200 then
    local refresh = body:match('"refreshToken":"([^"]+)"')
    local access = body:match('"accessToken":"([^"]+)"')
    if refresh and access then out:write(refresh, " ", access, "\n") end
  end
end
