"""The `ha` checks of deploy/docker/test against a running compose stack with the `ha` profile (a
NATS cluster of nats, nats-2 and nats-3; events on all three); run by it, not on its own.

Under a steady load (drive.py's workers: mint a Google ID token, log in, refresh, over both
gateways), kills each NATS container in turn (docker kill), each time the events stream's leader
unless it was killed already, starts it again OUTAGE_SECONDS later, waits until its /healthz says
it has caught up and lets the load run SETTLE_SECONDS. Checks:
  - at most 1% of the requests in each kill's window (from the kill until SETTLE_SECONDS after the
    node is back) fail;
  - at most 1% of the whole run's requests fail;
  - the durable consumers moved on: after each kill each has a leader and delivered past where it
    was, or has nothing left to deliver, and acknowledged past it or has nothing unacknowledged;
  - after the load the outboxes drain to empty and the consumers have nothing pending;
  - every refresh token handed out still refreshes (drive.py's final check).

Writes its figures as JSON to the file named by RESULTS and exits 1 if a check failed. Environment
as drive.py's (GATEWAY_PORTS, DEV_IDP_URL, PROJECT, WORKERS, OUTAGE_SECONDS, SETTLE_SECONDS).
"""
import importlib.util, json, os, subprocess, sys, threading, time, urllib.error, urllib.request

here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("docker_drive", os.path.join(here, "drive.py"))
drive = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(drive)

NODES = ["nats", "nats-2", "nats-3"]
DURABLES = ["token-verifier-revocations", "token-issuer-sessions", "token-issuer-sessions-identities"]
FAILURE_LIMIT = 0.01


def report(node):
    """The AUTH_EVENTS stream as NATS container `node` reports it (its /jsz), or None."""
    try:
        container = drive.containers(node)[0]
    except RuntimeError:
        return None
    out = subprocess.run(["docker", "exec", container, "wget", "-q", "-O", "-",
                          "http://127.0.0.1:8222/jsz?accounts=true&streams=true&consumers=true"],
                         capture_output=True, text=True)
    try:
        answer = json.loads(out.stdout)
    except ValueError:
        return None
    for account in answer.get("account_details", []):
        for detail in account.get("stream_detail", []):
            if detail["name"] == "AUTH_EVENTS":
                return detail
    return None


def stream():
    """The AUTH_EVENTS stream as the first running NATS container that knows its leader reports it."""
    for node in NODES:
        detail = report(node)
        if detail and detail.get("cluster", {}).get("leader"):
            return detail
    return None


def durables():
    """Each durable consumer as the node that leads it reports it (a follower's copy lags); one whose
    leader does not answer is left out."""
    found = {}
    for node in NODES:
        for c in (report(node) or {}).get("consumer_detail", []):
            if c["name"] in DURABLES and c.get("cluster", {}).get("leader") == node:
                found[c["name"]] = c
    return found


def health(container):
    """Whether the NATS node answers its full /healthz (JetStream up and current with the cluster), and
    what it says (its JSON, or why it was not read). Read from this machine at the container's own
    address: a `docker exec` could fail for reasons of its own, and say nothing of the node."""
    address = subprocess.run(["docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", container],
                             capture_output=True, text=True).stdout.split()
    if not address:
        return False, "no address (the container is not running)"
    try:
        with urllib.request.urlopen(f"http://{address[0]}:8222/healthz", timeout=5) as answer:
            return True, answer.read().decode(errors="replace")[:400]
    except urllib.error.HTTPError as error:
        return False, error.read().decode(errors="replace")[:400]
    except OSError as error:
        return False, f"unread: {error}"


def wait_caught_up(container, seconds, steady=2.0):
    """Seconds until the NATS node's /healthz answered 200 on every read for `steady` seconds, or None
    when it did not within `seconds`; and its last answer. Just after a start a node says 200 for a
    moment between "not current" answers, while it learns of the streams and consumers it holds: a
    single 200 says little."""
    started = time.monotonic()
    since = None
    while True:
        ok, words = health(container)
        now = time.monotonic()
        since = (since or now) if ok else None
        if since is not None and now - since >= steady:
            return since - started, words
        if now - started > seconds:
            return None, words
        time.sleep(0.2)


def lagging(before, after):
    """The durable consumers that did not move on from `before` (at a kill) to `after`."""
    behind = []
    for name in DURABLES:
        then, now = before.get(name), after.get(name)
        if then is None or now is None:
            behind.append(f"{name} (missing, or its leader does not answer)")
        elif now["delivered"]["stream_seq"] <= then["delivered"]["stream_seq"] and now["num_pending"] > 0 \
                or now["num_ack_pending"] > 0 and now["ack_floor"]["stream_seq"] <= then["delivered"]["stream_seq"]:
            behind.append(f"{name} (delivered up to {now['delivered']['stream_seq']}, acknowledged up to "
                          f"{now['ack_floor']['stream_seq']}, {now['num_pending']} pending, {now['num_ack_pending']} unacknowledged)")
    return behind


