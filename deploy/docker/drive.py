"""The checks of deploy/docker/test against a running compose stack (run by it; not on its own).

0. webhooks: the dev profile's webhook-relay posts every event to dev-idp's inbox `dev`. Told the
   endpoint's secret (PUT), the inbox checks each delivery's signature; a member logged in and then
   deleted through the gateway must have its member.created and member.deleted there within
   WEBHOOK_WAIT seconds, every delivery of them signed right, each delivered once though two relays
   run.
1. providers: a login with each provider through the containerised gateway (Google, Apple with an
   authorization code that the verifier exchanges at dev-idp, Kakao, Naver), and a refresh of each.
2. deletions: DELETE /api/members/me of the Apple and Naver members; dev-idp must then report each
   Apple grant revoked and each Naver token deleted (GET /stats).
3. faults: a steady load (workers: mint a Google ID token, log in, refresh) over both gateways while
   one container of each service is killed (docker kill, started again a few seconds later), then
   nats and postgres are each stopped for OUTAGE_SECONDS and started again.
   - kills: at most 1% of the logins in the kill window may fail;
   - nats/postgres: every failure meanwhile is a 503 or 504, and none comes later than 5 s
     after the server answers its health check again.
4. every refresh token handed out (providers and load) must still refresh.

Writes its figures as JSON to the file named by RESULTS and exits 1 if a check failed.
Environment: GATEWAY_PORTS (comma-separated host ports), DEV_IDP_URL, PROJECT (compose project),
WEBHOOK_SECRET (the dev profile's webhooks file's secret), WORKERS (8), OUTAGE_SECONDS (5),
SETTLE_SECONDS (8), WEBHOOK_WAIT (60), RESULTS.
"""
import http.client, importlib.util, json, os, subprocess, sys, threading, time, urllib.parse

# The session the local fault runs drive (deploy/faults/drive.py), the same here.
_spec = importlib.util.spec_from_file_location(
    "fault_drive", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults", "drive.py"))
fault_drive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fault_drive)

GATEWAY_PORTS = [int(p) for p in os.environ["GATEWAY_PORTS"].split(",")]
IDP = urllib.parse.urlparse(os.environ["DEV_IDP_URL"])
PROJECT = os.environ["PROJECT"]
WORKERS = int(os.environ.get("WORKERS", "8"))
OUTAGE = float(os.environ.get("OUTAGE_SECONDS", "5"))
SETTLE = float(os.environ.get("SETTLE_SECONDS", "8"))
RESTART_AFTER = 3.0       # a killed container is started again after this many seconds
RECOVERY_LIMIT = 5.0      # full service within this many seconds of nats/postgres being back
KILL_FAILURE_LIMIT = 0.01
WEBHOOK_WAIT = float(os.environ.get("WEBHOOK_WAIT", "60"))
RUN = f"{os.getpid()}-{int(time.time())}"

lock = threading.Lock()
records = []          # (start, end, operation, status)
refresh_tokens = []   # the latest refresh token of every session that is not deleted
failures = []         # the checks that failed, in words
stop = threading.Event()


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"FAILED: {message}", file=sys.stderr)
    return ok


class Client:
    """One keep-alive connection to a host port. A request whose connection breaks is not sent
    again: it counts as failed (status 0)."""

    def __init__(self, host, port):
        self.host, self.port, self.conn = host, port, None

    def connect(self):
        """Opens the connection if none is open; False when nothing accepts it (no request sent)."""
        if self.conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                conn.connect()
            except OSError:
                return False
            self.conn = conn
        return True

    def request(self, method, path, body=None, headers=None):
        try:
            if not self.connect():
                return 0, b""
            data = json.dumps(body).encode() if body is not None else None
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            response = self.conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return 0, b""


# Host ports of gateways started again and not yet answering /healthz: a load balancer's health check
# keeps traffic off them (docker-proxy accepts on the port before the gateway inside listens).
starting_ports = set()


