"""Steady login-and-refresh load while faults happen; prints what each fault cost.

Each worker loops: mint a Google ID token for a new identity at dev-idp, log in through the
gateway, then refresh the session once. Every answer is recorded with its time. Meanwhile the
main thread runs the fault timeline. At the end every refresh token handed out during the run
is refreshed once more: each must still work.
"""
import http.client, json, os, subprocess, sys, threading, time, urllib.parse

GATEWAY = urllib.parse.urlparse(os.environ.get("GATEWAY_URL", "http://127.0.0.1:8080"))
IDP = urllib.parse.urlparse(os.environ.get("DEV_IDP_URL", "http://127.0.0.1:9400"))
WORKERS = int(os.environ.get("WORKERS", "8"))
OUTAGE = float(os.environ.get("OUTAGE_SECONDS", "5"))
SETTLE = float(os.environ.get("SETTLE_SECONDS", "12"))
FAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fault")

lock = threading.Lock()
records = []          # (start, end, operation, status)
refresh_tokens = []   # latest refresh token of every session that succeeded
stop = threading.Event()


class Client:
    """One keep-alive connection, reopened on the next request after a failure, or after an answer
    that closes it (`Connection: close`, as a stopping gateway answers). A request whose
    connection fails is not sent again: it counts as failed (status 0), and `error` says how it
    failed and whether on a fresh connection or one that had already served requests."""

    def __init__(self, url):
        self.url, self.conn = url, None
        self.served = 0       # answers read on the current connection
        self.error = None     # how the last request failed, or None
        self.closed = False   # whether the last answer closed its connection

    def request(self, method, path, body=None, headers=None):
        self.error, self.closed, reused = None, False, False
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=30)
                self.served = 0
            reused = self.served > 0
            data = json.dumps(body).encode() if body is not None else None
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            response = self.conn.getresponse()
            answer = response.read()
            self.served += 1
            if response.will_close:
                self.closed = True
                self.conn.close()
                self.conn = None
            return response.status, answer
        except (OSError, http.client.HTTPException) as error:
            self.error = f"{type(error).__name__} on a {'reused' if reused else 'new'} connection"
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return 0, b""


def record(start, operation, status):
    with lock:
        records.append((start, time.monotonic(), operation, status))


# How long a refresh without a good answer is sent again: the reuse grace window (10 s) less the
# time one request may take, so that the last resend still finds a rotation that happened.
REFRESH_RETRY_WINDOW = 9.5


def login_and_refresh(gateway, idp, sub, record, stopping, details=None):
    """One app session, as the fault runs drive it: mint a Google ID token for `sub` at dev-idp, log
    in through `gateway`, then refresh once. Each answer goes to `record(start, operation, status)`.
    Returns the session's latest refresh token, or None when there was no session. A dict given as
    `details` gets the login's answer ("login") and the latest access token ("accessToken"). Once
    `stopping()` holds, no new session starts; a refresh already in flight still finishes its resends."""
    if stopping():
        return None
    status, token = idp.request("POST", "/google/mint?format=raw",
                                {"claims": {"sub": sub, "aud": "dev-google-client", "email": f"{sub}@example.com"}})
    if status != 200:
        time.sleep(0.05)
        return None
    start = time.monotonic()
    status, body = gateway.request("POST", "/api/auth/google-login", {"idToken": token.decode(), "deviceId": f"d-{sub}"})
    record(start, "login", status)
    if status != 200:
        time.sleep(0.05)
        return None
    login = json.loads(body)["data"]
    refresh = login["refreshToken"]
    if details is not None:
        details.update(login=login, accessToken=login["accessToken"])
    # As an app does: a refresh that got no good answer is sent again with the same token,
    # promptly (inside the reuse grace window, REFRESH_REUSE_GRACE, 10 s, where a rotation that did
    # happen yields the same successor), until it succeeds or the window is nearly over; also while
    # the run stops, so no session is left holding a token that was rotated behind a lost answer.
    # (With 8 s, a refresh whose rotation committed just before PostgreSQL went down for 9.1 s gave
    # up before it was back, and its token, rotated, was refused at the end as a reuse.)
    first = time.monotonic()
    while True:
        start = time.monotonic()
        status, body = gateway.request("POST", "/api/auth/refresh", {"refreshToken": refresh})
        record(start, "refresh", status)
        if status == 200:
            tokens = json.loads(body)["data"]
            if details is not None:
                details["accessToken"] = tokens["accessToken"]
            return tokens["refreshToken"]
        if status == 401:
            return refresh
        if time.monotonic() - first > REFRESH_RETRY_WINDOW:
            # No answer for the whole window (PostgreSQL down longer): whether the first attempt rotated the
            # token before the outage, neither the app nor this run can tell, so the session is not one whose
            # token the final check may hold against the service.
            return None
        time.sleep(0.5)


