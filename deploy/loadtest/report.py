#!/usr/bin/env python3
"""Prints deploy/loadtest/run's tables, and writes its figures as JSON for deploy/loadtest/compare.

  report.py RESULTS.jsonl MEMORY-IDLE.json MEMORY-END.json CORES CONNECTIONS DURATION MINTED [OUT.json]
"""
import json
import sys

OPERATIONS = [("first-login", "first login (new member)"), ("repeat-login", "repeat login"),
              ("refresh", "refresh"), ("me", "GET /api/members/me")]
# Columns of the CPU budget, in this order; any other process of the stack follows.
PROCESSES = ["postgresql", "gateway", "token-issuer", "member-service", "nats-server", "token-verifier", "dev-idp"]


def budget(row):
    """CPU microseconds per request of each process (and wrk) over one wrk run."""
    requests = max(row["result"]["requests"], 1)
    per = {name: (row["cpu_after"].get(name, 0.0) - row["cpu_before"].get(name, 0.0)) * 1e6 / requests
           for name in set(row["cpu_before"]) | set(row["cpu_after"])}
    per["wrk"] = row["wrk_cpu"] * 1e6 / requests
    return per


def stack_total(per):
    """CPU per request of the stack's processes, without the load generator."""
    return sum(value for name, value in per.items() if name != "wrk")


def main(argv):
    results_path, idle_path, end_path, cores, connections, duration, minted = argv[1:8]
    out_path = argv[8] if len(argv) > 8 else ""
    rows = {}
    for line in open(results_path):
        row = json.loads(line)
        rows[row["name"]] = row
    idle, end = json.load(open(idle_path)), json.load(open(end_path))

    print(f"\nLoad test through the gateway: {cores} cores, wrk -t2 -c{connections}, {duration} s a run, {minted} ID tokens minted")
    print("Everything (PostgreSQL, nats-server, services, wrk) on this one machine.\n")
    print("| operation | requests/s | p50 ms | p90 ms | p99 ms | non-2xx | p99 ms at half rate (rate) |")
    print("|---|---|---|---|---|---|---|")
    figures = {"cores": int(cores), "operations": {}, "memory": {}}
    for name, label in OPERATIONS:
        full, half = rows[name]["result"], rows[name + "-half"]["result"]
        print(f"| {label} | {full['rps']:,.0f} | {full['p50_ms']:.2f} | {full['p90_ms']:.2f} | {full['p99_ms']:.2f} | "
              f"{full['non2xx'] + full['socket_errors']} | {half['p99_ms']:.2f} ({half['rps']:,.0f}/s) |")
        figures["operations"][name] = {"rps": full["rps"], "p99_ms": full["p99_ms"], "half_p99_ms": half["p99_ms"],
                                       "half_rps": half["rps"], "errors": full["non2xx"] + full["socket_errors"],
                                       "cpu_us": budget(rows[name])}

    seen = set()
    for name, _ in OPERATIONS:
        seen |= set(figures["operations"][name]["cpu_us"])
    columns = [p for p in PROCESSES if p in seen] + sorted(seen - set(PROCESSES) - {"wrk"}) + ["wrk"]
    if columns == ["wrk"]:
        print("\nCPU budget: not measured (no process of a local stack in STACK_RUN_DIR; a containerised stack's are not read)")
    else:
        print_budget(figures, columns)
    print_memory(idle, end, figures)
    if out_path:
        with open(out_path, "w") as handle:
            json.dump(figures, handle)


def print_budget(figures, columns):
    print("\nCPU budget at full speed: microseconds of CPU per request, per process (user + system, from /proc);")
    print("the stack's total leaves out wrk, the load generator, shown last\n")
    print("| operation (rate) | stack total | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 2) + "|")
    for name, label in OPERATIONS:
        per = figures["operations"][name]["cpu_us"]
        rate = figures["operations"][name]["rps"]
        print(f"| {label} ({rate:,.0f}/s) | {stack_total(per):,.0f} | " +
              " | ".join(f"{per.get(c, 0.0):,.0f}" for c in columns) + " |")


def print_memory(idle, end, figures):
    if not end:
        return
    print("\nResident memory (MiB): at rest before the load, and the peak (VmHWM); of a service with replicas its")
    print("largest, of PostgreSQL its largest process")
    print("\n| process | at rest | peak |")
    print("|---|---|---|")
    for name in [p for p in PROCESSES if p in end] + sorted(set(end) - set(PROCESSES)):
        rest = idle.get(name, {}).get("rss_kib", 0) / 1024
        peak = end[name]["peak_kib"] / 1024
        print(f"| {name} | {rest:.1f} | {peak:.1f} |")
        figures["memory"][name] = {"rest_mib": rest, "peak_mib": peak}


if __name__ == "__main__":
    main(sys.argv)
