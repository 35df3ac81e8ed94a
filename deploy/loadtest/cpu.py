#!/usr/bin/env python3
"""CPU and memory of the local stack's processes, from /proc (used by deploy/loadtest/run).

  cpu.py sample RUN_DIR         JSON: {process: CPU seconds used so far}
  cpu.py settle RUN_DIR         waits until the stack uses under a tenth of a core (over half a second,
                                at most 10 s), then prints what sample prints
  cpu.py memory RUN_DIR         JSON: {process: {"rss_kib": VmRSS, "peak_kib": VmHWM}}
  cpu.py child OUT -- CMD...    runs CMD, then writes the CPU seconds it and its children used to OUT

Processes are named as in RUN_DIR/pids (NAME-INDEX.pid, replicas summed under NAME), plus
"postgresql" (the postmaster and every process under it, with the backends that already ended)
and "nats-server". CPU is user plus system time.
"""
import json
import os
import resource
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name, or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            text = handle.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def cpu_seconds(pid, with_reaped_children=False):
    """User plus system CPU of PID (and of its children it already waited for), in seconds."""
    fields = stat_fields(pid)
    if fields is None:
        return 0.0
    # After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    ticks = int(fields[11]) + int(fields[12])
    if with_reaped_children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICKS


def children_of(root):
    """Every live process below ROOT (any depth)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(entry)
            if fields is not None:
                parents.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in parents.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def read_pid(path):
    try:
        with open(path) as handle:
            return int(handle.readline().strip())
    except (OSError, ValueError):
        return None


def runs_as(pid, name):
    """True when PID runs the program NAME (its command name, which the kernel cuts at 15 characters):
    a pid file left by a stack that stopped may name a PID the system gave to another process since."""
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip() == name[:15]
    except OSError:
        return False


def processes(run_dir):
    """(name, pid, is_process_tree) for every process of the stack in RUN_DIR that is running."""
    found = []
    postmaster = read_pid(os.path.join(run_dir, "pg", "data", "postmaster.pid"))
    if postmaster:
        found.append(("postgresql", postmaster, True))
    nats = read_pid(os.path.join(run_dir, "nats", "nats.pid"))
    if nats:
        found.append(("nats-server", nats, False))
    pids_dir = os.path.join(run_dir, "pids")
    for entry in sorted(os.listdir(pids_dir)) if os.path.isdir(pids_dir) else []:
        if entry.endswith(".pid"):
            pid = read_pid(os.path.join(pids_dir, entry))
            if pid:
                found.append((entry[:-4].rsplit("-", 1)[0], pid, False))
    return [item for item in found if runs_as(item[1], "postgres" if item[0] == "postgresql" else item[0])]


def sample(run_dir):
    totals = {}
    for name, pid, tree in processes(run_dir):
        seconds = cpu_seconds(pid, with_reaped_children=tree)
        if tree:
            seconds += sum(cpu_seconds(child) for child in children_of(pid))
        totals[name] = totals.get(name, 0.0) + seconds
    return totals


def settle(run_dir, idle_share=0.1, window=0.5, longest=10.0):
    """Waits until the stack is nearly idle, then returns its sample."""
    previous = sample(run_dir)
    waited = 0.0
    while waited < longest:
        time.sleep(window)
        waited += window
        current = sample(run_dir)
        used = sum(current.values()) - sum(previous.values())
        previous = current
        if used < idle_share * window:
            break
    return previous


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory(run_dir):
    """Resident and peak resident memory: of a service with replicas, its largest replica; of PostgreSQL,
    its largest process."""
    found = {}
    for name, pid, tree in processes(run_dir):
        pids = [pid] + (children_of(pid) if tree else [])
        rss = max(status_kib(p, "VmRSS") for p in pids)
        peak = max(status_kib(p, "VmHWM") for p in pids)
        entry = found.setdefault(name, {"rss_kib": 0, "peak_kib": 0})
        entry["rss_kib"] = max(entry["rss_kib"], rss)
        entry["peak_kib"] = max(entry["peak_kib"], peak)
    return found


def child(out, command):
    completed = subprocess.run(command)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as handle:
        handle.write(f"{usage.ru_utime + usage.ru_stime:.3f}\n")
    return completed.returncode


def main(argv):
    if len(argv) >= 3 and argv[1] == "sample":
        print(json.dumps(sample(argv[2])))
    elif len(argv) >= 3 and argv[1] == "settle":
        print(json.dumps(settle(argv[2])))
    elif len(argv) >= 3 and argv[1] == "memory":
        print(json.dumps(memory(argv[2])))
    elif len(argv) >= 5 and argv[1] == "child" and argv[3] == "--":
        return child(argv[2], argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