def fault_window(records, at, end, good=(200,)):
    """The answers that came (ended) while a fault was in force, [at, end): all of them, the failed
    ones (a status not in `good`), the failures counted by status (0: the connection broke), and when
    the last failure came."""
    window = [r for r in records if at <= r[1] < end]
    failed = [r for r in window if r[3] not in good]
    statuses = {}
    for r in failed:
        statuses[r[3]] = statuses.get(r[3], 0) + 1
    last_failure = max((r[1] for r in failed), default=None)
    return window, failed, statuses, last_failure


def worker(index):
    gateway, idp = Client(GATEWAY), Client(IDP)
    n = 0
    while not stop.is_set():
        n += 1
        refresh = login_and_refresh(gateway, idp, f"fault-{os.getpid()}-{index}-{n}", record, stop.is_set)
        if refresh:
            with lock:
                refresh_tokens.append(refresh)


def fault(*args):
    return subprocess.run([FAULT, *args], check=True, capture_output=True, text=True).stdout.strip()


def main():
    before = set(fault("alive").split())
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    timeline = []   # (name, fault time, back time)
    time.sleep(SETTLE)
    for service in ["token-verifier", "member-service", "token-issuer", "gateway"]:
        at = time.monotonic()
        victim = fault("kill", service)
        timeline.append((f"kill {victim}", at, at))
        time.sleep(SETTLE)
    for name, down, up in [("restart nats-server", "stop-nats", "start-nats"),
                           ("restart PostgreSQL", "stop-postgres", "start-postgres")]:
        at = time.monotonic()
        fault(down)
        time.sleep(OUTAGE)
        fault(up)
        timeline.append((name, at, time.monotonic()))
        time.sleep(SETTLE)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    # A failure belongs to the fault in force when it surfaced (its end), not when it was sent.
    ends = [t[1] for t in timeline[1:]] + [max(r[1] for r in records) + 1]
    print(f"\nFault test: {WORKERS} workers logging in and refreshing, {os.cpu_count()} cores, "
          f"outages of {OUTAGE:.0f} s, {SETTLE:.0f} s between faults\n")
    print("| fault | requests | failed | failed answers | seconds to full recovery after it was back |")
    # A killed gateway loses the requests in flight on it (status 0: the connection broke);
    # no gateway can retry those, the app must. Every other failure is an HTTP answer.
    print("|---|---|---|---|---|")
    for (name, at, back), end in zip(timeline, ends):
        window, failed, statuses, last_failure = fault_window(records, at, end)
        recovery = "0 (none failed)" if last_failure is None else f"{max(0.0, last_failure - back):.1f}"
        answers = ", ".join(f"{status or 'connection'}: {count}" for status, count in sorted(statuses.items())) or "-"
        print(f"| {name} | {len(window)} | {len(failed)} | {answers} | {recovery} |")

    # Every refresh token handed out during the run still works.
    client, broken = Client(GATEWAY), 0
    for token in refresh_tokens:
        status, _ = client.request("POST", "/api/auth/refresh", {"refreshToken": token})
        broken += status != 200
    print(f"\nRefresh tokens issued during the run: {len(refresh_tokens)}; refused afterwards: {broken}")
    after = set(fault("alive").split())
    killed = {t[0].split(" ", 1)[1] for t in timeline if t[0].startswith("kill ")}
    exited = sorted(before - after - killed)
    print(f"Processes that exited besides the killed ones: {', '.join(exited) or 'none'}")
    return 1 if broken or exited else 0


if __name__ == "__main__":
    sys.exit(main())
