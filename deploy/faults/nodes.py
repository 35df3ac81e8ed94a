"""Loses each node of the local stack's NATS cluster in turn, under a steady load; prints what each
loss cost and checks that nothing was lost.

Run by deploy/faults/run when the stack has a NATS cluster (deploy/local/up with NATS_CLUSTER=3).
Each worker loops as drive.py's do (mint a Google ID token for a new identity at dev-idp, log in
through the gateway, refresh once); every DELETE_EVERY-th session then deletes its member, so
`member.deleted` events keep the durable consumers busy. Meanwhile the main thread, for each node,
the events stream's leader first: kills it (SIGKILL), keeps it down OUTAGE_SECONDS, starts it again
and waits until it has caught up (its /healthz), then lets the load run SETTLE_SECONDS.

The node killed next is the one that leads the stream then, unless it was killed already (then
the first one left). Printed per node: the requests answered in its window (from the kill until
SETTLE_SECONDS after it was back), the failed ones, seconds from the kill to the last failure, the
new leaders, and whether every durable consumer moved on (has a leader, and delivered past where
it was at the kill or has nothing left to deliver), with every gateway refusing a logged-out token
(their followers of `session.ended` moved on too); then the whole run's requests and failures.
After the load: the outboxes drain to empty, every member created during the run (every login
answered 200, each of a new identity, and every member row made since the run started) has its
`member.created` event in the stream (read back with the operator's nkey), every refresh token
issued still works, and no process exited besides the killed nodes. Exits 1 when a kill window,
or the whole run, failed more than 1% of its requests, or any check fails.
"""
import asyncio, collections, json, os, subprocess, sys, threading, time, urllib.request

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
# drive.py's load: its client, its record of every answer (records, under lock), its stop and its faults.
from drive import Client, GATEWAY, IDP, fault, fault_window, lock, login_and_refresh, record, records, stop  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(here))
RUN = os.path.join(ROOT, "deploy", "local", ".run")
WORKERS = int(os.environ.get("WORKERS", "8"))
OUTAGE = float(os.environ.get("OUTAGE_SECONDS", "10"))
SETTLE = float(os.environ.get("SETTLE_SECONDS", "10"))
DELETE_EVERY = int(os.environ.get("DELETE_EVERY", "4"))
NATS_PORT = int(os.environ.get("NATS_PORT", "4222"))
MONITOR_PORT = int(os.environ.get("NATS_MONITOR_PORT", "8222"))
PG_PORT = os.environ.get("PG_PORT", "5432")
STREAM = "AUTH_EVENTS"
DURABLES = ["token-verifier-revocations", "token-issuer-sessions", "token-issuer-sessions-identities"]
ALLOWED_FAILURES = 0.01

sessions = []      # the latest refresh token of every session whose member was not deleted
created = set()    # IDs of the members the run created (every login is of a new identity)


def worker(index):
    gateway, idp = Client(GATEWAY), Client(IDP)
    n = 0
    while not stop.is_set():
        n += 1
        details = {}
        refresh = login_and_refresh(gateway, idp, f"node-{os.getpid()}-{index}-{n}", record, stop.is_set, details)
        login = details.get("login")
        if login:
            # Also when it says isExistingMember: the reply to the first attempt may have been lost
            # with a node, and the login sent again found the member that attempt made.
            with lock:
                created.add(str(login["memberId"]))
        if not refresh:
            continue
        if n % DELETE_EVERY == 0:
            start = time.monotonic()
            bearer = {"Authorization": f"Bearer {details['accessToken']}"}
            status, _ = gateway.request("DELETE", "/api/members/me", headers=bearer)
            record(start, "delete", status)
            if status in (200, 204):
                continue
            # A deletion whose answer was lost (even after the gateway sent it again once) may still
            # have been carried out: then the session is gone, and its refresh token rightly refused.
            def settled():
                status, _ = gateway.request("GET", "/api/members/me", headers=bearer)
                return status if status in (200, 401) else None
            if wait_for(settled, 10) == 401:
                continue
        with lock:
            sessions.append(refresh)


def cluster_size():
    with open(os.path.join(RUN, "nats-cluster")) as f:
        return int(f.read().strip())


def jsz(node):
    """Node `node`'s JetStream report (its monitoring port), or None when it does not answer."""
    url = f"http://127.0.0.1:{MONITOR_PORT + node - 1}/jsz?accounts=true&streams=true&consumers=true"
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            report = json.load(answer)
    except (OSError, ValueError):
        return None
    for account in report.get("account_details", []):
        for stream in account.get("stream_detail", []):
            if stream["name"] == STREAM:
                return stream
    return None


def stream_report(size, skip=None):
    """The stream as a live node other than `skip` reports it."""
    for node in range(1, size + 1):
        if node != skip:
            stream = jsz(node)
            if stream and stream.get("cluster", {}).get("leader"):
                return stream
    return None


def consumers(stream):
    return {c["name"]: c for c in stream.get("consumer_detail", []) if c["name"] in DURABLES}


