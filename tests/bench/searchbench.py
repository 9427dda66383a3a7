#!/usr/bin/env python3
"""What `search` costs in each mode on a memory file, end to end over stdio.

Starts a server on a copy of FILE per mode (`search` lexical, semantic, hybrid, and
`search_nodes`), with the search indexes saved beside it if there are (FILE.indexes), lets
it be quiet for IDLE seconds (0: none; a server reads or builds its indexes while no
message waits), then times the first search (which reads or builds what it needs that is
not ready yet: the ranked or trigram index, or the embedding table read and every entity
embedded) and QUERIES searches of varied words and questions (p50/p95/max), and the
server's peak RSS before and after them. A memory file to measure:
`target/release/mcpload ... --entities 40000 --keep-workdir` keeps one.

    python3 tests/bench/searchbench.py --cmd "target/release/mcp-memory -f {file}" \\
        --file /tmp/mcpload-us-.../memory.mcpmem [--idle 5] [--first zqbacada]
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time

WORDS = [
    "engineer", "coffee", "Lisbon", "hiking", "Rust", "team", "project", "delayed",
    "backend", "Population", "percent", "tea", "dog", "English", "Founded", "Status",
]
QUESTIONS = [
    "who works on the backend", "which project is late", "someone who likes the outdoors",
    "a company in a northern city", "people who speak several languages",
    "what does the team drink in the morning", "which places are crowded",
    "who owns a pet", "projects written in a systems language", "a person fond of mountains",
]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


class Server:
    def __init__(self, cmd, file):
        argv = [a.replace("{file}", file) for a in shlex.split(cmd)]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "searchbench", "version": "1"}})

    def request(self, method, params):
        self.id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        start = time.perf_counter()
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        took = time.perf_counter() - start
        if "error" in reply or reply["result"].get("isError"):
            raise SystemExit(f"{method} failed: {json.dumps(reply)[:400]}")
        return reply["result"], took

    def search(self, query, mode):
        if mode == "search_nodes":
            return self.request("tools/call", {"name": mode, "arguments": {"query": query}})
        args = {"query": query, "limit": 10, "mode": mode}
        return self.request("tools/call", {"name": "search", "arguments": args})

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cmd", required=True, help="server command; {file} is the memory file")
    ap.add_argument("--file", required=True, help="memory file (copied, never changed)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--idle", type=float, default=0.0,
                    help="seconds without a message before the first search")
    ap.add_argument("--first", default="someone who enjoys the outdoors",
                    help="the first search's query (e.g. one of mcpload's rare words, zqbacada)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="searchbench-")
    try:
        print(f"| mode | first search ms | p50 ms | p95 ms | max ms | peak RSS before / after MiB |")
        print("|---|---:|---:|---:|---:|---:|")
        for mode in ["lexical", "semantic", "hybrid", "search_nodes"]:
            file = os.path.join(work, os.path.basename(args.file))
            shutil.copyfile(args.file, file)
            # The search indexes saved beside it, if any (a start reads them, not builds).
            if os.path.exists(args.file + ".indexes"):
                shutil.copyfile(args.file + ".indexes", file + ".indexes")
            s = Server(args.cmd, file)
            s.request("tools/call", {"name": "open_nodes", "arguments": {"names": ["x"]}})
            time.sleep(args.idle)
            before = rss_kib(s.p.pid)
            _, first = s.search(args.first, mode)
            times = []
            queries = WORDS + QUESTIONS
            for i in range(args.queries):
                times.append(s.search(queries[i % len(queries)], mode)[1])
            after = rss_kib(s.p.pid)
            s.close()
            ms = [t * 1000 for t in times]
            print(f"| {mode} | {first * 1000:.1f} | {pct(ms, 0.5):.2f} | {pct(ms, 0.95):.2f} | "
                  f"{max(ms):.2f} | {before / 1024:.1f} / {after / 1024:.1f} |")
            os.remove(file)
            if os.path.exists(file + ".indexes"):
                os.remove(file + ".indexes")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
