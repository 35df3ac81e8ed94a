# Shared by the load-test scripts (run, ended-sessions); sourced after deploy/local/lib.sh, with
# `here` (this folder) and `root` (the repository) set. Reads GATEWAY_URL, DEV_IDP_URL and
# PROBE_REQUESTS, and STACK_RUN_DIR (the running stack's deploy/local/.run, default this
# repository's: its processes are the ones whose CPU and memory are read); sets URL, IDP, THREADS,
# run_dir, started_stack and work (a temporary folder, removed at exit, with the stack this started
# stopped).
URL=${GATEWAY_URL:-http://127.0.0.1:8080}
IDP=${DEV_IDP_URL:-http://127.0.0.1:9400}
THREADS=2
run_dir=${STACK_RUN_DIR:-$root/deploy/local/.run}
export LOADTEST_DIR="$here" THREADS

# rate_limited_answers: how many of PROBE_REQUESTS quick requests to /api/auth/ the gateway
# answers 429 (the limit applies before routing, so the unrouted path costs the stack nothing).
rate_limited_answers() {
  python3 - "$URL" "${PROBE_REQUESTS:-200}" <<'PY'
import http.client, sys, urllib.parse
url, count = urllib.parse.urlparse(sys.argv[1]), int(sys.argv[2])
conn, limited = None, 0
for _ in range(count):
    try:
        conn = conn or http.client.HTTPConnection(url.hostname, url.port or 80, timeout=10)
        conn.request("POST", "/api/auth/loadtest-rate-limit-probe", body=b"{}", headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        limited += response.status == 429
    except (OSError, http.client.HTTPException):
        conn = None
print(limited)
PY
}

# use_stack: uses the stack at URL, or starts one (RATE_LIMIT_RPS=0, LOG_LEVEL=warning) to stop at
# exit. A running stack that rate-limits /api/auth/* stops the script, saying how to restart it.
use_stack() {
  command -v wrk >/dev/null || ensure_packages
  started_stack=false
  work=$(mktemp -d /tmp/loadtest.XXXXXX)
  trap 'rm -rf "$work"; if $started_stack; then "$root/deploy/local/down" >/dev/null; fi' EXIT
  if ! curl -fsS "$URL/readyz?services=all" >/dev/null 2>&1; then
    log "no stack answers at $URL; starting one (RATE_LIMIT_RPS=0, LOG_LEVEL=warning)"
    RATE_LIMIT_RPS=0 LOG_LEVEL=warning "$root/deploy/local/up" >/dev/null
    started_stack=true
  else
    log "probing whether the running stack rate-limits /api/auth/*..."
    local limited
    limited=$(rate_limited_answers)
    if [ "$limited" != 0 ]; then
      log "the running stack rate-limits /api/auth/* ($limited of ${PROBE_REQUESTS:-200} probe requests answered 429);"
      if ls "$run_dir"/pids/*.pid >/dev/null 2>&1; then
        log "restart it with \`deploy/local/down && RATE_LIMIT_RPS=0 deploy/local/up\`"
      else
        log "restart its gateway with RATE_LIMIT_RPS=0 (docker-compose: \`RATE_LIMIT_RPS=0 docker-compose up -d gateway\`)"
      fi
      log "(or stop it: this script then starts a stack without the limit, and stops it after)"
      exit 1
    fi
  fi
  export RUN_ID=$(date +%s)
}

# wrk_run NAME SCRIPT TARGET SECONDS CONNECTIONS [VAR=value...]: runs wrk with SCRIPT (its
# variables after), keeps the JSON line `done` prints in $work/results.jsonl, with the CPU seconds
# each of the stack's processes (cpu.py sample) and wrk itself used meanwhile, and prints the line.
wrk_run() {
  local name=$1 script=$2 target=$3 seconds=$4 connections=$5
  shift 5
  local before after
  before=$(python3 "$here/cpu.py" sample "$run_dir")
  env "$@" python3 "$here/cpu.py" child "$work/$name.wrk-cpu" -- \
    wrk -t"$THREADS" -c"$connections" -d"${seconds}s" --latency -s "$here/$script" "$target" >"$work/$name.out" 2>&1 || true
  # The work a run leaves behind (events the outboxes still publish) is this run's: wait until the
  # stack is nearly idle (under a tenth of a core for half a second, at most 10 s) before the sample.
  after=$(python3 "$here/cpu.py" settle "$run_dir")
  local line
  line=$(grep '^{"requests"' "$work/$name.out" | tail -n 1 || true)
  [ -n "$line" ] || { cat "$work/$name.out" >&2; log "wrk produced no result for $name"; exit 1; }
  local wrk_cpu
  wrk_cpu=$(cat "$work/$name.wrk-cpu")
  [[ "$before" == "{"* && "$after" == "{"* && -n "$wrk_cpu" ]] || { log "no CPU sample for $name"; exit 1; }
  echo "{\"name\": \"$name\", \"result\": $line, \"cpu_before\": $before, \"cpu_after\": $after, \"wrk_cpu\": $wrk_cpu}" >>"$work/results.jsonl"
  echo "$line"
}

# mint_tokens SECONDS: mints distinct Google ID tokens at dev-idp for SECONDS into $work/idtokens,
# one a line, and prints how many.
mint_tokens() {
  wrk_run mint mint.lua "$IDP" "$1" 32 OUT="$work/idtokens" >/dev/null
  cat "$work"/idtokens.* >"$work/idtokens"
  wc -l <"$work/idtokens"
}