def durables(size):
    """Each durable consumer as the node that leads it reports it: a follower's copy of a consumer
    may lag its leader's (pending and unacknowledged counts among them). A consumer whose leader
    does not answer is left out."""
    reports = {node: jsz(node) for node in range(1, size + 1)}
    found = {}
    for node, stream in reports.items():
        for name, c in consumers(stream or {}).items():
            if c.get("cluster", {}).get("leader") == f"n{node}":
                found[name] = c
    return found


def describe(c):
    return (f"delivered up to {c['delivered']['stream_seq']}, acknowledged up to {c['ack_floor']['stream_seq']}, "
            f"{c['num_pending']} pending, {c['num_ack_pending']} unacknowledged, {c.get('num_redelivered', 0)} redelivered")


def node_index(name):
    return int(name.lstrip("n"))


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    return condition()


def consumers_moved_on(size, before):
    """Whether every durable consumer has a leader and either delivered events past where it was at
    the kill or has nothing left to deliver (a consumer whose events are rare, such as
    identity.unlinked, may have none in the window; servers differ in whether its delivered sequence
    moves over those it skips), and has either acknowledged past that point too or nothing left
    unacknowledged: (True or False, what lags)."""
    now = durables(size)
    lagging = []
    for name in DURABLES:
        c = now.get(name)
        if not c or name not in before:
            lagging.append(f"{name} missing, or its leader does not answer")
        elif c["delivered"]["stream_seq"] <= before[name] and c["num_pending"] > 0 \
                or c["num_ack_pending"] > 0 and c["ack_floor"]["stream_seq"] <= before[name]:
            lagging.append(f"{name} {describe(c)} (delivered up to {before[name]} at the kill)")
    return not lagging, "; ".join(lagging)


def logout_seen_everywhere():
    """Logs a fresh session out and checks that every gateway replica refuses its access token within
    10 s: the other replicas learn of it only from `session.ended` in the stream, which their
    followers (ordered consumers, one per gateway) read. Replicas share the port, so the token is
    tried on 24 fresh connections each time (a replica missed by all is 1 in 2^23 with two)."""
    gateway, idp = Client(GATEWAY), Client(IDP)
    details = {}
    if not login_and_refresh(gateway, idp, f"node-logout-{os.getpid()}-{time.monotonic_ns()}", lambda *_: None, lambda: False, details):
        return False
    bearer = {"Authorization": f"Bearer {details['accessToken']}"}
    status, _ = gateway.request("POST", "/api/auth/logout", headers=bearer)
    if status != 204:
        return False
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if all(Client(GATEWAY).request("GET", "/api/members/me", headers=bearer)[0] == 401 for _ in range(24)):
            return True
        time.sleep(0.5)
    return False


def psql(sql):
    env = dict(os.environ, PGPASSWORD="postgres")
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-d", "auth", "-qtAc", sql],
                          check=True, capture_output=True, text=True, env=env).stdout.strip()


async def member_created_ids(size):
    """The member IDs of every `member.created` event in the stream, read one by one with the
    operator's identity (`$JS.API.STREAM.MSG.GET`, the next of the subject after each): the operator
    may create no consumer, since whoever creates one chooses where it delivers."""
    import nats
    import nats.js.errors
    servers = [f"nats://127.0.0.1:{NATS_PORT + i}" for i in range(size)]
    connection = await nats.connect(servers=servers, name="faults-run", inbox_prefix="_INBOX_operator",
                                    nkeys_seed=os.path.join(RUN, "nats-identities", "operator.nk"))
    try:
        manager = connection.jsm()
        ids, seq = [], 1
        while True:
            try:
                message = await manager.get_msg(STREAM, seq=seq, subject="events.member.created", next=True)
            except nats.js.errors.NotFoundError:
                return ids
            ids.append(json.loads(message.data)["data"]["memberId"])
            seq = message.seq + 1
    finally:
        await connection.close()


