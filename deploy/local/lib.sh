# Shared by deploy/local/up, down and test: Debian packages, a throwaway PostgreSQL cluster
# and a nats-server with JetStream. Source it; it defines functions only.

# PostgreSQL's server programs (initdb, pg_ctl): PG_BIN when set, otherwise the newest
# /usr/lib/postgresql/<version>/bin that has both (find_pg_bin, run after the packages are in).
PG_BIN=${PG_BIN:-}

# Everything the build, the services and the scripts need, from Debian's archive.
PACKAGES=(pkg-config libssl-dev libpq-dev libnats-dev libmicrohttpd-dev libcurl4-openssl-dev
          postgresql postgresql-contrib nats-server curl python3 python3-venv wrk
          python3-yaml docker-compose)

log() { printf '%s\n' "$*" >&2; }

# install_missing PACKAGE...: installs those of them that are missing (apt-get update only when some are).
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# Installs the packages of PACKAGES that are missing, then checks for PostgreSQL's programs and Swift.
ensure_packages() {
  install_missing "${PACKAGES[@]}"
  # Debian's postgresql package may start its own cluster on 5432; ours are throwaway ones.
  find_pg_bin || return 1
  command -v swift >/dev/null || { log "swift is not on PATH (Swift 6.x toolchain needed)"; return 1; }
}

