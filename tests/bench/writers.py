#!/usr/bin/env python3
"""writers.py - concurrent writers on one memory: N server processes, each with one client
writing one entity per create_entities call, all on the same store, started together.

Reports, per server command: writes acknowledged per second over the whole run, writes that
failed (an error reply), and the p50/p95/p99 latency of one acknowledged write as its client
saw it (request written to reply read). Afterwards a fresh server looks the entities up: every
acknowledged write must be there (exit 2 if not).

Placeholders in --server commands: {dir} a fresh directory per run, {name} a fresh name
(letters and digits: a PostgreSQL memory's name).

    python3 tests/bench/writers.py --writers 4 --writes 500 \\
        --server "file=target/release/mcp-memory -f {dir}/memory.mcpmem" \\
        --server "postgres=target/release/mcp-memory --store postgres://postgres@127.0.0.1/postgres?memory={name}" \\
        --server "seed=/work/peer/bin/mcp-memory -f {dir}/memory.db"

Python 3.11 standard library only.
"""

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import uuid


def start(cmd):
    p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    call(p, 0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "writers.py", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    return p


def call(p, id, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": id, "method": method,
                               "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            raise RuntimeError("the server closed stdout")
        msg = json.loads(line)
        if msg.get("id") == id:
            if "error" in msg or msg.get("result", {}).get("isError"):
                raise RuntimeError(f"{method} failed: {line[:300]!r}")
            return msg["result"]


def tool(p, id, name, arguments):
    return call(p, id, "tools/call", {"name": name, "arguments": arguments})


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(label, template, writers, writes):
    with tempfile.TemporaryDirectory() as dir:
        cmd = template.replace("{dir}", dir).replace("{name}", "w" + uuid.uuid4().hex[:12])
        procs = [start(cmd) for _ in range(writers)]
        latencies = [[] for _ in range(writers)]
        failures = [[] for _ in range(writers)]
        barrier = threading.Barrier(writers + 1)

        def write(i):
            p = procs[i]
            barrier.wait()
            for j in range(writes):
                entity = {"name": f"w{i}-{j}", "entityType": "bench", "observations": [f"o{j}"]}
                t = time.perf_counter()
                try:
                    tool(p, j + 1, "create_entities", {"entities": [entity]})
                except RuntimeError as e:
                    failures[i].append(str(e))
                    continue
                latencies[i].append(time.perf_counter() - t)

        threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for t in threads:
            t.start()
        barrier.wait()
        began = time.perf_counter()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
        for p in procs:
            p.stdin.close()
            p.wait(timeout=60)
        # Every write, once, as a fresh server reads the store.
        p = start(cmd)
        names = [f"w{i}-{j}" for i in range(writers) for j in range(writes)]
        found = 0
        for k in range(0, len(names), 500):
            got = tool(p, 10_000 + k, "open_nodes", {"names": names[k:k + 500]})
            found += len(json.loads(got["content"][0]["text"])["entities"])
        p.stdin.close()
        p.wait(timeout=60)
        every = [x for lat in latencies for x in lat] or [0.0]
        failed = [f for fs in failures for f in fs]
        acknowledged = writers * writes - len(failed)
        if failed:
            print(f"{label}: {len(failed)} writes failed, the first: {failed[0]}", file=sys.stderr)
        if found < acknowledged:
            print(f"{label}: {found} writes found after the run, {acknowledged} acknowledged",
                  file=sys.stderr)
            sys.exit(2)
        return {
            "label": label, "writers": writers, "writes": acknowledged, "failed": len(failed),
            "seconds": wall, "per_second": acknowledged / wall,
            "p50_ms": percentile(every, 0.50) * 1e3, "p95_ms": percentile(every, 0.95) * 1e3,
            "p99_ms": percentile(every, 0.99) * 1e3,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", action="append", required=True, metavar="LABEL=COMMAND")
    ap.add_argument("--writers", type=int, action="append", required=True,
                    help="server processes writing at once (repeatable: one run each)")
    ap.add_argument("--writes", type=int, default=500, help="writes per writer")
    ap.add_argument("--json-out")
    args = ap.parse_args()
    results = []
    print(f"{'server':<12} {'writers':>7} {'writes':>7} {'failed':>7} {'writes/s':>9} "
          f"{'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for writers in args.writers:
        for spec in args.server:
            label, _, template = spec.partition("=")
            r = run(label, template, writers, args.writes)
            results.append(r)
            print(f"{label:<12} {writers:>7} {r['writes']:>7} {r['failed']:>7} {r['per_second']:>9.0f} "
                  f"{r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} {r['p99_ms']:>8.2f}", flush=True)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