class Gateways:
    """The gateways' host ports, as a load balancer in front of them would use them: each request
    goes to this client's preferred gateway; a gateway that refuses the connection (so got no
    request) is skipped for a second and the request goes to another. A connection that breaks
    once the request is sent is a failure, not retried."""

    def __init__(self, first):
        self.clients = [Client("127.0.0.1", port) for port in GATEWAY_PORTS]
        self.order = list(range(first % len(self.clients), len(self.clients))) + list(range(first % len(self.clients)))
        self.down_until = [0.0] * len(self.clients)

    def request(self, method, path, body=None, headers=None):
        now = time.monotonic()
        with lock:
            starting = set(starting_ports)
        candidates = [i for i in self.order if self.down_until[i] <= now and GATEWAY_PORTS[i] not in starting] or self.order
        for i in candidates:
            client = self.clients[i]
            if client.connect():
                return client.request(method, path, body, headers)
            self.down_until[i] = time.monotonic() + 1.0
        return 0, b""


def idp_post(client, path, body):
    status, data = client.request("POST", path, body)
    if status != 200:
        raise RuntimeError(f"dev-idp {path}: {status} {data[:200]!r}")
    return data


def stats():
    status, data = Client(IDP.hostname, IDP.port).request("GET", "/stats")
    if status != 200:
        raise RuntimeError(f"dev-idp /stats: {status}")
    return json.loads(data)


def login_response(status, body, what):
    if not check(status == 200, f"{what}: {status} {body[:300]!r}"):
        return None
    return json.loads(body)["data"]


# ---- 0: webhooks, through the relay to dev-idp's inbox ----

def webhooks(results):
    gateway, idp = Gateways(0), Client(IDP.hostname, IDP.port)
    # The inbox checks signatures from now on, with the secret of the dev profile's webhooks file.
    status, body = idp.request("PUT", "/webhooks/dev", {"secret": os.environ["WEBHOOK_SECRET"], "status": 200})
    if not check(status == 204, f"PUT /webhooks/dev at dev-idp: {status} {body[:200]!r}"):
        return
    sub = f"docker-webhook-{RUN}"
    token = idp_post(idp, "/google/mint?format=raw", {"claims": {"sub": sub, "aud": "dev-google-client",
                                                                 "email": f"{sub}@example.com", "email_verified": True}})
    login = login_response(*gateway.request("POST", "/api/auth/google-login", {"idToken": token.decode(), "deviceId": "d1"}),
                           "webhook member's login")
    if login is None:
        return
    member = login["memberId"]
    status, body = gateway.request("DELETE", "/api/members/me", headers={"Authorization": f"Bearer {login['accessToken']}"})
    if not check(status == 204, f"DELETE /api/members/me (webhook member): {status} {body[:200]!r}"):
        return
    deleted_at = time.monotonic()
    wanted = ["member.created", "member.deleted"]
    deadline = deleted_at + WEBHOOK_WAIT
    while True:
        status, body = idp.request("GET", "/webhooks/dev")
        check(status == 200, f"GET /webhooks/dev at dev-idp: {status}")
        summary = json.loads(body) if status == 200 else {"events": []}
        mine = {event["type"]: event for event in summary["events"] if event.get("memberId") == member}
        if all(kind in mine for kind in wanted) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    results["webhook_seconds"] = round(time.monotonic() - deleted_at, 1)
    results["webhook_events"] = {kind: mine.get(kind) for kind in wanted}
    results["webhook_inbox"] = {"attempts": summary.get("attempts", 0), "duplicates": summary.get("duplicates", 0),
                                "events": len(summary["events"])}
    for kind in wanted:
        event = mine.get(kind)
        if not check(event is not None, f"webhooks: no {kind} of member {member} at dev-idp's inbox {WEBHOOK_WAIT:.0f} s after its deletion"):
            continue
        check(event["verified"], f"webhooks: {kind} of member {member} arrived with a signature that does not verify: {event}")
        check(event["delivered"] == 1, f"webhooks: {kind} of member {member} was delivered {event['delivered']} times (once expected): {event}")


# ---- 1 and 2: a login of each provider, refreshes, deletions and revocations ----