def main():
    size = cluster_size()
    stream = stream_report(size)
    if not stream:
        print("no node of the NATS cluster reports the events stream", file=sys.stderr)
        return 1
    before_alive = set(fault("alive").split())
    started_at = psql("select extract(epoch from now())")
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    time.sleep(SETTLE)

    kills = []   # (node, was it the leader, kill time, back time, leaders after, consumers moved on, what lagged)
    left = list(range(1, size + 1))
    while left:
        # The stream's leader now, unless it was killed already: then the first node left.
        report = wait_for(lambda: stream_report(size), 30)
        if not report:
            print("no node of the NATS cluster reports the events stream", file=sys.stderr)
            return 1
        leader = node_index(report["cluster"]["leader"])
        node = leader if leader in left else left[0]
        left.remove(node)
        positions = {name: c["delivered"]["stream_seq"] for name, c in durables(size).items()}
        was_leader = leader == node
        at = time.monotonic()
        fault("kill-node", str(node))
        time.sleep(OUTAGE)
        fault("start-node", str(node))
        back = time.monotonic()
        time.sleep(SETTLE)
        deadline = time.monotonic() + 20
        moved, lagging = consumers_moved_on(size, positions)
        while not moved and time.monotonic() < deadline:
            time.sleep(0.5)
            moved, lagging = consumers_moved_on(size, positions)
        if not logout_seen_everywhere():
            moved, lagging = False, (lagging + "; " if lagging else "") + "a gateway still accepts a logged-out token"
        after = stream_report(size) or {}
        leaders = {"stream": after.get("cluster", {}).get("leader", "?")}
        leaders.update({name: c.get("cluster", {}).get("leader", "?") for name, c in durables(size).items()})
        kills.append((node, was_leader, at, back, leaders, moved, lagging))
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    print(f"\nNATS node loss: a cluster of {size}, {WORKERS} workers logging in and refreshing (every "
          f"{DELETE_EVERY}th member deleted), {os.cpu_count()} cores, each node down {OUTAGE:.0f} s; a kill's "
          f"window runs until {SETTLE:.0f} s after the node is back\n")
    print("| node killed | requests | failed | failed answers | seconds from the kill to the last failure | leaders after (stream; consumers) | consumers moved on |")
    print("|---|---|---|---|---|---|---|")
    over = False
    for node, was_leader, at, back, leaders, moved, lagging in kills:
        # A failure belongs to the kill in force when it surfaced (its answer's end).
        window, failed, statuses, last_failure = fault_window(records, at, back + SETTLE, good=(200, 204))
        share = len(failed) / max(1, len(window))
        over |= share > ALLOWED_FAILURES
        recovery = "0 (none failed)" if last_failure is None else f"{last_failure - at:.1f}"
        answers = ", ".join(f"{status or 'connection'}: {count}" for status, count in sorted(statuses.items())) or "-"
        consumer_leaders = ", ".join(leaders[d] for d in DURABLES if d in leaders)
        print(f"| n{node}{' (stream leader)' if was_leader else ''} | {len(window)} | {len(failed)} ({share:.2%}) | "
              f"{answers} | {recovery} | {leaders['stream']}; {consumer_leaders} | {'yes' if moved else 'NO: ' + lagging} |")

    everything, failed, statuses, _ = fault_window(records, 0, float("inf"), good=(200, 204))
    share = len(failed) / max(1, len(everything))
    answers = ", ".join(f"{status or 'connection'}: {count}" for status, count in sorted(statuses.items())) or "-"
    print(f"\nThe whole run: {len(everything)} requests, {len(failed)} failed ({share:.2%}; {answers})")

    problems = []
    if over:
        problems.append(f"a kill window failed more than {ALLOWED_FAILURES:.0%} of its requests")
    if share > ALLOWED_FAILURES:
        problems.append(f"the whole run failed more than {ALLOWED_FAILURES:.0%} of its requests")
    if not all(k[5] for k in kills):
        problems.append("a durable consumer did not move on after a kill")

    # The outboxes drain: every event the run caused was published.
    left = wait_for(lambda: psql("select (select count(*) from member.outbox) + (select count(*) from issuer.outbox)") == "0", 60)
    outbox = psql("select (select count(*) from member.outbox) || ' member, ' || (select count(*) from issuer.outbox) || ' issuer'")
    print(f"\nOutbox rows left after the load: {outbox}")
    if not left:
        problems.append("the outboxes did not drain")

    # Every durable consumer has handled everything.
    def idle():
        now = durables(size)
        return set(now) == set(DURABLES) and all(c["num_pending"] == 0 and c["num_ack_pending"] == 0 for c in now.values())
    if not wait_for(idle, 30):
        states = "; ".join(f"{name}: {describe(c)}" for name, c in sorted(durables(size).items()))
        problems.append(f"the durable consumers are not all there with nothing pending after the load ({states})")
    else:
        print("Durable consumers after the load: nothing pending, nothing unacknowledged")

    # Every member created during the run has its member.created event in the stream: each one a login
    # answered, and each row made since the run started (a login whose answer was lost made one too).
    rows = psql(f"select id from member.members where created_at >= to_timestamp({started_at})")
    created.update(rows.split())
    ids = [str(member) for member in asyncio.run(member_created_ids(size))]
    missing = created - set(ids)
    counts = collections.Counter(ids)
    repeated = sum(1 for member in created if counts[member] > 1)
    print(f"Members created during the run: {len(created)}; with a member.created event in the stream: "
          f"{len(created) - len(missing)}; with more than one: {repeated}")
    if missing:
        problems.append(f"{len(missing)} members have no member.created event (e.g. {sorted(missing)[:5]})")

    # Every refresh token handed out during the run still works.
    client, broken = Client(GATEWAY), 0
    for token in sessions:
        status, _ = client.request("POST", "/api/auth/refresh", {"refreshToken": token})
        broken += status != 200
    print(f"Refresh tokens issued during the run (members not deleted): {len(sessions)}; refused afterwards: {broken}")
    if broken:
        problems.append(f"{broken} refresh tokens were refused")

    exited = sorted(before_alive - set(fault("alive").split()))
    down = [n for n in range(1, size + 1) if not jsz(n)]
    print(f"Processes that exited: {', '.join(exited) or 'none'}; NATS nodes not answering: {', '.join(f'n{n}' for n in down) or 'none'}")
    if exited or down:
        problems.append("a process exited or a node did not come back")
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
