"""Rolling restart under load: every replica of every service, one at a time, while logins,
refreshes and GET /api/members/me run steadily; prints what each restart cost.

Each worker loops: mint a Google ID token for a new identity at dev-idp, log in through the
gateway, then ROUNDS times GET /api/members/me and refresh (each answer's tokens used next).
Nothing is retried: a request that gets no 200 counts as failed, and a request whose connection
breaks is not sent again (drive.Client). An answer with `Connection: close`, as a stopping gateway
gives, is read in full and the next request opens a new connection.

Meanwhile the main thread restarts, for each service in turn (token-verifier, member-service,
token-issuer, gateway) and each of its replicas: SIGTERM and wait until it has exited (deploy/faults/fault
stop), start it again with the same settings (fault start), wait until its /readyz answers 200
(fault ready), let it serve SETTLE_SECONDS, then the next. Exits 1 if any request failed, a
replica needed SIGKILL or did not become ready, or a process exited besides the one restarting.
"""
import json, os, re, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from drive import Client, GATEWAY, IDP, FAULT  # noqa: E402

WORKERS = int(os.environ.get("WORKERS", "8"))
SETTLE = float(os.environ.get("SETTLE_SECONDS", "5"))
ROUNDS = int(os.environ.get("ROUNDS", "4"))
SERVICES = ["token-verifier", "member-service", "token-issuer", "gateway"]

lock = threading.Lock()
records = []        # (start, end, operation, status, error or None, whether the answer closed the connection)
mint_failures = []  # dev-idp is not restarted: a failure there is the driver's, not a restart's
stop = threading.Event()


def call(client, operation, method, path, body=None, headers=None):
    start = time.monotonic()
    status, answer = client.request(method, path, body, headers)
    with lock:
        records.append((start, time.monotonic(), operation, status, client.error, client.closed))
    return status, answer


def worker(index):
    gateway, idp = Client(GATEWAY), Client(IDP)
    n = 0
    while not stop.is_set():
        n += 1
        sub = f"roll-{os.getpid()}-{index}-{n}"
        status, token = idp.request("POST", "/google/mint?format=raw",
                                    {"claims": {"sub": sub, "aud": "dev-google-client", "email": f"{sub}@example.com"}})
        if status != 200:
            with lock:
                mint_failures.append((time.monotonic(), status, idp.error))
            time.sleep(0.05)
            continue
        status, body = call(gateway, "login", "POST", "/api/auth/google-login",
                            {"idToken": token.decode(), "deviceId": f"d-{sub}"})
        if status != 200:
            continue
        tokens = json.loads(body)["data"]
        for _ in range(ROUNDS):
            if stop.is_set():
                break
            call(gateway, "me", "GET", "/api/members/me", headers={"Authorization": f"Bearer {tokens['accessToken']}"})
            status, body = call(gateway, "refresh", "POST", "/api/auth/refresh", {"refreshToken": tokens["refreshToken"]})
            if status != 200:
                break
            tokens = json.loads(body)["data"]


def fault(*args):
    """Runs deploy/faults/fault; returns (exit status, seconds it took, what it printed)."""
    start = time.monotonic()
    done = subprocess.run([FAULT, *args], capture_output=True, text=True)
    return done.returncode, time.monotonic() - start, (done.stdout + done.stderr).strip()


def replicas():
    """{service: [index, ...]} of the replicas running now."""
    found = {}
    for line in fault("alive")[2].split():
        match = re.fullmatch(r"(.+)-(\d+)", line)
        if match and match.group(1) in SERVICES:
            found.setdefault(match.group(1), []).append(int(match.group(2)))
    return {name: sorted(found.get(name, [])) for name in SERVICES}


