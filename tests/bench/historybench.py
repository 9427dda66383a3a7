#!/usr/bin/env python3
"""What the history tools cost at a size: history, reads asOf and undo, which read the log back.

Loads N entities (two observations each), 3N relations and 1,000 one-observation changes
through stdio, then times each history call (median of 5) beside the same read without asOf.

    python3 tests/bench/historybench.py target/release/mcp-memory 40000
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    binary, n = sys.argv[1], int(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "memory.mcpmem")
        server = subprocess.Popen([binary, "-f", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        ids = iter(range(1, 1 << 62))

        def call(name, args):
            rid = next(ids)
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                           "params": {"name": name, "arguments": args}}) + "\n")
            while True:
                reply = json.loads(server.stdout.readline())
                if reply.get("id") == rid:
                    break
            result = reply["result"]
            if result.get("isError"):
                raise SystemExit(f"{name}: {result['content'][0]['text']}")
            return result.get("structuredContent")

        def timed(label, name, args, reps=5):
            times = []
            for _ in range(reps):
                start = time.perf_counter()
                call(name, args)
                times.append((time.perf_counter() - start) * 1000)
            print(f"{label:48s} median {statistics.median(times):8.2f} ms  (n={reps})")

        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "historybench", "version": "1"}}}) + "\n")
        server.stdout.readline()
        for i in range(0, n, 1000):
            call("create_entities", {"entities": [
                {"name": f"e{j}", "entityType": "t", "observations": [f"fact {j} alpha", f"fact {j} beta"]}
                for j in range(i, min(i + 1000, n))]})
        for i in range(0, 3 * n, 1000):
            call("create_relations", {"relations": [
                {"from": f"e{j % n}", "to": f"e{(j * 7 + 1) % n}", "relationType": "r"}
                for j in range(i, min(i + 1000, 3 * n))]})
        for j in range(1000):
            call("add_observations", {"observations": [{"entityName": f"e{j % n}", "contents": [f"later {j}"]}]})
        print(f"{n} entities, {3 * n} relations written in {-(-n // 1000) + -(-3 * n // 1000) + 1000} changes; "
              f"log {os.path.getsize(path) / 1e6:.1f} MB")
        timed("history (newest 50)", "history", {})
        timed("history of one entity", "history", {"entityName": "e5"})
        timed("open_nodes", "open_nodes", {"names": ["e5"]})
        timed("open_nodes asOf (replays the whole log)", "open_nodes", {"names": ["e5"], "asOf": "2100-01-01"})
        timed("search_nodes asOf (replay + index)", "search_nodes",
              {"query": "fact 77 alpha", "asOf": "2100-01-01", "limit": 10}, 3)
        latest = call("history", {"limit": 1})["changes"][0]["id"]
        start = time.perf_counter()
        call("undo", {"changeId": latest})
        print(f"{'undo of the latest change':48s} once   {(time.perf_counter() - start) * 1000:8.2f} ms")
        server.stdin.close()
        server.wait()


if __name__ == "__main__":
    main()