def providers(results):
    gateway, idp = Gateways(0), Client(IDP.hostname, IDP.port)
    before = stats()
    sessions = {}
    per_provider = int(os.environ.get("DELETIONS", "3"))
    for n in range(per_provider):
        sub = f"docker-test-{RUN}-{n}"
        google = idp_post(idp, "/google/mint?format=raw", {"claims": {"sub": f"g-{sub}", "aud": "dev-google-client",
                                                                      "email": f"g-{sub}@example.com", "email_verified": True}})
        sessions[f"google-{n}"] = gateway.request("POST", "/api/auth/google-login", {"idToken": google.decode(), "deviceId": "d1"})
        apple = idp_post(idp, "/apple/mint?format=raw", {"claims": {"sub": f"a-{sub}", "aud": "dev.apple.client"}})
        code = json.loads(idp_post(idp, "/apple/mint-code", {"sub": f"a-{sub}"}))["code"]
        sessions[f"apple-{n}"] = gateway.request("POST", "/api/auth/apple-login",
                                                 {"identityToken": apple.decode(), "authorizationCode": code, "deviceId": "d1"})
        kakao = idp_post(idp, "/kakao/mint?format=raw", {"claims": {"sub": f"k-{sub}", "aud": "dev-kakao-client"}})
        sessions[f"kakao-{n}"] = gateway.request("POST", "/api/auth/kakao-login", {"idToken": kakao.decode(), "deviceId": "d1"})
        naver = json.loads(idp_post(idp, "/naver/mint", {"id": f"n-{sub}", "email": f"n-{sub}@example.com"}))["token"]
        sessions[f"naver-{n}"] = gateway.request("POST", "/api/auth/naver-login", {"accessToken": naver, "deviceId": "d1"})
    logged_in = {}
    for name, (status, body) in sessions.items():
        data = login_response(status, body, f"{name} login")
        if data is None:
            continue
        status, body = gateway.request("POST", "/api/auth/refresh", {"refreshToken": data["refreshToken"]})
        refreshed = login_response(status, body, f"{name} refresh")
        if refreshed is not None:
            logged_in[name] = refreshed
    results["provider_logins"] = len(logged_in)
    results["provider_logins_expected"] = len(sessions)
    after_logins = stats()
    exchanges = after_logins["appleTokenExchanges"] - before["appleTokenExchanges"]
    check(exchanges == per_provider, f"Apple code exchanges at dev-idp: {exchanges}, expected {per_provider}")
    results["apple_code_exchanges"] = exchanges

    # Account deletion of the Apple and Naver members: their grants are revoked at dev-idp.
    deleted = 0
    for name, data in logged_in.items():
        if name.startswith(("apple-", "naver-")):
            status, body = gateway.request("DELETE", "/api/members/me", headers={"Authorization": f"Bearer {data['accessToken']}"})
            deleted += check(status == 204, f"DELETE /api/members/me ({name}): {status} {body[:200]!r}")
        else:
            with lock:
                refresh_tokens.append(data["refreshToken"])
    deadline = time.monotonic() + 60
    while True:
        now = stats()
        apple = now["appleRevocations"] - before["appleRevocations"]
        naver = now["naverDeletions"] - before["naverDeletions"]
        if (apple >= per_provider and naver >= per_provider) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    results.update(deletions=deleted, apple_revocations=apple, naver_deletions=naver, revocations_expected=per_provider)
    check(apple == per_provider, f"Apple grants revoked after deletion: {apple} of {per_provider}")
    check(naver == per_provider, f"Naver tokens deleted after deletion: {naver} of {per_provider}")


# ---- 3: steady load and faults ----

def worker(index):
    gateway, idp = Gateways(index), Client(IDP.hostname, IDP.port)
    n = 0
    while not stop.is_set():
        n += 1
        refresh = fault_drive.login_and_refresh(gateway, idp, f"docker-load-{RUN}-{index}-{n}", record, stop.is_set)
        if refresh:
            with lock:
                refresh_tokens.append(refresh)


def record(start, operation, status):
    with lock:
        records.append((start, time.monotonic(), operation, status))


def docker(*args):
    return subprocess.run(["docker", *args], check=True, capture_output=True, text=True).stdout.strip()


def containers(service):
    ids = docker("ps", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}",
                 "--filter", f"label=com.docker.compose.service={service}").split()
    if not ids:
        raise RuntimeError(f"no running container of {service}")
    return sorted(ids)


def healthy(container, service):
    probe = {"nats": ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8222/healthz?js-enabled-only=true"],
             "postgres": ["sh", "-c", 'pg_isready -q -U "$POSTGRES_USER" -d "$POSTGRES_DB"']}[service]
    return subprocess.run(["docker", "exec", container, *probe], capture_output=True).returncode == 0