def main():
    before = replicas()
    few = [name for name, indexes in before.items() if len(indexes) < 2]
    if few:
        print(f"a rolling restart needs at least 2 running replicas of each service; these have fewer: {', '.join(few)}",
              file=sys.stderr)
        return 2
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    time.sleep(SETTLE)
    restarts = []   # dicts: name, term (SIGTERM sent), exited, started, ready (monotonic times), problems
    problems = []
    for service in SERVICES:
        for index in before[service]:
            name = f"{service}-{index}"
            step = {"name": name, "term": time.monotonic()}
            status, _, said = fault("stop", service, str(index))
            step["exited"] = time.monotonic()
            if status != 0:
                problems.append(f"{name}: {said}")
            status, _, said = fault("start", service, str(index))
            step["started"] = time.monotonic()
            if status != 0:
                problems.append(f"{name} did not start: {said}")
            status, _, said = fault("ready", service, str(index))
            step["ready"] = time.monotonic()
            restarts.append(step)
            print(f"  {name}: exited {step['exited'] - step['term']:.1f} s after SIGTERM, "
                  f"ready {step['ready'] - step['exited']:.1f} s after that", file=sys.stderr, flush=True)
            if status != 0:
                problems.append(f"{name} did not become ready: {said}")
                break
            time.sleep(SETTLE)
        if problems and "did not" in problems[-1]:
            break
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    if not records:
        print("no request was answered or failed: the load never ran", file=sys.stderr)
        sys.exit(1)
    ended = max(r[1] for r in records)

    # A request belongs to the restart in force when its answer came (its end).
    print(f"\nRolling restart under load: {WORKERS} workers (login, then {ROUNDS} x (GET /api/members/me, refresh)), "
          f"{os.cpu_count()} cores, {SETTLE:.0f} s between restarts; nothing retried\n")
    print("| restart | SIGTERM to exit (s) | exit to ready (s) | requests | failed | answers with Connection: close | failures (phase: kind) |")
    print("|---|---|---|---|---|---|---|")
    # The first window starts with the earliest record, so no request escapes the count.
    windows = [("(before the first)", min(began, min(r[1] for r in records)), restarts[0]["term"] if restarts else ended + 1, None)]
    for i, step in enumerate(restarts):
        end = restarts[i + 1]["term"] if i + 1 < len(restarts) else ended + 1
        windows.append((step["name"], step["term"], end, step))
    total_failed = 0
    for name, start, end, step in windows:
        window = [r for r in records if start <= r[1] < end]
        failed = [r for r in window if r[3] != 200]
        total_failed += len(failed)
        kinds = {}
        for r in failed:
            if step is None:
                phase = "before"
            elif r[1] < step["exited"]:
                phase = "stopping"
            elif r[1] < step["ready"]:
                phase = "starting"
            else:
                phase = "after ready"
            kind = f"{phase}: {r[2]} {r[3] or r[4]}"
            kinds[kind] = kinds.get(kind, 0) + 1
        closes = sum(1 for r in window if r[5])
        timing = ("-", "-") if step is None else (f"{step['exited'] - step['term']:.1f}", f"{step['ready'] - step['exited']:.1f}")
        described = ", ".join(f"{kind} x{count}" for kind, count in sorted(kinds.items())) or "-"
        print(f"| {name} | {timing[0]} | {timing[1]} | {len(window)} | {len(failed)} | {closes} | {described} |")

    by_operation = {}
    for r in records:
        by_operation[r[2]] = by_operation.get(r[2], 0) + 1
    seconds = ended - began
    print(f"\nRequests: {len(records)} in {seconds:.0f} s ({len(records) / seconds:.0f}/s: "
          + ", ".join(f"{op} {count}" for op, count in sorted(by_operation.items()))
          + f"); failed: {total_failed}")
    if mint_failures:
        print(f"dev-idp mint requests that failed (not counted above; dev-idp is not restarted): {len(mint_failures)}")
    after = replicas()
    missing = sorted(f"{name}-{i}" for name in SERVICES for i in before[name] if i not in after[name])
    print(f"Replicas not running at the end: {', '.join(missing) or 'none'}")
    for problem in problems:
        print(f"Problem: {problem}")
    return 1 if total_failed or problems or missing or len(restarts) < sum(len(v) for v in before.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