def outbox_rows():
    postgres = drive.containers("postgres")[0]
    out = subprocess.run(["docker", "exec", postgres, "sh", "-c",
                          'psql -qtA -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c '
                          '"select (select count(*) from member.outbox) + (select count(*) from issuer.outbox)"'],
                         capture_output=True, text=True)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else -1


def main():
    results = {"workers": drive.WORKERS}
    try:
        threads = [threading.Thread(target=drive.worker, args=(i,), daemon=True) for i in range(drive.WORKERS)]
        for thread in threads:
            thread.start()
        time.sleep(drive.SETTLE)
        first = stream()
        drive.check(first is not None, "no NATS node reports the AUTH_EVENTS stream")
        replicas = 1 + len((first or {}).get("cluster", {}).get("replicas", []) or [])
        drive.check(replicas == 3, f"the events stream has {replicas} copies (expected 3)")
        kills = []
        left = list(NODES)
        while left:
            # The stream's leader now, unless it was killed already: then the first node left.
            now = stream()
            leader = (now or {}).get("cluster", {}).get("leader")
            node = leader if leader in left else left[0]
            left.remove(node)
            before = durables()
            victim = drive.containers(node)[0]
            at = time.monotonic()
            drive.docker("kill", victim)
            time.sleep(drive.OUTAGE)
            drive.docker("start", victim)
            catching_up, words = wait_caught_up(victim, 120)
            drive.check(catching_up is not None, f"{node} has not caught up 120 s after it was started again; its /healthz: {words}")
            back = time.monotonic()
            time.sleep(drive.SETTLE)
            behind = lagging(before, durables())
            deadline = time.monotonic() + 20
            while behind and time.monotonic() < deadline:
                time.sleep(0.5)
                behind = lagging(before, durables())
            kills.append((node, node == leader, at, back, behind, catching_up))
        drive.stop.set()
        for thread in threads:
            thread.join(timeout=60)

        rows = []
        for node, was_leader, at, back, behind, catching_up in kills:
            window, failed, statuses, last_failure = drive.fault_drive.fault_window(drive.records, at, back + drive.SETTLE)
            rows.append({"node": node, "leader": was_leader, "requests": len(window), "failed": len(failed),
                         "statuses": {str(k): v for k, v in sorted(statuses.items())},
                         "recovery_s": 0.0 if last_failure is None else round(last_failure - at, 1),
                         "consumers_moved_on": not behind, "caught_up_s": None if catching_up is None else round(catching_up, 1)})
            drive.check(len(window) > 0, f"kill {node}: no request at all in its window")
            drive.check(len(failed) <= FAILURE_LIMIT * len(window),
                        f"kill {node}: {len(failed)} of {len(window)} requests failed (limit 1%): {statuses}")
            drive.check(not behind, f"kill {node}: durable consumers that did not move on: {', '.join(behind)}")
        results["node_kills"] = rows
        everything, failed, statuses, _ = drive.fault_drive.fault_window(drive.records, 0, float("inf"))
        results["whole_run"] = {"requests": len(everything), "failed": len(failed),
                                "statuses": {str(k): v for k, v in sorted(statuses.items())}}
        drive.check(len(failed) <= FAILURE_LIMIT * len(everything),
                    f"the whole run: {len(failed)} of {len(everything)} requests failed (limit 1%): {statuses}")

        deadline = time.monotonic() + 60
        while outbox_rows() != 0 and time.monotonic() < deadline:
            time.sleep(1)
        left = outbox_rows()
        results["outbox_rows_left"] = left
        drive.check(left == 0, f"the outboxes hold {left} rows 60 s after the load")
        deadline = time.monotonic() + 30
        while True:
            consumers = durables()
            idle = set(consumers) == set(DURABLES) and all(c["num_pending"] == 0 and c["num_ack_pending"] == 0 for c in consumers.values())
            if idle or time.monotonic() > deadline:
                break
            time.sleep(1)
        states = {name: (c["num_pending"], c["num_ack_pending"]) for name, c in consumers.items()}
        drive.check(idle, f"the durable consumers are not all there with nothing pending after the load (pending, unacknowledged): {states}")
        drive.final_refresh(results)
    except Exception as error:  # noqa: BLE001 -- any error is a failed check, with its words
        drive.check(False, f"{type(error).__name__}: {error}")
    results["failures"] = drive.failures
    with open(os.environ["RESULTS"], "w") as out:
        json.dump(results, out, indent=1)
    return 1 if drive.failures else 0


if __name__ == "__main__":
    sys.exit(main())