def faults(results):
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(WORKERS)]
    load_start = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(SETTLE)
    steady = [r for r in records if r[2] == "login" and r[3] == 200 and r[1] >= load_start + 1]
    results["steady_logins_per_s"] = round(len(steady) / (SETTLE - 1), 1)

    timeline = []   # (name, kind, fault time, back time)
    for service in ["token-verifier", "member-service", "token-issuer", "gateway"]:
        victim = containers(service)[0]
        # Read while it runs: a stopped container has no published port.
        port = gateway_host_port(victim) if service == "gateway" else None
        at = time.monotonic()
        docker("kill", victim)
        time.sleep(RESTART_AFTER)
        if service == "gateway":
            with lock:
                starting_ports.add(port)
            docker("start", victim)
            deadline = time.monotonic() + 60
            while not gateway_answers(port) and time.monotonic() < deadline:
                time.sleep(0.1)
            with lock:
                starting_ports.discard(port)
        else:
            docker("start", victim)
        timeline.append((f"kill a {service}", "kill", at, time.monotonic()))
        time.sleep(SETTLE)
    for service in ["nats", "postgres"]:
        victim = containers(service)[0]
        at = time.monotonic()
        docker("stop", victim)
        time.sleep(OUTAGE)
        docker("start", victim)
        deadline = time.monotonic() + 120
        while not healthy(victim, service) and time.monotonic() < deadline:
            time.sleep(0.2)
        back = time.monotonic()
        timeline.append((f"restart {service}", "restart", at, back))
        time.sleep(SETTLE)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    # A failure belongs to the fault in force when it surfaced (its end), not when it was sent.
    ends = [t[2] for t in timeline[1:]] + [max(r[1] for r in records) + 1]
    rows = []
    for (name, kind, at, back), end in zip(timeline, ends):
        window, failed, statuses, last_failure = fault_drive.fault_window(records, at, end)
        recovery = 0.0 if last_failure is None else max(0.0, last_failure - back)
        rows.append({"fault": name, "kind": kind, "requests": len(window),
                     "logins": sum(r[2] == "login" for r in window),
                     "failed_logins": sum(r[2] == "login" for r in failed), "failed": len(failed),
                     "statuses": {str(k): v for k, v in sorted(statuses.items())},
                     "outage_s": round(back - at, 1), "recovery_s": round(recovery, 1)})
        check(len(window) > 0, f"{name}: no request at all in its window")
        if kind == "restart":
            # Full service: answers that succeed once the limit has passed, not merely no failure.
            served = sum(1 for r in window if r[3] == 200 and r[1] >= back + RECOVERY_LIMIT)
            check(served > 0, f"{name}: no successful answer {RECOVERY_LIMIT:.0f} s after it was back")
            other = {s for s in statuses if s not in (503, 504)}
            check(not other, f"{name}: answers other than 503/504 meanwhile: {statuses}")
            check(recovery <= RECOVERY_LIMIT, f"{name}: full service {recovery:.1f} s after it was back (limit {RECOVERY_LIMIT:.0f} s)")
    kills = [row for row in rows if row["kind"] == "kill"]
    logins = sum(row["logins"] for row in kills)
    failed = sum(row["failed_logins"] for row in kills)
    results.update(faults=rows, kill_window_logins=logins, kill_window_failed_logins=failed)
    check(logins > 0, "no logins in the kill window")
    check(failed <= KILL_FAILURE_LIMIT * logins, f"kill window: {failed} of {logins} logins failed (limit 1%)")


def gateway_host_port(container):
    """The host port docker publishes the gateway container's 8080 on."""
    out = subprocess.run(["docker", "port", container, "8080/tcp"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0].rsplit(":", 1)[1])


def gateway_answers(port):
    """True when the gateway behind `port` answers GET /healthz (it listens)."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/healthz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def final_refresh(results):
    gateway, refused = Gateways(0), []
    for token in refresh_tokens:
        status, body = gateway.request("POST", "/api/auth/refresh", {"refreshToken": token})
        if status != 200:
            refused.append(status)
    results.update(refresh_tokens=len(refresh_tokens), refresh_tokens_refused=len(refused))
    check(not refused, f"refresh tokens refused at the end: {len(refused)} of {len(refresh_tokens)} (statuses {sorted(set(refused))})")


def main():
    results = {"workers": WORKERS}
    try:
        webhooks(results)
        providers(results)
        faults(results)
        final_refresh(results)
    except Exception as error:  # noqa: BLE001 -- any error is a failed check, with its words
        check(False, f"{type(error).__name__}: {error}")
    results["failures"] = failures
    with open(os.environ["RESULTS"], "w") as out:
        json.dump(results, out, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
