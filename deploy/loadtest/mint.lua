-- Mints distinct Google ID tokens at dev-idp (`POST /google/mint?format=raw`) and appends them,
-- one a line, to $OUT.<thread>: the identities of the first-login runs.
package.path = os.getenv("LOADTEST_DIR") .. "/?.lua;" .. package.path
local common = require("common")
setup = common.setup
done = common.done

local n = 0
local out
local run = os.getenv("RUN_ID") or "run"
local audience = os.getenv("AUDIENCE") or "dev-google-client"

function init(args)
  out = io.open(os.getenv("OUT") .. "." .. id, "a")
end

function request()
  n = n + 1
  local body = string.format('{"claims": {"sub": "load-%s-%d-%d", "aud": "%s", "email": "load%d-%d@example.com", "email_verified": true}}',
    run, id, n, audience, id, n)
  return wrk.format("POST", "/google/mint?format=raw", { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if status == 200 then
    out:write(body, "\n")
    out:flush()
  end
end
