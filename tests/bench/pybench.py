#!/usr/bin/env python3
"""Latency of the Python seed's reads (profile mcp-memory-py) over stdio, for several
builds of mcp-memory in one run: what a change costs them (issue K measured the usage
counts' cost to reads with it).

    python3 tests/bench/pybench.py 10000 /tmp/mcp-memory-before target/release/mcp-memory

Creates N entities of 3 random 8-word observations (every 40th with 33), from a
20-word vocabulary (so every query matches most entities: the worst case for word
search), then times 300 calls of each tool per binary, interleaved (round r calls each
binary in turn, so load on the machine falls on all alike): open_nodes (1 name),
search_semantic (limit 10), search_nodes (limit 10). Prints median and p95 per binary and
tool. Each binary gets its own fresh memory file in a temporary directory.
"""
import json, os, random, subprocess, sys, tempfile, time, statistics

WORDS = ("harbor mill river grain stone boat lamp road field market bridge tower "
         "garden winter summer letter engine signal forest valley").split()

class Server:
    def __init__(self, binary, path):
        env = dict(os.environ, MEMORY_FILE_PATH=path, MCP_MEMORY_PROFILE="mcp-memory-py")
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, bufsize=0)
        self.id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def rpc(self, method, params):
        self.id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        self.p.stdin.write(line.encode() + b"\n")
        while True:
            out = json.loads(self.p.stdout.readline())
            if out.get("id") == self.id:
                return out

    def call(self, tool, args):
        t = time.perf_counter()
        out = self.rpc("tools/call", {"name": tool, "arguments": args})
        took = time.perf_counter() - t
        assert "result" in out and not out["result"].get("isError"), out
        return took

    def close(self):
        self.p.stdin.close()
        self.p.wait()

def main():
    n = int(sys.argv[1])
    binaries = sys.argv[2:]
    rng = random.Random(7)
    sentence = lambda: " ".join(rng.choice(WORDS) for _ in range(8))
    entities = [{"name": f"e{i}", "entityType": "Generic",
                 "observations": [sentence() for _ in range(33 if i % 40 == 0 else 3)]}
                for i in range(n)]
    tmp = tempfile.mkdtemp()
    servers = []
    for k, b in enumerate(binaries):
        s = Server(b, os.path.join(tmp, f"m{k}.jsonl"))
        for c in range(0, n, 500):
            s.call("create_entities", {"entities": entities[c:c + 500]})
        servers.append(s)
    calls = [("open_nodes", lambda i: {"names": [f"e{(i * 37) % n}"]}),
             ("search_semantic", lambda i: {"query": " ".join(rng.sample(WORDS, 3)), "limit": 10}),
             ("search_nodes", lambda i: {"query": rng.choice(WORDS), "limit": 10})]
    times = {(b, t): [] for b in range(len(binaries)) for t, _ in calls}
    for tool, args in calls:  # warm up (builds indexes)
        for s in servers:
            s.call(tool, args(0))
    for r in range(300):
        for tool, args in calls:
            a = args(r)
            for k, s in enumerate(servers):
                times[(k, tool)].append(s.call(tool, a))
    for s in servers:
        s.close()
    print(f"{n} entities, 300 calls each, interleaved")
    for tool, _ in calls:
        for k, b in enumerate(binaries):
            ts = sorted(times[(k, tool)])
            med = statistics.median(ts) * 1000
            p95 = ts[int(len(ts) * 0.95)] * 1000
            print(f"{tool:<16} {os.path.basename(b):<24} median {med:8.3f} ms  p95 {p95:8.3f} ms")

main()