# Sets PG_BIN to the folder with PostgreSQL's initdb and pg_ctl: PG_BIN if the caller set it,
# otherwise the newest installed /usr/lib/postgresql/<version>/bin that has both. Fails, saying
# why, when there is none.
find_pg_bin() {
  if [ -n "$PG_BIN" ]; then
    [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] && return 0
    log "PG_BIN=$PG_BIN has no initdb and pg_ctl"
    return 1
  fi
  local dir version best="" best_version=-1
  for dir in /usr/lib/postgresql/*/bin; do
    version=${dir#/usr/lib/postgresql/}
    version=${version%/bin}
    [[ "$version" =~ ^[0-9]+$ ]] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] || continue
    if ((version > best_version)); then best=$dir best_version=$version; fi
  done
  if [ -z "$best" ]; then
    log "no PostgreSQL server found: no /usr/lib/postgresql/<version>/bin has initdb and pg_ctl."
    log "install Debian's postgresql package (apt-get install postgresql), or set PG_BIN to the folder that has them"
    return 1
  fi
  PG_BIN=$best
}

# The scripts' Python packages from PyPI live in a virtual environment of their own, made from
# Debian's python3 (Debian 12 refuses pip beside its own packages: PEP 668). Kept with the other
# local state, so removing deploy/local/.run removes it too.
PYTHON_VENV="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.run/venv"

# python_venv PACKAGE...: makes PYTHON_VENV if missing (python3-venv from Debian if that is
# missing) and installs into it those of the PyPI packages given that it lacks: each argument is
# "REQUIREMENT|MODULES", the pip requirement and the modules whose import tells that it is there
# (e.g. "pyjwt[crypto]|jwt, cryptography").
python_venv() {
  mkdir -p "$(dirname "$PYTHON_VENV")"
  (
    # One maker and installer at a time: deploy/local/test and property-test may start together.
    flock 9
    if [ ! -x "$PYTHON_VENV/bin/python" ]; then
      log "making a Python virtual environment in $PYTHON_VENV"
      rm -rf "$PYTHON_VENV"
      if ! /usr/bin/python3 -m venv "$PYTHON_VENV" >/dev/null 2>&1; then
        # Debian's python3 makes virtual environments only with python3-venv (pip's wheel).
        log "installing python3-venv from Debian"
        export DEBIAN_FRONTEND=noninteractive
        as_root apt-get update -qq
        as_root apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
        rm -rf "$PYTHON_VENV"
        /usr/bin/python3 -m venv "$PYTHON_VENV" || { log "could not make $PYTHON_VENV"; exit 1; }
      fi
    fi
    missing=()
    for spec in "$@"; do
      "$PYTHON_VENV/bin/python" -c "import ${spec#*|}" 2>/dev/null || missing+=("${spec%%|*}")
    done
    ((${#missing[@]})) || exit 0
    log "installing from PyPI into $PYTHON_VENV: ${missing[*]}"
    "$PYTHON_VENV/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
  ) 9>"$(dirname "$PYTHON_VENV")/venv.lock"
}

# PyJWT (a third-party JWT library the tests check our tokens with) and kubernetes-validate (the
# manifests of deploy/k8s against the Kubernetes API, offline) in PYTHON_VENV; the test
# command puts PYTHON_VENV/bin first on PATH, so the tests' `python3` has it.
ensure_python_packages() {
  python_venv "pyjwt[crypto]|jwt, cryptography" "kubernetes-validate|kubernetes_validate"
}

# scope_secrets NAME: unsets, in the calling (sub)shell, the secrets service NAME does not read, so each
# secret reaches only its reader: the provider-token key, Naver's client secret and the Apple key the
# token-verifier's; dev-idp's own copies dev-idp's; the admins' tokens file the admin-api's; the webhooks
# file (the endpoints' signing secrets) the webhook-relay's. (The database passwords and NATS seeds are
# given per service where it starts.)
scope_secrets() {
  [ "$1" = token-issuer ] || unset REFRESH_TOKEN_KEY_FILE
  [ "$1" = token-verifier ] || unset PROVIDER_TOKEN_KEY PROVIDER_TOKEN_KEY_FILE NAVER_CLIENT_SECRET NAVER_CLIENT_SECRET_FILE APPLE_PRIVATE_KEY_FILE
  [ "$1" = dev-idp ] || unset DEV_IDP_NAVER_CLIENT_SECRET DEV_IDP_APPLE_KEY_FILE
  [ "$1" = admin-api ] || unset ADMIN_TOKENS_FILE
  [ "$1" = webhook-relay ] || unset WEBHOOKS_FILE
}

# provider_token_key_file DIR: makes DIR/provider-token.key once (32 random bytes, base64url, 0600) and
# exports PROVIDER_TOKEN_KEY_FILE naming it; one given as PROVIDER_TOKEN_KEY is used as it is.
provider_token_key_file() {
  [ -z "${PROVIDER_TOKEN_KEY:-}" ] || return 0
  [ -s "$1/provider-token.key" ] || (umask 077 && openssl rand 32 | basenc --base64url | tr -d '=\n' >"$1/provider-token.key")
  chmod 600 "$1/provider-token.key"
  export PROVIDER_TOKEN_KEY_FILE="$1/provider-token.key"
}

# refresh_token_key_file DIR: makes DIR/refresh-token.key once (48 random bytes, base64, 0600) and
# exports REFRESH_TOKEN_KEY_FILE naming it; one given from outside is used as it is.
refresh_token_key_file() {
  [ -z "${REFRESH_TOKEN_KEY_FILE:-}" ] || return 0
  [ -s "$1/refresh-token.key" ] || (umask 077 && openssl rand -base64 48 | tr -d '\n' >"$1/refresh-token.key")
  chmod 600 "$1/refresh-token.key"
  export REFRESH_TOKEN_KEY_FILE="$1/refresh-token.key"
}

# dev_admin_tokens_file DIR: the admin-api's development admin, `dev-admin`: a random token made once
# (DIR/admin-token, 0600) and the tokens file the admin-api reads (DIR/admin-tokens, 0600: one admin a
# line, `name:sha256-hex-of-token`), whose dev-admin line follows the token; other lines written
# there are kept (the admin-api re-reads the file when it changes). Exports ADMIN_TOKENS_FILE naming
# it and sets ADMIN_TOKEN (not exported) to the token. One given as ADMIN_TOKENS_FILE is used as it is.
dev_admin_tokens_file() {
  local dir=$1 hash line
  ADMIN_TOKEN=""
  [ -z "${ADMIN_TOKENS_FILE:-}" ] || return 0
  [ -s "$dir/admin-token" ] || (umask 077 && openssl rand -hex 32 | tr -d '\n' >"$dir/admin-token")
  chmod 600 "$dir/admin-token"
  ADMIN_TOKEN=$(cat "$dir/admin-token")
  hash=$(printf '%s' "$ADMIN_TOKEN" | sha256sum | cut -d' ' -f1)
  line="dev-admin:$hash"
  if ! grep -qxF "$line" "$dir/admin-tokens" 2>/dev/null; then
    (
      umask 077
      { echo "# The admins of the local stack's admin-api: name:sha256-hex-of-token, one a line (deploy/local/up)."
        grep -v -e '^dev-admin:' -e '^# The admins of the local stack' "$dir/admin-tokens" 2>/dev/null || true
        echo "$line"; } >"$dir/admin-tokens.tmp"
    )
    mv -f "$dir/admin-tokens.tmp" "$dir/admin-tokens"
  fi
  chmod 600 "$dir/admin-tokens"
  export ADMIN_TOKENS_FILE="$dir/admin-tokens"
}

# dev_idp_environment IDP_URL DIR: exports the services' provider settings (and dev-idp's) that point
# every provider at the dev-idp at IDP_URL, with Sign in with Apple's key made once in DIR/apple-key.p8.
dev_idp_environment() {
  local idp=$1 dir=$2
  export GOOGLE_CLIENT_IDS=dev-google-client GOOGLE_ISSUERS="$idp/google" GOOGLE_JWKS_URL="$idp/google/jwks"
  export APPLE_CLIENT_IDS=dev.apple.client APPLE_ISSUER="$idp/apple" APPLE_JWKS_URL="$idp/apple/jwks"
  export KAKAO_CLIENT_IDS=dev-kakao-client KAKAO_ISSUER="$idp/kakao" KAKAO_JWKS_URL="$idp/kakao/jwks"
  # Naver's client secret as a file, 0600, for the verifier (scope_secrets keeps it from the others).
  (umask 077 && printf '%s' dev-naver-secret >"$dir/naver-client-secret")
  export NAVER_CLIENT_ID=dev-naver-client NAVER_CLIENT_SECRET_FILE="$dir/naver-client-secret"
  export NAVER_PROFILE_URL="$idp/naver/v1/nid/me" NAVER_TOKEN_URL="$idp/naver/oauth2.0/token"
  export DEV_IDP_NAVER_CLIENT_ID=$NAVER_CLIENT_ID DEV_IDP_NAVER_CLIENT_SECRET=dev-naver-secret
  # Sign in with Apple's code exchange and revocation, against dev-idp, with a key made once (0600).
  [ -f "$dir/apple-key.p8" ] || (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/apple-key.p8" 2>/dev/null)
  chmod 600 "$dir/apple-key.p8"
  export APPLE_TEAM_ID=DEVTEAM001 APPLE_KEY_ID=DEVKEY0001 APPLE_PRIVATE_KEY_FILE="$dir/apple-key.p8"
  export APPLE_TOKEN_URL="$idp/apple/auth/token" APPLE_REVOKE_URL="$idp/apple/auth/revoke"
  export DEV_IDP_APPLE_TEAM_ID=$APPLE_TEAM_ID DEV_IDP_APPLE_KEY_ID=$APPLE_KEY_ID DEV_IDP_APPLE_KEY_FILE=$APPLE_PRIVATE_KEY_FILE
  export DEV_IDP_APPLE_CLIENT_ID=dev.apple.client
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# close_other_fds: closes every file descriptor of this shell above 2. Call it in a subshell just
# before `exec`, so that a server started in the background holds none of its starter's pipes or
# locks (`deploy/local/up | tee up.log` would otherwise never end: tee waits for every writer).
close_other_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    ((fd > 2)) && eval "exec $fd>&-"
  done
  return 0
}

# spawn LOG COMMAND [ARG...]: starts COMMAND in the background, detached from the caller: stdin
# from /dev/null, stdout and stderr appended to LOG, no other descriptor of the caller's, hang-ups
# ignored (as nohup does) and a process group of its own, so that the terminal's Ctrl-C, which
# goes to its foreground group, does not reach it. Sets SPAWNED_PID to its PID.
#
# A process group, not a session (setsid): Linux schedules each session as one group (autogroup),
# and with a session per server every hand-off between them (a NATS message, a reply) was a
# wake-up across groups; nats-server's CPU per GET /api/members/me doubled and the stack answered
# a third fewer (a bisection with deploy/loadtest/run, docs/performance.md).
spawn() {
  local logfile=$1
  shift
  (
    close_other_fds
    trap '' HUP
    exec python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(sys.argv[1], sys.argv[1:])' "$@" </dev/null >>"$logfile" 2>&1
  ) &
  SPAWNED_PID=$!
}

# wait_port HOST PORT SECONDS: waits until something accepts connections there.
wait_port() {
  local host=$1 port=$2 seconds=${3:-30} i
  for ((i = 0; i < seconds * 10; i++)); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# port_free PORT: true when nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_postgres DIR PORT [extra server options]: a cluster in DIR/data listening on
# 127.0.0.1:PORT, with role and database `auth` (password `auth`, may create databases).
start_postgres() {
  local dir=$1 port=$2 extra=${3:-}
  find_pg_bin || return 1
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    echo postgres >"$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/pwfile"
    as_postgres "$PG_BIN/initdb" -D "$dir/data" -A scram-sha-256 -U postgres --pwfile="$dir/pwfile" --no-sync >/dev/null
  fi
  # pg_ctl starts the server with its output in postgres.log and stdin from /dev/null; the
  # subshell keeps the caller's other descriptors from it too.
  (
    close_other_fds
    as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 $extra" start </dev/null >/dev/null
  )
  if ! PGPASSWORD=postgres psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc \
       "select 1 from pg_roles where rolname = 'auth'" | grep -q 1; then
    PGPASSWORD=postgres psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -q \
      -c "create role auth login password 'auth' createdb" -c "create database auth owner auth" >/dev/null
  fi
}

# stop_postgres DIR
stop_postgres() {
  local dir=$1
  find_pg_bin || return 1
  [ -f "$dir/data/postmaster.pid" ] && as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1
  return 0
}

# make_nats_identities NATS_AUTH DIR [test]: a seed per identity in DIR (kept when there) and
# DIR/auth.conf, nats-server's authorization made from the permission table by the nats-auth
# executable NATS_AUTH. With "test", also an unrestricted tests.nk for the tests' own connections.
make_nats_identities() {
  local tool=$1 dir=$2
  mkdir -p "$dir"
  chmod 700 "$dir"
  "$tool" seeds "$dir" >/dev/null
  if [ "${3:-}" = test ]; then
    "$tool" seed "$dir/tests.nk"
    "$tool" config "$dir" --test-user "$dir/tests.nk" >"$dir/auth.conf.tmp"
  else
    "$tool" config "$dir" >"$dir/auth.conf.tmp"
  fi
  mv "$dir/auth.conf.tmp" "$dir/auth.conf"
}

# start_nats DIR PORT MONITOR_PORT [AUTH_CONF]: nats-server with JetStream (store in DIR/js), with
# the authorization in AUTH_CONF when given (make_nats_identities).
start_nats() {
  local dir=$1 port=$2 monitor=$3 auth=${4:-}
  mkdir -p "$dir"
  spawn "$dir/nats.log" nats-server -a 127.0.0.1 -p "$port" --http_port "$monitor" -js -sd "$dir/js" \
    -P "$dir/nats.pid" -l "$dir/nats.log" ${auth:+-c "$auth"}
  wait_port 127.0.0.1 "$port" 30 || { log "nats-server did not start; see $dir/nats.log"; return 1; }
}

# stop_nats DIR: stops it and waits (up to 10 s) until it has exited, so its port is free again.
stop_nats() {
  local dir=$1 pid
  [ -f "$dir/nats.pid" ] || return 0
  pid=$(cat "$dir/nats.pid")
  kill "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$dir/nats.pid"
  return 0
}

# A NATS cluster (deploy/local/up with NATS_CLUSTER=N): node I (1..N) in DIR-I, listening for
# clients on PORT+I-1, for monitoring on MONITOR_PORT+I-1 and for its routes on ROUTE_PORT+I-1,
# all on 127.0.0.1; JetStream on each with a store of its own (DIR-I/js), the same client
# authorization (AUTH_CONF, copied beside its configuration: nats-server includes relative paths
# only), and routes that sign in with a password made once and kept in SECRET_DIR/route.password.
# DIR-I/nats.conf holds the whole configuration, so a node restarts alike (start_nats_node).

# nats_cluster_servers PORT SIZE: the client URLs of the nodes, comma-separated (NATS_URL).
nats_cluster_servers() {
  local port=$1 size=$2 i urls=()
  for ((i = 0; i < size; i++)); do urls+=("nats://127.0.0.1:$((port + i))"); done
  (IFS=,; echo "${urls[*]}")
}

# write_nats_cluster DIR SIZE PORT MONITOR_PORT ROUTE_PORT AUTH_CONF SECRET_DIR: each node's folder
# and configuration.
write_nats_cluster() {
  local dir=$1 size=$2 port=$3 monitor=$4 route=$5 auth=$6 secrets=$7 i j password routes
  [ -s "$secrets/route.password" ] || (umask 077 && openssl rand -hex 24 >"$secrets/route.password")
  password=$(cat "$secrets/route.password")
  for ((i = 1; i <= size; i++)); do
    mkdir -p "$dir-$i"
    chmod 700 "$dir-$i"
    routes=()
    for ((j = 1; j <= size; j++)); do
      ((j == i)) || routes+=("\"nats-route://route:$password@127.0.0.1:$((route + j - 1))\"")
    done
    cp "$auth" "$dir-$i/auth.conf"
    (umask 077 && cat >"$dir-$i/nats.conf" <<EOC
# Node $i of $size, made by deploy/local/up (lib.sh's write_nats_cluster). Do not edit.
server_name: "n$i"
listen: "127.0.0.1:$((port + i - 1))"
http: "127.0.0.1:$((monitor + i - 1))"
jetstream { store_dir: "$dir-$i/js" }
cluster {
  name: "auth-local"
  listen: "127.0.0.1:$((route + i - 1))"
  authorization { user: "route", password: "$password" }
  routes: [ $(IFS=,; echo "${routes[*]}") ]
}
include "auth.conf"
EOC
    )
  done
}

# start_nats_node DIR: starts the node whose folder is DIR (write_nats_cluster) in the background.
start_nats_node() {
  local dir=$1
  spawn "$dir/nats.log" nats-server -c "$dir/nats.conf" -P "$dir/nats.pid" -l "$dir/nats.log"
}

# nats_node_ready MONITOR_PORT: true when the node answers /healthz with 200, which nats-server
# does once its JetStream is up and current with the cluster's.
nats_node_ready() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/healthz" 2>/dev/null; }

# wait_nats_node MONITOR_PORT SECONDS: waits until nats_node_ready.
wait_nats_node() {
  local monitor=$1 seconds=${2:-60} i
  for ((i = 0; i < seconds * 10; i++)); do
    nats_node_ready "$monitor" && return 0
    sleep 0.1
  done
  return 1
}

# start_nats_cluster DIR SIZE PORT MONITOR_PORT ROUTE_PORT AUTH_CONF SECRET_DIR: writes and starts
# the nodes and waits until every one is ready (routes up, a JetStream leader elected).
start_nats_cluster() {
  local dir=$1 size=$2 port=$3 monitor=$4 i
  write_nats_cluster "$@"
  for ((i = 1; i <= size; i++)); do start_nats_node "$dir-$i"; done
  for ((i = 1; i <= size; i++)); do
    wait_nats_node $((monitor + i - 1)) 60 || { log "NATS node $i is not ready; see $dir-$i/nats.log"; return 1; }
  done
}

# stop_nats_cluster DIR: stops every node DIR-I.
stop_nats_cluster() {
  local node
  for node in "$1"-[0-9]*; do [ -d "$node" ] && stop_nats "$node"; done
  return 0
}

# The local stack's replicas (deploy/local/up). Each one's files are in RUN/pids:
# NAME-INDEX.pid (its process), NAME-INDEX.port (its management port, for the services) and
# NAME-INDEX.env (the environment it was started with, NUL-separated, readable by its owner only),
# so that a restart starts it again with the same settings; RUN/bin names the folder of the
# executables. Its output is appended to RUN/logs/NAME-INDEX.log.

# management_port NAME INDEX: the management port (/healthz, /readyz, /metrics) of replica INDEX
# (1-99) of NAME on the local stack: its service's hundred plus the index, i.e. gateway 9101-9199,
# token-verifier 9201-9299, member-service 9301-9399, token-issuer 9501-9599, admin-api 9601-9699,
# webhook-relay 9701-9799 (9400 is dev-idp's). Fails for dev-idp, which has none.
management_port() {
  local base
  case $1 in
    gateway) base=9100 ;;
    token-verifier) base=9200 ;;
    member-service) base=9300 ;;
    token-issuer) base=9500 ;;
    admin-api) base=9600 ;;
    webhook-relay) base=9700 ;;
    *) return 1 ;;
  esac
  echo $((base + $2))
}

# record_replica RUN NAME INDEX: records this shell's environment, with the replica's
# MANAGEMENT_PORT, as the settings of replica INDEX of NAME.
record_replica() {
  local run=$1 name=$2 index=$3 port
  if port=$(management_port "$name" "$index"); then
    echo "$port" >"$run/pids/$name-$index.port"
    (umask 077 && MANAGEMENT_PORT=$port env -0 >"$run/pids/$name-$index.env")
  else
    (umask 077 && env -0 >"$run/pids/$name-$index.env")
  fi
}

# start_replica RUN NAME INDEX: starts replica INDEX of NAME, detached (spawn), with exactly the
# environment record_replica recorded, and records its PID.
start_replica() {
  local run=$1 name=$2 index=$3 bin vars
  bin=$(cat "$run/bin")
  mapfile -d '' vars <"$run/pids/$name-$index.env"
  spawn "$run/logs/$name-$index.log" env -i "${vars[@]}" "$bin/$name"
  echo "$SPAWNED_PID" >"$run/pids/$name-$index.pid"
}

# alive PID: true while the process runs (a zombie, exited but not yet reaped, is not alive).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# wait_ready RUN NAME INDEX [SECONDS]: waits (default 60 s) until the replica's management port
# answers /readyz with 200. Fails at once, saying so, if the process has exited.
wait_ready() {
  local run=$1 name=$2 index=$3 seconds=${4:-60} pid port i
  pid=$(cat "$run/pids/$name-$index.pid")
  port=$(cat "$run/pids/$name-$index.port")
  for ((i = 0; i < seconds * 10; i++)); do
    if ! alive "$pid"; then
      log "$name-$index (PID $pid) exited before it was ready; see $run/logs/$name-$index.log"
      return 1
    fi
    curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" 2>/dev/null && return 0
    sleep 0.1
  done
  log "$name-$index is not ready after ${seconds}s (http://127.0.0.1:$port/readyz); see $run/logs/$name-$index.log"
  curl -sS --max-time 2 "http://127.0.0.1:$port/readyz" >&2 || true
  return 1
}

# stop_replica RUN NAME INDEX [SECONDS]: sends the replica SIGTERM and waits (default 30 s) until
# it has exited; then kills it (SIGKILL) and fails, saying so. Its settings stay recorded.
stop_replica() {
  local run=$1 name=$2 index=$3 seconds=${4:-30} pid i
  pid=$(cat "$run/pids/$name-$index.pid")
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < seconds * 10; i++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  log "$name-$index (PID $pid) did not exit within ${seconds}s of SIGTERM; killed"
  kill -KILL "$pid" 2>/dev/null
  return 1
}

# restart_replica RUN NAME INDEX: stops the replica (SIGTERM, waits until it has exited), starts
# it anew with the same settings, and waits until its /readyz answers 200.
restart_replica() {
  stop_replica "$1" "$2" "$3" && start_replica "$1" "$2" "$3" && wait_ready "$1" "$2" "$3"
}
